package io.jccl;

import java.util.concurrent.atomic.AtomicLong;

/**
 * An ordering domain for calls, as a CUDA stream: calls made on one stream run in the order they were made. On the
 * host backend a communicator runs all its calls in submission order, which satisfies this for every stream; on
 * the CUDA backend a stream wraps a CUDA stream ({@link #nativeHandle()}).
 */
public final class Stream
{
    private static final AtomicLong IDS = new AtomicLong();

    /** The default stream. */
    public static final Stream DEFAULT = new Stream(0);

    private final long id;
    private final long nativeHandle;

    private Stream(final long nativeHandle)
    {
        this.id = IDS.getAndIncrement();
        this.nativeHandle = nativeHandle;
    }

    /** @return a new host stream. */
    public static Stream create()
    {
        return new Stream(0);
    }

    /**
     * @param cuStream a {@code CUstream} handle as a long (0 is CUDA's legacy default stream).
     * @return a stream that wraps it.
     */
    public static Stream wrapNative(final long cuStream)
    {
        return new Stream(cuStream);
    }

    /** @return a process-unique id. */
    public long id()
    {
        return id;
    }

    /** @return the wrapped CUDA stream handle, 0 for none. */
    public long nativeHandle()
    {
        return nativeHandle;
    }

    @Override
    public String toString()
    {
        return "Stream{" + id + (nativeHandle != 0 ? ", cu=0x" + Long.toHexString(nativeHandle) : "") + '}';
    }
}
