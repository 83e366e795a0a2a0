package io.jccl.kernels.cuda;

/**
 * What {@link CudaProbe} found: whether jccl can use CUDA in this process, and if not, why.
 *
 * @param available     true when JCuda's driver binding loaded, {@code cuInit} succeeded and there is a device.
 * @param reason        a human reason when not available ({@code "no CUDA driver: libcuda.so.1: cannot open
 *                      shared object file: No such file or directory"}); empty when available.
 * @param driverVersion the driver's version as {@code cuDriverGetVersion} gives it ({@code 13000} for 13.0), or 0
 *                      when the driver could not be asked.
 * @param devices       the number of CUDA devices, 0 when not available.
 */
public record CudaAvailability(boolean available, String reason, int driverVersion, int devices)
{
    /**
     * @param driverVersion the driver's version.
     * @param devices       the number of devices, at least 1.
     * @return an answer saying CUDA is available.
     */
    static CudaAvailability present(final int driverVersion, final int devices)
    {
        return new CudaAvailability(true, "", driverVersion, devices);
    }

    /**
     * @param reason        why CUDA is not available.
     * @param driverVersion the driver's version, 0 if unknown.
     * @return an answer saying CUDA is not available.
     */
    static CudaAvailability absent(final String reason, final int driverVersion)
    {
        return new CudaAvailability(false, reason, driverVersion, 0);
    }
}
