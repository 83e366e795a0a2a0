package io.jccl.kernels;

/**
 * bfloat16 ({@link io.jccl.DataType#BFLOAT16}) held in a {@code short}: the upper half of a float, 8 exponent and
 * 7 mantissa bits. Conversions from float round to nearest, ties to even, keep subnormals and the sign of zero, and
 * overflow to infinity. Stateless and thread-safe.
 */
public final class BFloat16
{
    /** Bits of positive infinity. */
    public static final short POSITIVE_INFINITY = 0x7F80;
    /** Bits of the canonical quiet NaN that {@link #fromFloat(float)} returns (with the sign of its argument). */
    public static final short NaN = 0x7FC0;
    /** Bits of the largest finite value, about 3.39e38. */
    public static final short MAX_VALUE = 0x7F7F;

    private BFloat16()
    {
    }

    /**
     * Widens exactly (a shift, as CUDA's {@code __bfloat162float}); a NaN keeps its sign and payload.
     *
     * @param bits a bfloat16 value.
     * @return the same value as a float.
     */
    public static float toFloat(final short bits)
    {
        return Float.intBitsToFloat(bits << 16);
    }

    /**
     * Rounds to nearest, ties to even; a value that rounds beyond the largest finite becomes an infinity, a NaN
     * becomes {@link #NaN} with the sign kept.
     *
     * @param value any float.
     * @return the bfloat16 bits.
     */
    public static short fromFloat(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7FFF_FFFF) > 0x7F80_0000)
        {
            return (short)((bits >>> 16) & 0x8000 | NaN);
        }
        // add just under half an ulp, plus the kept lsb to break ties to even; a carry may reach infinity, never
        // the sign bit
        return (short)((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }
}
