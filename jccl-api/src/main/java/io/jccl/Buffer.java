package io.jccl;

/**
 * Memory a collective reads or writes: host memory ({@link HostBuffer}) or device memory ({@link DeviceBuffer}).
 * A buffer knows its memory kind and its length in bytes; {@link #view(DataType, long)} gives a buffer that starts
 * a number of elements in, over the same memory (NCCL's pointer arithmetic on {@code sendbuff}).
 */
public abstract sealed class Buffer permits HostBuffer, DeviceBuffer
{
    /** @return where the bytes live. */
    public abstract MemoryKind memoryKind();

    /** @return the length in bytes. */
    public abstract long length();

    /**
     * @param offset byte offset into this buffer.
     * @param length bytes from there.
     * @return a buffer over {@code [offset, offset + length)} of the same memory.
     * @throws JcclInvalidArgumentException if the range is outside this buffer.
     */
    public abstract Buffer slice(long offset, long length);

    /**
     * @param type          the element type.
     * @param elementOffset elements to skip.
     * @return a buffer from that element to the end of this one.
     */
    public final Buffer view(final DataType type, final long elementOffset)
    {
        final long offset = checkedBytes(elementOffset, type, "elementOffset");
        return slice(offset, length() - offset);
    }

    /**
     * @param type          the element type.
     * @param elementOffset elements to skip.
     * @param count         elements in the view.
     * @return a buffer of {@code count} elements from that element.
     */
    public final Buffer view(final DataType type, final long elementOffset, final long count)
    {
        return slice(checkedBytes(elementOffset, type, "elementOffset"), checkedBytes(count, type, "count"));
    }

    /** @return the count in bytes, checked for sign and overflow, naming the argument. */
    static long checkedBytes(final long count, final DataType type, final String name)
    {
        if (type == null)
        {
            throw new JcclInvalidArgumentException("type is null");
        }
        if (count < 0)
        {
            throw new JcclInvalidArgumentException(name + "=" + count + " is negative");
        }
        try
        {
            return Math.multiplyExact(count, (long)type.byteSize());
        }
        catch (final ArithmeticException ex)
        {
            throw new JcclInvalidArgumentException(name + "=" + count + " x " + type.byteSize() +
                " bytes overflows a long");
        }
    }

    /** Checks a sub-range, naming it. */
    static void checkRange(final long offset, final long length, final long capacity)
    {
        if (offset < 0 || length < 0 || offset > capacity - length)
        {
            throw new JcclInvalidArgumentException("slice [" + offset + ", +" + length + ") is outside a buffer of " +
                capacity + " bytes");
        }
    }
}
