package io.jccl.core;

import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.kernels.cuda.CudaApi;

import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The device memory of {@link Jccl#allocateDevice}: each live allocation by its address, with the driver and device
 * it came from, so that copies and {@link Jccl#freeDevice(DeviceBuffer)} need no driver from the caller. Addresses are
 * unique in a process (CUDA's unified addressing; the device double hands out native memory), so one map serves every
 * driver.
 * <p>
 * Threading: any thread; the map is concurrent and an allocation is removed once, by the free that wins.
 */
final class DeviceAllocations
{
    /** The process's allocations. */
    static final DeviceAllocations INSTANCE = new DeviceAllocations();

    /** One live allocation: its driver, device and the length the caller asked for. */
    private record Allocation(CudaApi cuda, int device, long length)
    {
    }

    private final ConcurrentNavigableMap<Long, Allocation> live = new ConcurrentSkipListMap<>();

    private DeviceAllocations()
    {
    }

    /**
     * @param cuda   the driver.
     * @param device the device ordinal.
     * @param length bytes, at least 0 (a zero-length buffer holds one byte of the device, since a device address is
     *               never 0).
     * @return the buffer.
     */
    DeviceBuffer allocate(final CudaApi cuda, final int device, final long length)
    {
        final long address = CallerContext.keep(cuda, () ->
        {
            cuda.setDevice(device);
            return cuda.malloc(Math.max(1, length));
        });
        live.put(address, new Allocation(cuda, device, length));
        return DeviceBuffer.of(address, length, device);
    }

    /**
     * Copies a host range to the start of a device range and waits for the copy.
     *
     * @param target device memory of {@link #allocate}, or a slice of it.
     * @param source host memory, at most as long as the target.
     */
    void copyToDevice(final DeviceBuffer target, final HostBuffer source)
    {
        final Allocation allocation = containing(target, "target");
        checkFits(source.length(), target.length(), "source", "target");
        copy(allocation, target.device(), target.address(), LocalCommunicator.address(source), source.length());
    }

    /**
     * Copies a device range to the start of a host range and waits for the copy.
     *
     * @param target host memory, at least as long as the source.
     * @param source device memory of {@link #allocate}, or a slice of it.
     */
    void copyFromDevice(final HostBuffer target, final DeviceBuffer source)
    {
        final Allocation allocation = containing(source, "source");
        checkFits(source.length(), target.length(), "source", "target");
        copy(allocation, source.device(), LocalCommunicator.address(target), source.address(), source.length());
    }

    /**
     * @param buffer a whole buffer of {@link #allocate}.
     * @throws JcclInvalidArgumentException if it is not a live allocation, or a slice of one.
     */
    void free(final DeviceBuffer buffer)
    {
        final Allocation allocation = live.get(buffer.address());
        if (allocation == null || allocation.length() != buffer.length() || allocation.device() != buffer.device() ||
            !live.remove(buffer.address(), allocation))
        {
            throw new JcclInvalidArgumentException("buffer " + buffer + " is not a live buffer of " +
                "Jccl.allocateDevice (freed already, a slice, or memory of another allocator)");
        }
        CallerContext.keep(allocation.cuda(), () ->
        {
            allocation.cuda().setDevice(allocation.device());
            allocation.cuda().free(buffer.address());
            return null;
        });
    }

    private Allocation containing(final DeviceBuffer buffer, final String name)
    {
        final Map.Entry<Long, Allocation> entry = live.floorEntry(buffer.address());
        if (entry == null || entry.getValue().device() != buffer.device() ||
            buffer.address() - entry.getKey() + buffer.length() > entry.getValue().length())
        {
            throw new JcclInvalidArgumentException(name + " " + buffer + " does not lie in a live buffer of " +
                "Jccl.allocateDevice");
        }
        return entry.getValue();
    }

    private static void checkFits(final long sourceLength, final long targetLength, final String source,
        final String target)
    {
        if (sourceLength > targetLength)
        {
            throw new JcclInvalidArgumentException(source + " length " + sourceLength + " exceeds " + target +
                " length " + targetLength);
        }
    }

    private static void copy(final Allocation allocation, final int device, final long dst, final long src,
        final long length)
    {
        if (length == 0)
        {
            return;
        }
        final CudaApi cuda = allocation.cuda();
        CallerContext.keep(cuda, () ->
        {
            cuda.setDevice(device);
            cuda.memcpyAsync(dst, src, length, 0);
            cuda.streamSynchronize(0);
            return null;
        });
    }
}
