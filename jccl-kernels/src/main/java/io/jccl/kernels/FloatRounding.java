package io.jccl.kernels;

/**
 * Rounding shared by the narrow floating types: round to nearest even from a float, and the round-to-odd step
 * that lets a double reach a narrow type through float without a second rounding error.
 */
final class FloatRounding
{
    private FloatRounding()
    {
    }

    /**
     * Rounds the magnitude of a float to a narrower binary format, to nearest, ties to even, as if the format's
     * exponent were unbounded above: the caller clamps the result to its infinity or largest finite encoding (an
     * infinite magnitude gives a large result too). Subnormal results are rounded once, at their own precision.
     *
     * @param magnitude    the float's bits with the sign cleared; not a NaN.
     * @param mantissaBits stored mantissa bits of the target (at most 10).
     * @param bias         exponent bias of the target (at most 15).
     * @return the target's encoding of the magnitude, possibly beyond its largest finite one.
     */
    static int roundMagnitude(final int magnitude, final int mantissaBits, final int bias)
    {
        final int shift = 23 - mantissaBits;
        if (magnitude < (128 - bias) << 23)
        {
            // below the target's smallest normal: adding a power of two whose ulp is the target's subnormal quantum
            // makes the float adder round to nearest even there, and the low bits of the sum are the encoding
            // (the smallest normal's, if it rounds up)
            final int magic = (128 - bias + shift) << 23;
            return Float.floatToRawIntBits(Float.intBitsToFloat(magnitude) + Float.intBitsToFloat(magic)) - magic;
        }
        // rebias the exponent in place; adding just under half an ulp plus the kept lsb breaks ties to even, and a
        // carry out of the mantissa correctly increments the exponent
        return (magnitude - ((127 - bias) << 23) + (1 << (shift - 1)) - 1 + ((magnitude >>> shift) & 1)) >>> shift;
    }

    /**
     * Converts a double to float rounding to odd: an inexact result gets the neighbour whose last bit is 1. A value
     * rounded to odd at 24 bits then rounded to nearest even at 11 bits or fewer gives what a single rounding of
     * the double would, so {@code Float16.fromFloat(toFloatRoundToOdd(x))} rounds x once.
     *
     * @param value any double.
     * @return the float rounded to odd; infinite when the value overflows float, NaN for NaN.
     */
    static float toFloatRoundToOdd(final double value)
    {
        final float nearest = (float)value;
        if (nearest == value || Float.isInfinite(nearest) || Float.isNaN(nearest) ||
            (Float.floatToRawIntBits(nearest) & 1) != 0)
        {
            return nearest;
        }
        return nearest < value ? Math.nextUp(nearest) : Math.nextDown(nearest);
    }
}
