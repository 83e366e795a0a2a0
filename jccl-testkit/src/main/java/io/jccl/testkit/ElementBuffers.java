package io.jccl.testkit;

import io.jccl.DataType;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Elements of a {@link ByteBuffer} in native byte order as raw bits (zero-extended into a {@code long}), addressed
 * by element index from the buffer's start. Stateless and thread-safe.
 */
public final class ElementBuffers
{
    private ElementBuffers()
    {
    }

    /**
     * @param count elements.
     * @param type  element type.
     * @return a zeroed heap buffer in native order.
     */
    public static ByteBuffer allocate(final long count, final DataType type)
    {
        return ByteBuffer.allocate(Math.toIntExact(count * type.byteSize())).order(ByteOrder.nativeOrder());
    }

    /**
     * @param buffer native-order buffer.
     * @param index  element index.
     * @param type   element type.
     * @return the raw bits, zero-extended.
     */
    public static long get(final ByteBuffer buffer, final int index, final DataType type)
    {
        switch (type.byteSize())
        {
            case 1:
                return buffer.get(index) & 0xffL;
            case 2:
                return buffer.getShort(index * 2) & 0xffffL;
            case 4:
                return buffer.getInt(index * 4) & 0xffff_ffffL;
            default:
                return buffer.getLong(index * 8);
        }
    }

    /**
     * @param buffer native-order buffer.
     * @param index  element index.
     * @param type   element type.
     * @param bits   raw bits.
     */
    public static void put(final ByteBuffer buffer, final int index, final DataType type, final long bits)
    {
        switch (type.byteSize())
        {
            case 1:
                buffer.put(index, (byte)bits);
                break;
            case 2:
                buffer.putShort(index * 2, (short)bits);
                break;
            case 4:
                buffer.putInt(index * 4, (int)bits);
                break;
            default:
                buffer.putLong(index * 8, bits);
                break;
        }
    }
}
