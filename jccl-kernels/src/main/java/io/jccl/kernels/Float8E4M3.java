package io.jccl.kernels;

/**
 * FP8 E4M3 ({@link io.jccl.DataType#FLOAT8_E4M3}, the OCP "E4M3FN" variant) held in a {@code byte}: 4 exponent and
 * 3 mantissa bits, bias 7, no infinities, {@code S.1111.111} is NaN, largest finite 448. Conversions from float
 * behave as CUDA's {@code __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)}: round to nearest, ties to even, and
 * a value that rounds beyond 448 in magnitude, infinities included, saturates to ±448. Stateless and thread-safe.
 */
public final class Float8E4M3
{
    /** Bits of the largest finite value, 448. */
    public static final byte MAX_VALUE = 0x7E;
    /** Bits of the NaN (its negative twin is {@code (byte)0xFF}). */
    public static final byte NaN = 0x7F;

    private static final float[] TO_FLOAT = new float[256];

    static
    {
        for (int bits = 0; bits < 256; bits++)
        {
            final int sign = (bits & 0x80) << 24;
            final int exponent = (bits >>> 3) & 0xF;
            final int mantissa = bits & 0x7;
            final int magnitude;
            if ((bits & 0x7F) == NaN)
            {
                magnitude = 0x7FC0_0000;
            }
            else if (exponent == 0)
            {
                magnitude = Float.floatToRawIntBits(mantissa * 0x1p-9f);
            }
            else
            {
                magnitude = (exponent + 120) << 23 | mantissa << 20;
            }
            TO_FLOAT[bits] = Float.intBitsToFloat(sign | magnitude);
        }
    }

    private Float8E4M3()
    {
    }

    /**
     * Widens exactly.
     *
     * @param bits an E4M3 value.
     * @return the same value as a float (a quiet NaN for the two NaN encodings).
     */
    public static float toFloat(final byte bits)
    {
        return TO_FLOAT[bits & 0xFF];
    }

    /**
     * Rounds to nearest, ties to even, saturating: anything that rounds above 448 in magnitude (464 and up, and the
     * infinities) gives ±448. A NaN gives {@link #NaN} with the sign kept.
     *
     * @param value any float.
     * @return the E4M3 bits.
     */
    public static byte fromFloat(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        final int sign = (bits >>> 24) & 0x80;
        final int magnitude = bits & 0x7FFF_FFFF;
        if (magnitude > 0x7F80_0000)
        {
            return (byte)(sign | NaN);
        }
        return (byte)(sign | Math.min(FloatRounding.roundMagnitude(magnitude, 3, 7), MAX_VALUE));
    }
}
