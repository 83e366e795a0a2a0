package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;

/**
 * The tests' own model of one element type's arithmetic, written apart from the reducers: integers through
 * BigInteger, FLOAT32 through double (one rounding of an exact or innocuously rounded double result), FLOAT64
 * through BigDecimal, and the narrow floats through exact BigDecimal values rounded once by {@link FormatReference}.
 * Elements are raw bits, zero-extended into a long; an expected NaN matches any NaN.
 */
abstract class ElementReference
{
    static ElementReference of(final DataType type)
    {
        return switch (type)
        {
            case INT8 -> new IntegerReference(8, true);
            case UINT8 -> new IntegerReference(8, false);
            case INT32 -> new IntegerReference(32, true);
            case UINT32 -> new IntegerReference(32, false);
            case INT64 -> new IntegerReference(64, true);
            case UINT64 -> new IntegerReference(64, false);
            case FLOAT32 -> new Float32Reference();
            case FLOAT64 -> new Float64Reference();
            case FLOAT16 -> new NarrowReference(FormatReference.FLOAT16);
            case BFLOAT16 -> new NarrowReference(FormatReference.BFLOAT16);
            case FLOAT8_E4M3 -> new NarrowReference(FormatReference.E4M3);
            case FLOAT8_E5M2 -> new NarrowReference(FormatReference.E5M2);
        };
    }

    /** @return the scalar converted to the element type, as bits. */
    abstract long scalar(double scalar);

    abstract long add(long x, long y);

    abstract long multiply(long x, long y);

    abstract long max(long x, long y);

    abstract long min(long x, long y);

    /** @return a random element, edge values often. */
    abstract long random(Random random);

    /** @return whether an actual result matches the expected one (NaN matching any NaN). */
    abstract boolean same(long expected, long actual);

    abstract String describe(long bits);

    final long premultiply(final long x, final boolean premul, final long scalar)
    {
        return premul ? multiply(x, scalar) : x;
    }

    final long reduce(
        final ReduceOp.Kind kind, final long scalar, final long x, final boolean premulX, final long y,
        final boolean premulY)
    {
        return switch (kind)
        {
            case SUM -> add(x, y);
            case PROD -> multiply(x, y);
            case MAX -> max(x, y);
            case MIN -> min(x, y);
            case PREMULSUM -> add(premultiply(x, premulX, scalar), premultiply(y, premulY, scalar));
            default -> throw new IllegalArgumentException(kind.toString());
        };
    }

    /** CUDA fmax written out: NaN yields the other operand, -0 is below +0. */
    static double cudaMax(final double x, final double y)
    {
        if (Double.isNaN(x) || Double.isNaN(y))
        {
            return Double.isNaN(x) ? y : x;
        }
        if (x == y)
        {
            return Double.doubleToRawLongBits(x) < 0 ? y : x;
        }
        return x > y ? x : y;
    }

    /** CUDA fmin written out: NaN yields the other operand, -0 is below +0. */
    static double cudaMin(final double x, final double y)
    {
        if (Double.isNaN(x) || Double.isNaN(y))
        {
            return Double.isNaN(x) ? y : x;
        }
        if (x == y)
        {
            return Double.doubleToRawLongBits(x) < 0 ? x : y;
        }
        return x < y ? x : y;
    }

    static final class IntegerReference extends ElementReference
    {
        private final int width;
        private final boolean signed;
        private final long mask;

        IntegerReference(final int width, final boolean signed)
        {
            this.width = width;
            this.signed = signed;
            this.mask = width == 64 ? -1L : (1L << width) - 1;
        }

        BigInteger big(final long bits)
        {
            if (signed)
            {
                return BigInteger.valueOf(bits << (64 - width) >> (64 - width));
            }
            return new BigInteger(Long.toUnsignedString(bits & mask));
        }

        long wrap(final BigInteger value)
        {
            return value.longValue() & mask;
        }

        long scalar(final double scalar)
        {
            return wrap(new BigDecimal(scalar).toBigInteger());
        }

        long add(final long x, final long y)
        {
            return wrap(big(x).add(big(y)));
        }

        long multiply(final long x, final long y)
        {
            return wrap(big(x).multiply(big(y)));
        }

        long max(final long x, final long y)
        {
            return big(x).compareTo(big(y)) >= 0 ? x : y;
        }

        long min(final long x, final long y)
        {
            return big(x).compareTo(big(y)) <= 0 ? x : y;
        }

        /**
         * @param x       an element.
         * @param divisor the divisor as {@link HostReducer#divide} takes it.
         * @return the quotient truncated toward zero, wrapped.
         */
        long divide(final long x, final long divisor)
        {
            final BigInteger d = signed ? BigInteger.valueOf(divisor) : new BigInteger(Long.toUnsignedString(divisor));
            return wrap(big(x).divide(d));
        }

        long random(final Random random)
        {
            final long signedMax = mask >>> 1;
            final long[] edges = { 0, 1, -1, 2, signedMax, signedMax + 1, signedMax - 1, signedMax + 2 };
            return switch (random.nextInt(4))
            {
                case 0 -> edges[random.nextInt(edges.length)] & mask;
                case 1 -> (random.nextInt(201) - 100) & mask;
                default -> random.nextLong() & mask;
            };
        }

        boolean same(final long expected, final long actual)
        {
            return expected == actual;
        }

        String describe(final long bits)
        {
            return big(bits) + " (0x" + Long.toHexString(bits) + ")";
        }
    }

    static final class Float32Reference extends ElementReference
    {
        static float f(final long bits)
        {
            return Float.intBitsToFloat((int)bits);
        }

        static long bits(final double value)
        {
            final float f = (float)value;
            return Float.floatToRawIntBits(f) & 0xFFFF_FFFFL;
        }

        long scalar(final double scalar)
        {
            return bits(scalar);
        }

        long add(final long x, final long y)
        {
            // a double holds the exact product and rounds a sum innocuously, so one more rounding is the float op
            return bits((double)f(x) + (double)f(y));
        }

        long multiply(final long x, final long y)
        {
            return bits((double)f(x) * (double)f(y));
        }

        long max(final long x, final long y)
        {
            return bits(cudaMax(f(x), f(y)));
        }

        long min(final long x, final long y)
        {
            return bits(cudaMin(f(x), f(y)));
        }

        long random(final Random random)
        {
            final float[] edges = { 0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN,
                Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, 1f, -1f };
            final float value = switch (random.nextInt(8))
            {
                case 0 -> edges[random.nextInt(edges.length)];
                case 1 -> Float.intBitsToFloat(random.nextInt());
                case 2 -> Math.scalb(random.nextFloat(), -140);
                case 3 -> random.nextInt(21) - 10;
                default -> (random.nextFloat() - 0.5f) * 2000f;
            };
            return Float.floatToRawIntBits(value) & 0xFFFF_FFFFL;
        }

        boolean same(final long expected, final long actual)
        {
            return Float.isNaN(f(expected)) ? Float.isNaN(f(actual)) : expected == actual;
        }

        String describe(final long bits)
        {
            return f(bits) + " (0x" + Long.toHexString(bits) + ")";
        }
    }

    static final class Float64Reference extends ElementReference
    {
        static double d(final long bits)
        {
            return Double.longBitsToDouble(bits);
        }

        static long bits(final double value)
        {
            return Double.doubleToRawLongBits(value);
        }

        long scalar(final double scalar)
        {
            return bits(scalar);
        }

        long add(final long x, final long y)
        {
            final double dx = d(x);
            final double dy = d(y);
            if (!Double.isFinite(dx) || !Double.isFinite(dy))
            {
                return bits(dx + dy);
            }
            final BigDecimal exact = new BigDecimal(dx).add(new BigDecimal(dy));
            // an exact zero takes its sign from IEEE's rule, which plain addition applies exactly
            return bits(exact.signum() == 0 ? dx + dy : exact.doubleValue());
        }

        long multiply(final long x, final long y)
        {
            final double dx = d(x);
            final double dy = d(y);
            if (!Double.isFinite(dx) || !Double.isFinite(dy) || dx == 0 || dy == 0)
            {
                return bits(dx * dy);
            }
            final BigDecimal exact = new BigDecimal(dx).multiply(new BigDecimal(dy));
            final double rounded = exact.doubleValue();
            return bits(rounded == 0 ? Math.copySign(0.0, exact.signum()) : rounded);
        }

        long max(final long x, final long y)
        {
            return bits(cudaMax(d(x), d(y)));
        }

        long min(final long x, final long y)
        {
            return bits(cudaMin(d(x), d(y)));
        }

        long random(final Random random)
        {
            final double[] edges = { 0d, -0d, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN,
                Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, 1, -1 };
            final double value = switch (random.nextInt(10))
            {
                case 0 -> edges[random.nextInt(edges.length)];
                case 1 -> Double.longBitsToDouble(random.nextLong());
                case 2 -> Math.scalb(random.nextDouble(), -1060);
                case 3 -> random.nextInt(21) - 10;
                default -> (random.nextDouble() - 0.5) * 2000;
            };
            return Double.doubleToRawLongBits(value);
        }

        boolean same(final long expected, final long actual)
        {
            return Double.isNaN(d(expected)) ? Double.isNaN(d(actual)) : expected == actual;
        }

        String describe(final long bits)
        {
            return d(bits) + " (0x" + Long.toHexString(bits) + ")";
        }
    }

    static final class NarrowReference extends ElementReference
    {
        private final FormatReference format;

        NarrowReference(final FormatReference format)
        {
            this.format = format;
        }

        private long code(final int code)
        {
            // FormatReference answers -1 for NaN: all ones in the magnitude is a NaN in all four formats
            return code < 0 ? format.signBit - 1 : code;
        }

        long scalar(final double scalar)
        {
            return code(format.round(scalar));
        }

        long add(final long x, final long y)
        {
            final double dx = format.value((int)x);
            final double dy = format.value((int)y);
            if (!Double.isFinite(dx) || !Double.isFinite(dy))
            {
                return code(format.round(dx + dy));
            }
            final BigDecimal exact = new BigDecimal(dx).add(new BigDecimal(dy));
            return code(exact.signum() == 0 ? format.round(dx + dy) : format.round(exact));
        }

        long multiply(final long x, final long y)
        {
            final double dx = format.value((int)x);
            final double dy = format.value((int)y);
            if (!Double.isFinite(dx) || !Double.isFinite(dy) || dx == 0 || dy == 0)
            {
                return code(format.round(dx * dy));
            }
            return code(format.round(new BigDecimal(dx).multiply(new BigDecimal(dy))));
        }

        long max(final long x, final long y)
        {
            return code(format.round(cudaMax(format.value((int)x), format.value((int)y))));
        }

        long min(final long x, final long y)
        {
            return code(format.round(cudaMin(format.value((int)x), format.value((int)y))));
        }

        long random(final Random random)
        {
            final int sign = random.nextBoolean() ? format.signBit : 0;
            final int[] edges = { 0, format.maxFinite, 1, 1 << format.mantissaBits, format.infinity(),
                format.signBit - 1 };
            switch (random.nextInt(10))
            {
                case 0:
                    return sign | edges[random.nextInt(edges.length)];
                case 1:
                    return random.nextInt(format.codeCount());
                default:
                    // exponents near 1, so that sums and products round rather than overflow or vanish
                    final int exponent = format.bias - 3 + random.nextInt(7);
                    final int mantissa = random.nextInt(1 << format.mantissaBits);
                    return sign | Math.min((exponent << format.mantissaBits) | mantissa, format.maxFinite);
            }
        }

        boolean same(final long expected, final long actual)
        {
            return format.isNaN((int)expected) ? format.isNaN((int)actual) : expected == actual;
        }

        String describe(final long bits)
        {
            return format.value((int)bits) + " (0x" + Long.toHexString(bits) + ")";
        }
    }
}
