package io.jccl;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Host memory: a range of a direct {@link ByteBuffer}, either the caller's ({@link #wrap(ByteBuffer)}) or memory
 * jccl allocated for the caller ({@link #allocate(long)}, 64-byte aligned, private to this process; or jccl-core's
 * {@code Jccl.allocate}, shared memory that the ranks of other processes on this host read in place). Heap buffers
 * are refused: jccl reads and writes the memory by address from other threads, and possibly other processes.
 */
public final class HostBuffer extends Buffer
{
    /** Alignment of buffers from {@link #allocate(long)}: a cache line. */
    public static final int ALIGNMENT = 64;

    private final ByteBuffer byteBuffer;
    private final long offset;
    private final long length;
    private final boolean jcclOwned;

    private HostBuffer(final ByteBuffer byteBuffer, final long offset, final long length, final boolean jcclOwned)
    {
        this.byteBuffer = byteBuffer;
        this.offset = offset;
        this.length = length;
        this.jcclOwned = jcclOwned;
    }

    /**
     * Wraps the whole of a direct buffer, from index 0 to its capacity (position and limit are ignored and never
     * changed).
     *
     * @param buffer a direct ByteBuffer.
     * @return the host buffer.
     * @throws JcclInvalidArgumentException if the buffer is null or not direct.
     */
    public static HostBuffer wrap(final ByteBuffer buffer)
    {
        if (buffer == null)
        {
            throw new JcclInvalidArgumentException("buffer is null");
        }
        if (!buffer.isDirect())
        {
            throw new JcclInvalidArgumentException("buffer is a heap ByteBuffer: jccl needs a direct one");
        }
        return new HostBuffer(buffer, 0, buffer.capacity(), false);
    }

    /**
     * Allocates zeroed host memory owned by jccl, aligned to {@link #ALIGNMENT} bytes, in native byte order.
     *
     * @param length bytes, at most {@code Integer.MAX_VALUE - 2 * ALIGNMENT}.
     * @return the buffer.
     * @throws JcclInvalidArgumentException if the length is negative or too large.
     */
    public static HostBuffer allocate(final long length)
    {
        if (length < 0 || length > Integer.MAX_VALUE - 2 * ALIGNMENT)
        {
            throw new JcclInvalidArgumentException("length=" + length + " is outside 0.." +
                (Integer.MAX_VALUE - 2 * ALIGNMENT));
        }
        // alignedSlice rounds the capacity down to the alignment: leave room for that and for the shift
        final int rounded = (int)((length + ALIGNMENT - 1) & -ALIGNMENT);
        final ByteBuffer raw = ByteBuffer.allocateDirect(rounded + ALIGNMENT);
        final ByteBuffer aligned = raw.alignedSlice(ALIGNMENT).limit((int)length).slice().order(ByteOrder.nativeOrder());
        return new HostBuffer(aligned, 0, length, true);
    }

    /**
     * For jccl's allocators: the first {@code length} bytes of memory an allocator of jccl's made (a mapping of
     * shared memory, say), marked {@link #isJcclOwned()}. The allocator, not this buffer, frees the memory.
     *
     * @param memory a direct ByteBuffer of at least {@code length} bytes.
     * @param length bytes of it the buffer covers.
     * @return the host buffer.
     * @throws JcclInvalidArgumentException if memory is null, not direct, or shorter than length.
     */
    public static HostBuffer ofJcclMemory(final ByteBuffer memory, final long length)
    {
        final HostBuffer wrapped = wrap(memory);
        if (length < 0 || length > memory.capacity())
        {
            throw new JcclInvalidArgumentException("length=" + length + " is outside 0.." + memory.capacity());
        }
        return new HostBuffer(wrapped.byteBuffer, 0, length, true);
    }

    @Override
    public MemoryKind memoryKind()
    {
        return MemoryKind.HOST;
    }

    @Override
    public long length()
    {
        return length;
    }

    /** @return the backing ByteBuffer; this buffer covers {@code [offset(), offset() + length())} of it. */
    public ByteBuffer byteBuffer()
    {
        return byteBuffer;
    }

    /** @return the byte offset of this buffer in {@link #byteBuffer()}. */
    public long offset()
    {
        return offset;
    }

    /** @return true for memory jccl allocated. */
    public boolean isJcclOwned()
    {
        return jcclOwned;
    }

    @Override
    public HostBuffer slice(final long offset, final long length)
    {
        checkRange(offset, length, this.length);
        return new HostBuffer(byteBuffer, this.offset + offset, length, jcclOwned);
    }

    @Override
    public String toString()
    {
        return "HostBuffer{offset=" + offset + ", length=" + length + (jcclOwned ? ", jccl" : "") + '}';
    }
}
