package io.jccl.djl;

/**
 * float32 to and from the 16-bit floats gradients may travel in (IEEE binary16 and bfloat16), rounding to nearest
 * even as jccl's arithmetic does (DESIGN.md, arithmetic contract); NaN stays NaN, overflow becomes infinity.
 * JDK 17 has no {@code Float.floatToFloat16}.
 */
final class NarrowFloats
{
    private NarrowFloats()
    {
    }

    /**
     * @param value a float.
     * @return its bfloat16 bits.
     */
    static short toBfloat16(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7fffffff) > 0x7f800000)
        {
            return (short)((bits >>> 16) | 0x0040);
        }
        return (short)((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }

    /**
     * @param bits bfloat16 bits.
     * @return the float (exact).
     */
    static float fromBfloat16(final short bits)
    {
        return Float.intBitsToFloat((bits & 0xffff) << 16);
    }

    /**
     * @param value a float.
     * @return its binary16 bits.
     */
    static short toFloat16(final float value)
    {
        final int bits = Float.floatToRawIntBits(value);
        final int sign = (bits >>> 16) & 0x8000;
        final int abs = bits & 0x7fffffff;
        if (abs > 0x7f800000)
        {
            return (short)(sign | 0x7e00 | ((abs >>> 13) & 0x3ff));
        }
        if (abs >= 0x477ff000)
        {
            // 65520 and above (infinity included) round to infinity
            return (short)(sign | 0x7c00);
        }
        if (abs < 0x38800000)
        {
            // below 2^-14: a subnormal half, m x 2^-24
            final int exponent = abs >>> 23;
            if (exponent < 102)
            {
                return (short)sign;
            }
            final int mantissa = (abs & 0x7fffff) | 0x800000;
            final int shift = 126 - exponent;
            int m = mantissa >>> shift;
            final int rest = mantissa & ((1 << shift) - 1);
            final int half = 1 << (shift - 1);
            if (rest > half || (rest == half && (m & 1) != 0))
            {
                m++;
            }
            return (short)(sign | m);
        }
        // rebias the exponent (127 - 15 = 112), then round the 13 dropped mantissa bits to nearest even
        final int rebiased = abs - (112 << 23);
        return (short)(sign | ((rebiased + 0xfff + ((rebiased >>> 13) & 1)) >>> 13));
    }

    /**
     * @param bits binary16 bits.
     * @return the float (exact).
     */
    static float fromFloat16(final short bits)
    {
        final int h = bits & 0xffff;
        final int sign = (h & 0x8000) << 16;
        final int exponent = (h >>> 10) & 0x1f;
        final int mantissa = h & 0x3ff;
        if (exponent == 0x1f)
        {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
        }
        if (exponent == 0)
        {
            final float magnitude = mantissa * 0x1p-24f;
            return sign == 0 ? magnitude : -magnitude;
        }
        return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
    }
}
