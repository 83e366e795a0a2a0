package io.jccl.bench;

/**
 * A binary floating-point format narrower than float: IEEE binary16 ({@code half}), bfloat16 and the two FP8
 * formats. Decoding is exact; encoding rounds to nearest, ties to even. Overflow gives infinity for the IEEE-like
 * 16-bit formats and saturates to the largest finite value for FP8 (CUDA's {@code __NV_SATFINITE}, which jccl
 * uses). The bench only encodes values it chose to be representable, so these rules matter for tests only.
 */
final class MiniFloat
{
    /** IEEE 754 binary16: 5 exponent bits, 10 mantissa bits. */
    static final MiniFloat HALF = new MiniFloat(5, 10, true, false);
    /** bfloat16: 8 exponent bits, 7 mantissa bits. */
    static final MiniFloat BFLOAT16 = new MiniFloat(8, 7, true, false);
    /** FP8 E4M3 (OCP): no infinities, S.1111.111 is NaN, largest finite 448. */
    static final MiniFloat E4M3 = new MiniFloat(4, 3, false, true);
    /** FP8 E5M2: IEEE-like specials, largest finite 57344. */
    static final MiniFloat E5M2 = new MiniFloat(5, 2, true, true);

    private final int exponentBits;
    private final int mantissaBits;
    private final int bias;
    private final boolean ieeeSpecials;
    private final boolean saturate;
    private final int exponentMask;
    private final long mantissaMask;
    private final double maxFinite;

    private MiniFloat(final int exponentBits, final int mantissaBits, final boolean ieeeSpecials,
        final boolean saturate)
    {
        this.exponentBits = exponentBits;
        this.mantissaBits = mantissaBits;
        this.bias = (1 << (exponentBits - 1)) - 1;
        this.ieeeSpecials = ieeeSpecials;
        this.saturate = saturate;
        this.exponentMask = (1 << exponentBits) - 1;
        this.mantissaMask = (1L << mantissaBits) - 1;
        final int maxExponent = (ieeeSpecials ? exponentMask - 1 : exponentMask) - bias;
        final long maxMantissa = ieeeSpecials ? mantissaMask : mantissaMask - 1;
        this.maxFinite = Math.scalb(1.0 + (double)maxMantissa / (1L << mantissaBits), maxExponent);
    }

    /** @return mantissa bits (without the implicit one). */
    int mantissaBits()
    {
        return mantissaBits;
    }

    /** @return the largest finite value. */
    double maxFinite()
    {
        return maxFinite;
    }

    /** @return the smallest positive (subnormal) value. */
    double minSubnormal()
    {
        return Math.scalb(1.0, 1 - bias - mantissaBits);
    }

    /** @return total bits. */
    int bits()
    {
        return 1 + exponentBits + mantissaBits;
    }

    /**
     * @param raw the bits, in the low {@link #bits()} bits.
     * @return true for NaN and infinities.
     */
    boolean isSpecial(final long raw)
    {
        final int exponent = (int)(raw >>> mantissaBits) & exponentMask;
        if (ieeeSpecials)
        {
            return exponent == exponentMask;
        }
        return exponent == exponentMask && (raw & mantissaMask) == mantissaMask;
    }

    /**
     * @param raw the bits, in the low {@link #bits()} bits.
     * @return the value.
     */
    double decode(final long raw)
    {
        final boolean negative = ((raw >>> (exponentBits + mantissaBits)) & 1) != 0;
        final int exponent = (int)(raw >>> mantissaBits) & exponentMask;
        final long mantissa = raw & mantissaMask;
        final double magnitude;
        if (isSpecial(raw))
        {
            magnitude = ieeeSpecials && mantissa == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        }
        else if (exponent == 0)
        {
            magnitude = Math.scalb((double)mantissa, 1 - bias - mantissaBits);
        }
        else
        {
            magnitude = Math.scalb((double)(mantissa | (1L << mantissaBits)), exponent - bias - mantissaBits);
        }
        return negative ? -magnitude : magnitude;
    }

    /**
     * @param value a value.
     * @return its bits, rounded to nearest even.
     */
    long encode(final double value)
    {
        final long sign = (Double.doubleToRawLongBits(value) < 0 ? 1L : 0L) << (exponentBits + mantissaBits);
        if (Double.isNaN(value))
        {
            return ((long)exponentMask << mantissaBits) | mantissaMask;
        }
        final double magnitude = Math.abs(value);
        if (magnitude == 0)
        {
            return sign;
        }
        final int minNormalExponent = 1 - bias;
        final int quantumExponent = Math.max(Math.getExponent(magnitude), minNormalExponent) - mantissaBits;
        final double rounded = Math.scalb(Math.rint(Math.scalb(magnitude, -quantumExponent)), quantumExponent);
        if (rounded > maxFinite)
        {
            return sign | (saturate || !ieeeSpecials ? encodeFinite(maxFinite) : (long)exponentMask << mantissaBits);
        }
        return sign | encodeFinite(rounded);
    }

    private long encodeFinite(final double magnitude)
    {
        if (magnitude == 0)
        {
            return 0;
        }
        final int exponent = Math.getExponent(magnitude);
        if (exponent < 1 - bias)
        {
            return (long)Math.scalb(magnitude, bias - 1 + mantissaBits);
        }
        final long mantissa = (long)Math.scalb(magnitude, mantissaBits - exponent) & mantissaMask;
        return ((long)(exponent + bias) << mantissaBits) | mantissa;
    }
}
