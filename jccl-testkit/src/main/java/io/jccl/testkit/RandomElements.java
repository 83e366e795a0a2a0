package io.jccl.testkit;

import io.jccl.DataType;

import java.util.Random;

/**
 * Random elements as raw bits for tests of element arithmetic, edge values often: for integers 0, +-1 and the
 * values round the signed limits; for floating types signed zeros, infinities, NaN, the extremes, subnormals,
 * small integers, and for the narrow types mostly exponents near 1, so that sums and products round rather than
 * overflow or vanish. The sequence is a pure function of the {@link Random}'s state.
 */
public final class RandomElements
{
    private RandomElements()
    {
    }

    /**
     * @param type   element type.
     * @param random the source.
     * @return a random element's raw bits.
     */
    public static long next(final DataType type, final Random random)
    {
        switch (type)
        {
            case FLOAT32:
                return nextFloat32(random);
            case FLOAT64:
                return nextFloat64(random);
            case FLOAT16:
            case BFLOAT16:
            case FLOAT8_E4M3:
            case FLOAT8_E5M2:
                return nextNarrow(NarrowFloat.of(type), random);
            default:
                return nextInteger(ReferenceArithmetic.mask(type), random);
        }
    }

    private static long nextInteger(final long mask, final Random random)
    {
        final long signedMax = mask >>> 1;
        final long[] edges = {0, 1, -1, 2, signedMax, signedMax + 1, signedMax - 1, signedMax + 2};
        switch (random.nextInt(4))
        {
            case 0:
                return edges[random.nextInt(edges.length)] & mask;
            case 1:
                return (random.nextInt(201) - 100) & mask;
            default:
                return random.nextLong() & mask;
        }
    }

    private static long nextFloat32(final Random random)
    {
        final float[] edges = {0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN,
            Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, 1f, -1f};
        final float value;
        switch (random.nextInt(8))
        {
            case 0:
                value = edges[random.nextInt(edges.length)];
                break;
            case 1:
                value = Float.intBitsToFloat(random.nextInt());
                break;
            case 2:
                value = Math.scalb(random.nextFloat(), -140);
                break;
            case 3:
                value = random.nextInt(21) - 10;
                break;
            default:
                value = (random.nextFloat() - 0.5f) * 2000f;
                break;
        }
        return Float.floatToRawIntBits(value) & 0xFFFF_FFFFL;
    }

    private static long nextFloat64(final Random random)
    {
        final double[] edges = {0d, -0d, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN,
            Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, 1, -1};
        final double value;
        switch (random.nextInt(10))
        {
            case 0:
                value = edges[random.nextInt(edges.length)];
                break;
            case 1:
                value = Double.longBitsToDouble(random.nextLong());
                break;
            case 2:
                value = Math.scalb(random.nextDouble(), -1060);
                break;
            case 3:
                value = random.nextInt(21) - 10;
                break;
            default:
                value = (random.nextDouble() - 0.5) * 2000;
                break;
        }
        return Double.doubleToRawLongBits(value);
    }

    private static long nextNarrow(final NarrowFloat format, final Random random)
    {
        final int sign = random.nextBoolean() ? format.signBit() : 0;
        // maxFiniteBits + 1 is infinity, or E4M3's positive NaN
        final int[] edges = {0, format.maxFiniteBits(), 1, 1 << format.mantissaBits(), format.maxFiniteBits() + 1,
            format.signBit() - 1};
        switch (random.nextInt(10))
        {
            case 0:
                return sign | edges[random.nextInt(edges.length)];
            case 1:
                return random.nextInt(format.codeCount());
            default:
                // exponents near 1, so that sums and products round rather than overflow or vanish
                final int exponent = format.bias() - 3 + random.nextInt(7);
                final int mantissa = random.nextInt(1 << format.mantissaBits());
                return sign | Math.min((exponent << format.mantissaBits()) | mantissa, format.maxFiniteBits());
        }
    }
}
