package io.jccl.kernels;

import io.jccl.JcclSystemException;
import io.jccl.MemoryKind;
import org.agrona.UnsafeApi;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Host memory, allocated off-heap and addressed natively. Thread-safe. Allocations are remembered so that an
 * aligned address can be freed through the raw pointer it came from.
 */
public final class HostDevice implements Device
{
    /** The one host device. */
    public static final HostDevice INSTANCE = new HostDevice();

    private static final int ALIGNMENT = 64;

    private final ConcurrentHashMap<Long, Long> rawByAligned = new ConcurrentHashMap<>();

    private HostDevice()
    {
    }

    /**
     * Checks that the JVM lets jccl use {@code jdk.internal.misc.Unsafe} through Agrona.
     *
     * @throws JcclSystemException naming the missing flag.
     */
    public static void checkJvmFlags()
    {
        try
        {
            final long address = UnsafeApi.allocateMemory(8);
            UnsafeApi.freeMemory(address);
        }
        catch (final LinkageError | RuntimeException ex)
        {
            throw new JcclSystemException("jccl needs the JVM flag --add-exports " +
                "java.base/jdk.internal.misc=ALL-UNNAMED (Agrona's off-heap access); start java with it", ex);
        }
    }

    @Override
    public String name()
    {
        return "host";
    }

    @Override
    public MemoryKind memoryKind()
    {
        return MemoryKind.HOST;
    }

    @Override
    public long allocate(final long length)
    {
        if (length < 0)
        {
            throw new IllegalArgumentException("length=" + length + " is negative");
        }
        final long raw = UnsafeApi.allocateMemory(length + ALIGNMENT);
        final long aligned = (raw + ALIGNMENT - 1) & -ALIGNMENT;
        UnsafeApi.setMemory(aligned, length, (byte)0);
        rawByAligned.put(aligned, raw);
        return aligned;
    }

    @Override
    public void free(final long address)
    {
        final Long raw = address == 0 ? null : rawByAligned.remove(address);
        if (raw != null)
        {
            UnsafeApi.freeMemory(raw);
        }
    }

    @Override
    public void copy(final long src, final long dst, final long length)
    {
        if (src != dst && length > 0)
        {
            UnsafeApi.copyMemory(src, dst, length);
        }
    }
}
