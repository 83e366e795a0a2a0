package io.jccl.transport;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Writes cache lines back to memory ({@code CLWB}, else {@code CLFLUSHOPT} or {@code CLFLUSH} on x86), through the
 * JDK's own {@code jdk.internal.misc.Unsafe.writebackMemory}, which {@code MappedByteBuffer.force} uses for
 * persistent memory. It needs {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}, which Agrona needs
 * anyway; without it, or on a CPU the JDK does not flush lines on, {@link #available()} is false and nothing is written
 * back. Writing a line back never changes its contents: only where the next reader finds it.
 */
final class CacheLines
{
    private static final MethodHandle WRITEBACK = writebackHandle();

    private CacheLines()
    {
    }

    /** @return true when {@link #writeback} does something. */
    static boolean available()
    {
        return WRITEBACK != null;
    }

    /**
     * Writes back the lines of a range (nothing when not {@link #available()}).
     *
     * @param address the first byte.
     * @param length  bytes.
     */
    static void writeback(final long address, final long length)
    {
        if (WRITEBACK == null)
        {
            return;
        }
        try
        {
            WRITEBACK.invokeExact(address, length);
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException("writebackMemory threw " + ex, ex);
        }
    }

    private static MethodHandle writebackHandle()
    {
        try
        {
            final Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
            final Object unsafe = unsafeClass.getMethod("getUnsafe").invoke(null);
            if (!(boolean)unsafeClass.getMethod("isWritebackEnabled").invoke(unsafe))
            {
                return null;
            }
            return MethodHandles.lookup().findVirtual(unsafeClass, "writebackMemory",
                MethodType.methodType(void.class, long.class, long.class)).bindTo(unsafe);
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            // not exported to this module, or another JDK: lines stay where they are
            return null;
        }
    }
}
