package io.jccl.testkit;

import io.jccl.DataType;

import java.math.BigDecimal;

/**
 * A binary floating-point format narrower than float: IEEE binary16, bfloat16 and the two FP8 formats, written
 * apart from jccl-kernels' converters so that it can check them. Encodings are ints in the low 8 or 16 bits.
 * <p>
 * Decoding is exact (every value of these formats is a double). Encoding rounds once to nearest, ties to even;
 * FP8 saturates to the largest finite value, infinities included (CUDA's {@code __NV_SATFINITE}), while FLOAT16 and
 * BFLOAT16 overflow to infinity; a NaN becomes the format's canonical quiet NaN ({@link #nanBits()}, the one
 * jccl-kernels and CUDA produce) with its sign kept.
 * <p>
 * Two roundings, one checking the other: {@link #fromDouble(double)} scales the value by the quantum (the weight of
 * the last mantissa bit at its exponent, clamped to the subnormal exponent), rounds with {@link Math#rint(double)}
 * and scales back, every step exact in double but the one rounding; {@link #roundExact(BigDecimal)} searches the
 * exact values of all encodings for the nearest, and is slow (its table is built on first use).
 * Instances are immutable and thread-safe.
 */
public final class NarrowFloat
{
    /** IEEE binary16 ({@link DataType#FLOAT16}): largest finite 65504. */
    public static final NarrowFloat FLOAT16 = new NarrowFloat("float16", 5, 10, true, false, 0x7e00);
    /** bfloat16 ({@link DataType#BFLOAT16}): float's exponent, 7 mantissa bits. */
    public static final NarrowFloat BFLOAT16 = new NarrowFloat("bfloat16", 8, 7, true, false, 0x7fc0);
    /** FP8 E4M3 (the OCP "fn" variant): no infinities, {@code S.1111.111} is NaN, largest finite 448. */
    public static final NarrowFloat E4M3 = new NarrowFloat("e4m3", 4, 3, false, true, 0x7f);
    /** FP8 E5M2: IEEE-like specials, largest finite 57344; conversions saturate. */
    public static final NarrowFloat E5M2 = new NarrowFloat("e5m2", 5, 2, true, true, 0x7f);

    private final String name;
    private final int exponentBits;
    private final int mantissaBits;
    private final int bias;
    private final int minExponent;
    private final boolean hasInfinity;
    private final boolean saturating;
    private final int nanBits;
    private final int width;
    private final int signBit;
    private final int maxFiniteBits;
    private final double maxFinite;
    private volatile BigDecimal[] magnitudes;

    private NarrowFloat(final String name, final int exponentBits, final int mantissaBits, final boolean hasInfinity,
        final boolean saturating, final int nanBits)
    {
        this.name = name;
        this.exponentBits = exponentBits;
        this.mantissaBits = mantissaBits;
        this.bias = (1 << (exponentBits - 1)) - 1;
        this.minExponent = 1 - bias;
        this.hasInfinity = hasInfinity;
        this.saturating = saturating;
        this.nanBits = nanBits;
        this.width = 1 + exponentBits + mantissaBits;
        this.signBit = 1 << (width - 1);
        // with infinities the top exponent is reserved; without (E4M3fn) only S.1111.111 is NaN
        this.maxFiniteBits = hasInfinity ? (((1 << exponentBits) - 1) << mantissaBits) - 1 : signBit - 2;
        this.maxFinite = magnitude(maxFiniteBits);
    }

    /**
     * @param type a narrow floating type.
     * @return its format.
     * @throws IllegalArgumentException for any other type.
     */
    public static NarrowFloat of(final DataType type)
    {
        switch (type)
        {
            case FLOAT16:
                return FLOAT16;
            case BFLOAT16:
                return BFLOAT16;
            case FLOAT8_E4M3:
                return E4M3;
            case FLOAT8_E5M2:
                return E5M2;
            default:
                throw new IllegalArgumentException(type + " is not a narrow floating type");
        }
    }

    /**
     * @param type an element type.
     * @return true for FLOAT16, BFLOAT16 and the FP8 types.
     */
    public static boolean isNarrow(final DataType type)
    {
        return type == DataType.FLOAT16 || type == DataType.BFLOAT16 ||
            type == DataType.FLOAT8_E4M3 || type == DataType.FLOAT8_E5M2;
    }

    /** @return exponent bits. */
    public int exponentBits()
    {
        return exponentBits;
    }

    /** @return mantissa bits, without the implicit one. */
    public int mantissaBits()
    {
        return mantissaBits;
    }

    /** @return the exponent bias. */
    public int bias()
    {
        return bias;
    }

    /** @return total bits, 8 or 16. */
    public int width()
    {
        return width;
    }

    /** @return the number of encodings, 256 or 65536. */
    public int codeCount()
    {
        return 1 << width;
    }

    /** @return the sign bit of an encoding. */
    public int signBit()
    {
        return signBit;
    }

    /** @return true when the format has infinities (all but E4M3). */
    public boolean hasInfinity()
    {
        return hasInfinity;
    }

    /** @return true when conversions saturate to the largest finite value (FP8) rather than overflow. */
    public boolean saturating()
    {
        return saturating;
    }

    /** @return the canonical quiet NaN that encoding a NaN gives (positive; the NaN's sign is or-ed in). */
    public int nanBits()
    {
        return nanBits;
    }

    /** @return the encoding of the largest finite value (positive); the encodings below it are all finite. */
    public int maxFiniteBits()
    {
        return maxFiniteBits;
    }

    /** @return the encoding of positive infinity, or -1 when the format has none. */
    public int infinityBits()
    {
        return hasInfinity ? maxFiniteBits + 1 : -1;
    }

    /** @return the largest finite value. */
    public double maxFinite()
    {
        return maxFinite;
    }

    /** @return the smallest positive normal value. */
    public double minNormal()
    {
        return Math.scalb(1.0, minExponent);
    }

    /** @return the smallest positive (subnormal) value. */
    public double minSubnormal()
    {
        return Math.scalb(1.0, minExponent - mantissaBits);
    }

    /**
     * @param bits an encoding.
     * @return true when it is a NaN.
     */
    public boolean isNaN(final int bits)
    {
        final int magnitude = bits & (signBit - 1);
        return hasInfinity ? magnitude > maxFiniteBits + 1 : magnitude == signBit - 1;
    }

    /**
     * @param bits an encoding.
     * @return true when it is an infinity.
     */
    public boolean isInfinite(final int bits)
    {
        return hasInfinity && (bits & (signBit - 1)) == maxFiniteBits + 1;
    }

    /**
     * @param bits an encoding.
     * @return true for NaN and infinities.
     */
    public boolean isSpecial(final int bits)
    {
        return isNaN(bits) || isInfinite(bits);
    }

    /**
     * @param bits an encoding in the low bits (higher bits are ignored).
     * @return its exact value; NaN for every NaN encoding.
     */
    public double toDouble(final int bits)
    {
        final int b = bits & (signBit | (signBit - 1));
        final double value;
        if (isNaN(b))
        {
            return Double.NaN;
        }
        else if (isInfinite(b))
        {
            value = Double.POSITIVE_INFINITY;
        }
        else
        {
            value = magnitude(b & (signBit - 1));
        }
        return (b & signBit) != 0 ? -value : value;
    }

    /**
     * @param bits an encoding.
     * @return its value as a float (exact).
     */
    public float toFloat(final int bits)
    {
        return (float)toDouble(bits);
    }

    /**
     * @param value any double.
     * @return the encoding of value rounded once to nearest, ties to even, saturated or overflowed per the format.
     */
    public int fromDouble(final double value)
    {
        final int sign = Double.doubleToRawLongBits(value) < 0 ? signBit : 0;
        if (Double.isNaN(value))
        {
            return sign | nanBits;
        }
        final double a = Math.abs(value);
        if (Double.isInfinite(a))
        {
            return sign | overflow();
        }
        if (a == 0.0)
        {
            return sign;
        }
        final int exponent = Math.max(Math.getExponent(a), minExponent);
        final double quantum = Math.scalb(1.0, exponent - mantissaBits);
        final double rounded = Math.rint(a / quantum) * quantum;
        if (rounded > maxFinite)
        {
            return sign | overflow();
        }
        return sign | encodeRepresentable(rounded);
    }

    /**
     * @param value a float.
     * @return {@link #fromDouble(double)} of it (a float converts to double exactly).
     */
    public int fromFloat(final float value)
    {
        return fromDouble(value);
    }

    /**
     * The slow definition of rounding: the nearest of the exact values of all encodings, ties to the even encoding;
     * one virtual encoding past the largest finite stands for "overflowed".
     *
     * @param value a double, NaN and infinities included.
     * @return as {@link #fromDouble(double)}.
     */
    public int roundExact(final double value)
    {
        if (Double.isNaN(value) || Double.isInfinite(value))
        {
            return fromDouble(value);
        }
        final int sign = Double.doubleToRawLongBits(value) < 0 ? signBit : 0;
        return sign | roundMagnitude(new BigDecimal(Math.abs(value)));
    }

    /**
     * @param exact a non-zero exact value.
     * @return its encoding rounded once to nearest, ties to even, saturated or overflowed per the format.
     */
    public int roundExact(final BigDecimal exact)
    {
        return (exact.signum() < 0 ? signBit : 0) | roundMagnitude(exact.abs());
    }

    /**
     * @param bits a non-negative finite encoding.
     * @return the next value above it; for the largest finite, the value the encoding after it would have with an
     * unbounded exponent (where rounding overflows).
     */
    public double nextAbove(final int bits)
    {
        return magnitude(bits + 1);
    }

    @Override
    public String toString()
    {
        return name;
    }

    private int overflow()
    {
        return saturating ? maxFiniteBits : maxFiniteBits + 1;
    }

    /** The value of a non-negative encoding read as finite, whatever the specials (the exponent is unbounded). */
    private double magnitude(final int bits)
    {
        final int exponentField = bits >>> mantissaBits;
        final int mantissa = bits & ((1 << mantissaBits) - 1);
        if (exponentField == 0)
        {
            return Math.scalb((double)mantissa, minExponent - mantissaBits);
        }
        return Math.scalb((double)((1 << mantissaBits) | mantissa), exponentField - bias - mantissaBits);
    }

    private int encodeRepresentable(final double magnitude)
    {
        final int exponent = Math.getExponent(magnitude);
        if (exponent < minExponent)
        {
            return (int)Math.scalb(magnitude, mantissaBits - minExponent);
        }
        final int mantissa = (int)Math.scalb(magnitude, mantissaBits - exponent) - (1 << mantissaBits);
        return ((exponent + bias) << mantissaBits) | mantissa;
    }

    private int roundMagnitude(final BigDecimal magnitude)
    {
        final BigDecimal[] table = magnitudes();
        int low = 0;
        int high = table.length - 1;
        if (magnitude.compareTo(table[high]) >= 0)
        {
            return overflow();
        }
        while (high - low > 1)
        {
            final int middle = (low + high) >>> 1;
            if (table[middle].compareTo(magnitude) <= 0)
            {
                low = middle;
            }
            else
            {
                high = middle;
            }
        }
        final int order = magnitude.subtract(table[low]).compareTo(table[high].subtract(magnitude));
        final int nearest = order < 0 ? low : order > 0 ? high : ((low & 1) == 0 ? low : high);
        return nearest > maxFiniteBits ? overflow() : nearest;
    }

    /** The exact values of the encodings 0 .. maxFinite + 1, built once on first use (65,538 BigDecimals). */
    private BigDecimal[] magnitudes()
    {
        BigDecimal[] table = magnitudes;
        if (table == null)
        {
            table = new BigDecimal[maxFiniteBits + 2];
            for (int bits = 0; bits < table.length; bits++)
            {
                table[bits] = exactMagnitude(bits);
            }
            magnitudes = table;
        }
        return table;
    }

    /** Exact, by BigDecimal powers of two: not through {@link #magnitude(int)}, which it checks. */
    private BigDecimal exactMagnitude(final int bits)
    {
        final int exponentField = bits >>> mantissaBits;
        final int fraction = bits & ((1 << mantissaBits) - 1);
        final int significand = exponentField == 0 ? fraction : (1 << mantissaBits) + fraction;
        final int power = (exponentField == 0 ? 1 : exponentField) - bias - mantissaBits;
        final BigDecimal two = BigDecimal.valueOf(2);
        return power >= 0 ?
            BigDecimal.valueOf(significand).multiply(two.pow(power)) :
            BigDecimal.valueOf(significand).divide(two.pow(-power));
    }
}
