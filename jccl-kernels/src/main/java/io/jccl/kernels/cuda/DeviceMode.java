package io.jccl.kernels.cuda;

import io.jccl.JcclInvalidArgumentException;

import java.util.Locale;

/**
 * Where a user asked jccl to put its memory and arithmetic ({@code --device auto|host|cuda}):
 * {@link CudaProbe#resolve(DeviceMode)} turns the choice into "use CUDA or not" for this process.
 */
public enum DeviceMode
{
    /** CUDA when {@link CudaProbe} finds a driver and a device, host memory otherwise. */
    AUTO,
    /** Host memory, without touching JCuda. */
    HOST,
    /** CUDA, or an error naming why it is not available. */
    CUDA;

    /** @return the stable lower-case name the flag takes: {@code auto}, {@code host} or {@code cuda}. */
    public String flagName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param text {@code auto}, {@code host} or {@code cuda}, in any case.
     * @return the mode.
     * @throws JcclInvalidArgumentException naming the argument and the accepted values.
     */
    public static DeviceMode parse(final String text)
    {
        if (text != null)
        {
            for (final DeviceMode mode : values())
            {
                if (mode.flagName().equalsIgnoreCase(text.trim()))
                {
                    return mode;
                }
            }
        }
        throw new JcclInvalidArgumentException("device '" + text + "' is not one of auto, host, cuda");
    }
}
