package io.jccl.core;

import io.jccl.DataType;

/**
 * The test suite's own conversions between float and the narrow floating types (FLOAT16, BFLOAT16, FP8 E4M3 and
 * E5M2), written independently of jccl-kernels so the reference model checks the runtime rather than sharing its
 * code. Rounding is to nearest, ties to even, done once from the exact value of the float; FP8 saturates to the
 * largest finite value (CUDA's {@code __NV_SATFINITE}, infinities included); FLOAT16 and BFLOAT16 overflow to
 * infinity. A NaN becomes the type's canonical quiet NaN with the sign kept.
 * <p>
 * The method is arithmetic, not bit tricks: scale the value by the quantum (the weight of the last mantissa bit at
 * its exponent, clamped to the subnormal exponent), round with {@link Math#rint(double)}, scale back. Every step is
 * exact in double except the one rounding.
 */
final class ReferenceFloats
{
    /** IEEE binary16. */
    static final Format HALF = new Format(5, 10, true, false, 0x7e00);
    /** bfloat16: float's exponent, 7 mantissa bits. */
    static final Format BF16 = new Format(8, 7, true, false, 0x7fc0);
    /** FP8 E4M3 (the "fn" variant): no infinities, S.1111.111 is NaN, largest finite 448. */
    static final Format E4M3 = new Format(4, 3, false, true, 0x7f);
    /** FP8 E5M2: IEEE-like with infinities, largest finite 57344; conversions saturate. */
    static final Format E5M2 = new Format(5, 2, true, true, 0x7f);

    private ReferenceFloats()
    {
    }

    /**
     * @param type a narrow floating type.
     * @return its format.
     */
    static Format format(final DataType type)
    {
        switch (type)
        {
            case FLOAT16:
                return HALF;
            case BFLOAT16:
                return BF16;
            case FLOAT8_E4M3:
                return E4M3;
            case FLOAT8_E5M2:
                return E5M2;
            default:
                throw new IllegalArgumentException(type + " is not a narrow floating type");
        }
    }

    /**
     * @param type a narrow floating type.
     * @return true for FLOAT16, BFLOAT16 and the FP8 types.
     */
    static boolean isNarrow(final DataType type)
    {
        return type == DataType.FLOAT16 || type == DataType.BFLOAT16 ||
            type == DataType.FLOAT8_E4M3 || type == DataType.FLOAT8_E5M2;
    }

    /** A binary floating-point format of at most 16 bits. */
    static final class Format
    {
        final int expBits;
        final int manBits;
        final int bias;
        final int minExponent;
        final boolean hasInfinity;
        final boolean saturating;
        final int nanBits;
        final int signBit;
        final int maxFiniteBits;
        final int infinityBits;
        final double maxFinite;

        Format(final int expBits, final int manBits, final boolean hasInfinity, final boolean saturating,
            final int nanBits)
        {
            this.expBits = expBits;
            this.manBits = manBits;
            this.bias = (1 << (expBits - 1)) - 1;
            this.minExponent = 1 - bias;
            this.hasInfinity = hasInfinity;
            this.saturating = saturating;
            this.nanBits = nanBits;
            this.signBit = 1 << (expBits + manBits);
            final int allOnesExp = (1 << expBits) - 1;
            if (hasInfinity)
            {
                // largest exponent field is inf/NaN: the largest finite has the one below and a full mantissa
                this.maxFiniteBits = ((allOnesExp - 1) << manBits) | ((1 << manBits) - 1);
                this.infinityBits = allOnesExp << manBits;
            }
            else
            {
                // E4M3fn: only S.1111.111 is NaN, so the largest finite is S.1111.110
                this.maxFiniteBits = (allOnesExp << manBits) | ((1 << manBits) - 2);
                this.infinityBits = -1;
            }
            this.maxFinite = decodeMagnitude(maxFiniteBits);
        }

        /**
         * @param bits the encoding in the low bits.
         * @return its exact value.
         */
        double toDouble(final int bits)
        {
            final int b = bits & (signBit | (signBit - 1));
            final double magnitude = decodeMagnitude(b & (signBit - 1));
            return (b & signBit) != 0 ? -magnitude : magnitude;
        }

        private double decodeMagnitude(final int bits)
        {
            final int allOnesExp = (1 << expBits) - 1;
            final int exponentField = bits >>> manBits;
            final int mantissa = bits & ((1 << manBits) - 1);
            if (hasInfinity && exponentField == allOnesExp)
            {
                return mantissa == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
            }
            if (!hasInfinity && exponentField == allOnesExp && mantissa == (1 << manBits) - 1)
            {
                return Double.NaN;
            }
            if (exponentField == 0)
            {
                return Math.scalb((double)mantissa, minExponent - manBits);
            }
            return Math.scalb((double)((1 << manBits) | mantissa), exponentField - bias - manBits);
        }

        /**
         * @param value any double (the narrow types round from float, which converts to double exactly).
         * @return the encoding of value rounded to nearest even, saturated or overflowed per the format.
         */
        int fromDouble(final double value)
        {
            final int sign = (Double.doubleToRawLongBits(value) < 0) ? signBit : 0;
            if (Double.isNaN(value))
            {
                return sign | nanBits;
            }
            final double a = Math.abs(value);
            if (Double.isInfinite(a))
            {
                return sign | (saturating ? maxFiniteBits : infinityBits);
            }
            if (a == 0.0)
            {
                return sign;
            }
            final int exponent = Math.max(Math.getExponent(a), minExponent);
            final double quantum = Math.scalb(1.0, exponent - manBits);
            final double rounded = Math.rint(a / quantum) * quantum;
            if (rounded > maxFinite)
            {
                return sign | (saturating ? maxFiniteBits : infinityBits);
            }
            return sign | encodeMagnitude(rounded);
        }

        private int encodeMagnitude(final double representable)
        {
            if (representable == 0.0)
            {
                return 0;
            }
            final int exponent = Math.getExponent(representable);
            if (exponent < minExponent)
            {
                return (int)Math.scalb(representable, manBits - minExponent);
            }
            final int mantissa = (int)Math.scalb(representable, manBits - exponent) - (1 << manBits);
            return ((exponent + bias) << manBits) | mantissa;
        }

        /**
         * @param bits an encoding.
         * @return true when it is a NaN.
         */
        boolean isNaN(final int bits)
        {
            return Double.isNaN(toDouble(bits));
        }
    }

    /**
     * @param type  a narrow floating type.
     * @param bits  its encoding, zero-extended.
     * @return the value as a float (exact).
     */
    static float toFloat(final DataType type, final long bits)
    {
        return (float)format(type).toDouble((int)bits);
    }

    /**
     * @param type  a narrow floating type.
     * @param value a float.
     * @return the encoding of the value rounded to the type, zero-extended.
     */
    static long fromFloat(final DataType type, final float value)
    {
        return format(type).fromDouble(value);
    }
}
