package io.jccl.kernels;

/**
 * FP8 E5M2 ({@link io.jccl.DataType#FLOAT8_E5M2}) held in a {@code byte}: the upper byte of a binary16, 5 exponent
 * and 2 mantissa bits, bias 15, with infinities and NaNs, largest finite 57344. Conversions from float behave as
 * CUDA's {@code __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2)}: round to nearest, ties to even, and a value
 * that rounds beyond 57344 in magnitude, infinities included, saturates to ±57344; so an infinity read from memory
 * does not survive being stored back. Stateless and thread-safe.
 */
public final class Float8E5M2
{
    /** Bits of the largest finite value, 57344. */
    public static final byte MAX_VALUE = 0x7B;
    /** Bits of positive infinity (readable, never produced by {@link #fromFloat(float)}). */
    public static final byte POSITIVE_INFINITY = 0x7C;
    /** Bits of the canonical quiet NaN that {@link #fromFloat(float)} returns (with the sign of its argument). */
    public static final byte NaN = 0x7F;

    private static final float[] TO_FLOAT = new float[256];

    static
    {
        for (int bits = 0; bits < 256; bits++)
        {
            TO_FLOAT[bits] = Float16.toFloat((short)(bits << 8));
        }
    }

    private Float8E5M2()
    {
    }

    /**
     * Widens exactly.
     *
     * @param bits an E5M2 value.
     * @return the same value as a float.
     */
    public static float toFloat(final byte bits)
    {
        return TO_FLOAT[bits & 0xFF];
    }

    /**
     * Rounds to nearest, ties to even, saturating: anything that rounds above 57344 in magnitude (61440 and up, and
     * the infinities) gives ±57344. A NaN gives {@link #NaN} with the sign kept.
     *
     * @param value any float.
     * @return the E5M2 bits.
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
        return (byte)(sign | Math.min(FloatRounding.roundMagnitude(magnitude, 2, 15), MAX_VALUE));
    }
}
