package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.testkit.NarrowFloat;
import io.jccl.testkit.ReferenceArithmetic;

import java.nio.ByteBuffer;

/**
 * Reads and writes elements of one {@link DataType} in native byte order, and converts between their bits and
 * numbers. "Raw" bits are the element's bits zero-extended to a long; integer arithmetic works on the
 * {@link #toLong(long) value} (sign-extended for signed types) and {@link #wrap(long) wraps} back; floating types
 * convert through double, exactly for every format here, and round back once to nearest, ties to even, with
 * jccl-testkit's reference formats ({@link NarrowFloat}), never with the runtime's converters.
 */
public final class ElementCodec
{
    private final DataType type;
    private final int byteSize;
    private final long mask;
    private final NarrowFloat narrow;

    private ElementCodec(final DataType type)
    {
        this.type = type;
        this.byteSize = type.byteSize();
        this.mask = ReferenceArithmetic.mask(type);
        this.narrow = NarrowFloat.isNarrow(type) ? NarrowFloat.of(type) : null;
    }

    /**
     * @param type an element type.
     * @return its codec.
     */
    public static ElementCodec of(final DataType type)
    {
        return new ElementCodec(type);
    }

    /** @return the element type. */
    public DataType type()
    {
        return type;
    }

    /** @return bytes per element. */
    public int byteSize()
    {
        return byteSize;
    }

    /**
     * @param buffer    a buffer in native byte order.
     * @param byteIndex absolute index of the element's first byte.
     * @return the element's raw bits.
     */
    public long read(final ByteBuffer buffer, final int byteIndex)
    {
        return switch (byteSize)
        {
            case 1 -> buffer.get(byteIndex) & 0xFFL;
            case 2 -> buffer.getShort(byteIndex) & 0xFFFFL;
            case 4 -> buffer.getInt(byteIndex) & 0xFFFF_FFFFL;
            default -> buffer.getLong(byteIndex);
        };
    }

    /**
     * @param buffer    a buffer in native byte order.
     * @param byteIndex absolute index of the element's first byte.
     * @param raw       the element's raw bits.
     */
    public void write(final ByteBuffer buffer, final int byteIndex, final long raw)
    {
        switch (byteSize)
        {
            case 1 -> buffer.put(byteIndex, (byte)raw);
            case 2 -> buffer.putShort(byteIndex, (short)raw);
            case 4 -> buffer.putInt(byteIndex, (int)raw);
            default -> buffer.putLong(byteIndex, raw);
        }
    }

    /**
     * @param value any long.
     * @return its low bits as raw element bits (two's complement wrap-around, as C's integer types).
     */
    public long wrap(final long value)
    {
        return value & mask;
    }

    /**
     * @param raw raw bits of an integer element.
     * @return its value: sign-extended for signed types, zero-extended (64-bit unsigned as the same bits) otherwise.
     */
    public long toLong(final long raw)
    {
        if (type.isSigned() && byteSize < 8)
        {
            final int shift = 64 - 8 * byteSize;
            return (raw << shift) >> shift;
        }
        return raw;
    }

    /**
     * @param raw raw bits of a floating element.
     * @return its value.
     */
    public double toDouble(final long raw)
    {
        return ReferenceArithmetic.toDouble(type, raw);
    }

    /**
     * @param value a value.
     * @return the raw bits of the nearest element (ties to even); FP8 saturates, the 16-bit types overflow to
     *         infinity.
     */
    public long fromDouble(final double value)
    {
        return ReferenceArithmetic.fromDouble(type, value);
    }

    /**
     * @param raw raw bits of a floating element.
     * @return true for NaN and infinities.
     */
    public boolean isSpecial(final long raw)
    {
        return switch (type)
        {
            case FLOAT32 -> !Float.isFinite(Float.intBitsToFloat((int)raw));
            case FLOAT64 -> !Double.isFinite(Double.longBitsToDouble(raw));
            default -> narrow.isSpecial((int)raw);
        };
    }

    /** @return the bit that, cleared, turns any NaN or infinity into a finite value (the top exponent bit). */
    public long topExponentBit()
    {
        return 1L << (8 * byteSize - 2);
    }

    /** @return mantissa bits of a floating type (without the implicit one). */
    public int mantissaBits()
    {
        return switch (type)
        {
            case FLOAT32 -> 23;
            case FLOAT64 -> 52;
            default -> narrow.mantissaBits();
        };
    }

    /** @return the unit roundoff of a floating type, 2^-(mantissa bits + 1). */
    public double unitRoundoff()
    {
        return Math.scalb(1.0, -(mantissaBits() + 1));
    }

    /** @return the smallest positive value of a floating type. */
    public double minSubnormal()
    {
        return switch (type)
        {
            case FLOAT32 -> Float.MIN_VALUE;
            case FLOAT64 -> Double.MIN_VALUE;
            default -> narrow.minSubnormal();
        };
    }

    /**
     * @return the largest integer N such that every integer of magnitude up to N is exact in a floating type,
     *         2^(mantissa bits + 1): 2048 for half, 256 for bfloat16, 16 for E4M3, 8 for E5M2.
     */
    public long exactIntegerBound()
    {
        return 1L << (mantissaBits() + 1);
    }
}
