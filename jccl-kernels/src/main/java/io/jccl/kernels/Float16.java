package io.jccl.kernels;

/**
 * IEEE 754 binary16 ({@link io.jccl.DataType#FLOAT16}) held in a {@code short}: 1 sign, 5 exponent and 10 mantissa
 * bits, bias 15, largest finite 65504. Conversions from float round to nearest, ties to even, keep subnormals and
 * the sign of zero, and overflow to infinity as IEEE 754 prescribes. Stateless and thread-safe.
 */
public final class Float16
{
    /** Bits of positive infinity. */
    public static final short POSITIVE_INFINITY = 0x7C00;
    /** Bits of the canonical quiet NaN that {@link #fromFloat(float)} returns (with the sign of its argument). */
    public static final short NaN = 0x7E00;
    /** Bits of the largest finite value, 65504. */
    public static final short MAX_VALUE = 0x7BFF;

    private Float16()
    {
    }

    /**
     * Widens exactly. A NaN keeps its sign and payload, with the quiet bit set.
     *
     * @param bits a binary16 value.
     * @return the same value as a float.
     */
    public static float toFloat(final short bits)
    {
        final int signAndMagnitude = (bits & 0x8000) << 16 | (bits & 0x7FFF) << 13;
        if ((bits & 0x7C00) == 0x7C00)
        {
            // infinity, or NaN made quiet
            return Float.intBitsToFloat(signAndMagnitude | 0x7F80_0000 | ((bits & 0x3FF) == 0 ? 0 : 0x40_0000));
        }
        // the bits placed in a float read as the value x 2^-112 (subnormals included: they become float
        // subnormals); scaling by 2^112 is exact and avoids a branch for them
        return Float.intBitsToFloat(signAndMagnitude) * 0x1p112f;
    }

    /**
     * Rounds to nearest, ties to even. Values at or beyond 65520 in magnitude become infinities; a NaN becomes
     * {@link #NaN} with the sign kept.
     *
     * @param value any float.
     * @return the binary16 bits.
     */
    public static short fromFloat(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        final int sign = (bits >>> 16) & 0x8000;
        final int magnitude = bits & 0x7FFF_FFFF;
        if (magnitude > 0x7F80_0000)
        {
            return (short)(sign | NaN);
        }
        return (short)(sign | Math.min(FloatRounding.roundMagnitude(magnitude, 10, 15), POSITIVE_INFINITY));
    }
}
