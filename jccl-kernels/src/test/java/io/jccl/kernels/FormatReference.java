package io.jccl.kernels;

import java.math.BigDecimal;

/**
 * A slow, independent model of a narrow binary floating format for the tests: it lists the exact value of every
 * non-negative finite encoding (as BigDecimal) and rounds by searching that list for the nearest value, ties going to
 * the even encoding. One virtual encoding past the largest finite stands for "overflowed": rounding to it gives
 * infinity, or the largest finite in a saturating format. Encodings are ints in the low 8 or 16 bits.
 */
final class FormatReference
{
    static final FormatReference FLOAT16 = new FormatReference("float16", 5, 10, true, false);
    static final FormatReference BFLOAT16 = new FormatReference("bfloat16", 8, 7, true, false);
    static final FormatReference E4M3 = new FormatReference("e4m3", 4, 3, false, true);
    static final FormatReference E5M2 = new FormatReference("e5m2", 5, 2, true, true);

    final String name;
    final int exponentBits;
    final int mantissaBits;
    final int bias;
    final boolean hasInfinity;
    final boolean saturating;
    final int width;
    final int signBit;
    final int maxFinite;
    private final BigDecimal[] magnitudes;
    private final double maxFiniteValue;
    private final double minNormalValue;

    private FormatReference(
        final String name, final int exponentBits, final int mantissaBits, final boolean hasInfinity,
        final boolean saturating)
    {
        this.name = name;
        this.exponentBits = exponentBits;
        this.mantissaBits = mantissaBits;
        this.bias = (1 << (exponentBits - 1)) - 1;
        this.hasInfinity = hasInfinity;
        this.saturating = saturating;
        this.width = 1 + exponentBits + mantissaBits;
        this.signBit = 1 << (width - 1);
        // with infinities the top exponent is reserved; without (E4M3FN) only all-ones is NaN
        this.maxFinite = hasInfinity ? ((1 << exponentBits) - 1 << mantissaBits) - 1 : signBit - 2;
        this.magnitudes = new BigDecimal[maxFinite + 2];
        for (int code = 0; code <= maxFinite + 1; code++)
        {
            magnitudes[code] = exactMagnitude(code);
        }
        this.maxFiniteValue = magnitudes[maxFinite].doubleValue();
        this.minNormalValue = magnitudes[1 << mantissaBits].doubleValue();
    }

    private BigDecimal exactMagnitude(final int code)
    {
        final int exponent = code >>> mantissaBits;
        final int fraction = code & ((1 << mantissaBits) - 1);
        final int significand = exponent == 0 ? fraction : (1 << mantissaBits) + fraction;
        final int power = (exponent == 0 ? 1 : exponent) - bias - mantissaBits;
        final BigDecimal two = BigDecimal.valueOf(2);
        return power >= 0 ?
            BigDecimal.valueOf(significand).multiply(two.pow(power)) :
            BigDecimal.valueOf(significand).divide(two.pow(-power));
    }

    /** @return the number of encodings, 256 or 65536. */
    int codeCount()
    {
        return 1 << width;
    }

    boolean isNaN(final int code)
    {
        final int magnitude = code & (signBit - 1);
        return hasInfinity ? magnitude > infinity() : magnitude == signBit - 1;
    }

    boolean isInfinite(final int code)
    {
        return hasInfinity && (code & (signBit - 1)) == infinity();
    }

    int infinity()
    {
        return maxFinite + 1;
    }

    /**
     * @param code an encoding.
     * @return its value (exact: every value of these formats is a double).
     */
    double value(final int code)
    {
        final boolean negative = (code & signBit) != 0;
        final double magnitude;
        if (isNaN(code))
        {
            return Double.NaN;
        }
        else if (isInfinite(code))
        {
            magnitude = Double.POSITIVE_INFINITY;
        }
        else
        {
            magnitude = magnitudes[code & (signBit - 1)].doubleValue();
        }
        return negative ? -magnitude : magnitude;
    }

    /**
     * @param code a non-negative finite encoding.
     * @return the next value above it; for the largest finite, the value the encoding after it would have with an
     * unbounded exponent (where rounding overflows).
     */
    double nextAbove(final int code)
    {
        return magnitudes[code + 1].doubleValue();
    }

    /**
     * @param x a double, NaN included.
     * @return the encoding of x rounded once to nearest, ties to even; -1 for NaN (any NaN encoding is right).
     */
    int round(final double x)
    {
        if (Double.isNaN(x))
        {
            return -1;
        }
        final int sign = (Double.doubleToRawLongBits(x) < 0) ? signBit : 0;
        if (Double.isInfinite(x))
        {
            return sign | (saturating ? maxFinite : infinity());
        }
        return sign | roundMagnitude(new BigDecimal(Math.abs(x)));
    }

    /**
     * @param exact a non-zero exact value.
     * @return its encoding rounded once to nearest, ties to even.
     */
    int round(final BigDecimal exact)
    {
        return (exact.signum() < 0 ? signBit : 0) | roundMagnitude(exact.abs());
    }

    /**
     * A second, fast reference for exhaustive runs: scale by the quantum (the weight of the last mantissa bit at the
     * value's exponent, clamped to the subnormal one), round with {@link Math#rint(double)}, scale back. Each step is
     * exact in double except the one rounding.
     *
     * @param x a float.
     * @return as {@link #round(double)}.
     */
    int roundByScaling(final float x)
    {
        final double magnitude = Math.abs((double)x);
        if (Double.isNaN(magnitude) || Double.isInfinite(magnitude) || magnitude == 0)
        {
            return round(x);
        }
        final int sign = x < 0 ? signBit : 0;
        final int exponent = Math.max(Math.getExponent(magnitude), 1 - bias);
        final double quantum = Math.scalb(1.0, exponent - mantissaBits);
        final double rounded = Math.rint(magnitude / quantum) * quantum;
        if (rounded > maxFiniteValue)
        {
            return sign | overflow();
        }
        if (rounded < minNormalValue)
        {
            return sign | (int)(rounded / quantum);
        }
        final int roundedExponent = Math.getExponent(rounded);
        final int fraction = (int)Math.scalb(rounded, mantissaBits - roundedExponent) - (1 << mantissaBits);
        return sign | (roundedExponent + bias) << mantissaBits | fraction;
    }

    private int roundMagnitude(final BigDecimal magnitude)
    {
        int low = 0;
        int high = magnitudes.length - 1;
        if (magnitude.compareTo(magnitudes[high]) >= 0)
        {
            return overflow();
        }
        while (high - low > 1)
        {
            final int middle = (low + high) >>> 1;
            if (magnitudes[middle].compareTo(magnitude) <= 0)
            {
                low = middle;
            }
            else
            {
                high = middle;
            }
        }
        final int order = magnitude.subtract(magnitudes[low]).compareTo(magnitudes[high].subtract(magnitude));
        final int nearest = order < 0 ? low : order > 0 ? high : ((low & 1) == 0 ? low : high);
        return nearest > maxFinite ? overflow() : nearest;
    }

    private int overflow()
    {
        return saturating ? maxFinite : infinity();
    }

    @Override
    public String toString()
    {
        return name;
    }
}
