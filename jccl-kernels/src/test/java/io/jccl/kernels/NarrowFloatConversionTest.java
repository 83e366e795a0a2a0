package io.jccl.kernels;

import io.jccl.testkit.NarrowFloat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class NarrowFloatConversionTest
{
    /** The four narrow types under test, each with its reference format (jccl-testkit). */
    enum Codec
    {
        FLOAT16(NarrowFloat.FLOAT16)
        {
            float toFloat(final int code)
            {
                return Float16.toFloat((short)code);
            }

            int fromFloat(final float value)
            {
                return Float16.fromFloat(value) & 0xFFFF;
            }
        },
        BFLOAT16(NarrowFloat.BFLOAT16)
        {
            float toFloat(final int code)
            {
                return BFloat16.toFloat((short)code);
            }

            int fromFloat(final float value)
            {
                return BFloat16.fromFloat(value) & 0xFFFF;
            }
        },
        E4M3(NarrowFloat.E4M3)
        {
            float toFloat(final int code)
            {
                return Float8E4M3.toFloat((byte)code);
            }

            int fromFloat(final float value)
            {
                return Float8E4M3.fromFloat(value) & 0xFF;
            }
        },
        E5M2(NarrowFloat.E5M2)
        {
            float toFloat(final int code)
            {
                return Float8E5M2.toFloat((byte)code);
            }

            int fromFloat(final float value)
            {
                return Float8E5M2.fromFloat(value) & 0xFF;
            }
        };

        final NarrowFloat reference;

        Codec(final NarrowFloat reference)
        {
            this.reference = reference;
        }

        abstract float toFloat(int code);

        abstract int fromFloat(float value);
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void shouldWidenExactlyWhenConvertingEveryEncoding(final Codec codec)
    {
        final NarrowFloat reference = codec.reference;
        for (int code = 0; code < reference.codeCount(); code++)
        {
            final float actual = codec.toFloat(code);
            final double expected = reference.toDouble(code);
            if (Double.isNaN(expected) ? !Float.isNaN(actual) :
                Float.floatToRawIntBits(actual) != Float.floatToRawIntBits((float)expected))
            {
                fail(codec + " 0x" + Integer.toHexString(code) + ": expected " + expected + " but was " + actual);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void shouldRoundTripWhenEncodingIsNotNaN(final Codec codec)
    {
        final NarrowFloat reference = codec.reference;
        for (int code = 0; code < reference.codeCount(); code++)
        {
            final int actual = codec.fromFloat(codec.toFloat(code));
            final String context = codec + " 0x" + Integer.toHexString(code);
            if (reference.isNaN(code))
            {
                assertTrue(reference.isNaN(actual), context);
                assertEquals(code & reference.signBit(), actual & reference.signBit(), context + " sign");
            }
            else if (reference.isInfinite(code) && reference.saturating())
            {
                assertEquals((code & reference.signBit()) | reference.maxFiniteBits(), actual, context);
            }
            else
            {
                assertEquals(code, actual, context);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void shouldRoundToNearestEvenWhenFloatIsAtOrNearAHalfway(final Codec codec)
    {
        final NarrowFloat reference = codec.reference;
        for (int code = 0; code <= reference.maxFiniteBits(); code++)
        {
            // the midpoint to the next encoding (the last one: to the first value past the largest finite)
            final double low = reference.toDouble(code);
            final double high = reference.nextAbove(code);
            final float midpoint = (float)((low + high) / 2);
            assertEquals((low + high) / 2, midpoint, 0.0, "midpoints are floats");
            for (final float value : new float[]{ midpoint, Math.nextUp(midpoint), Math.nextDown(midpoint) })
            {
                check(codec, value);
                check(codec, -value);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void shouldMatchReferenceWhenRoundingRandomFloats(final Codec codec)
    {
        final Random random = new Random(codec.ordinal());
        final int bias = codec.reference.bias();
        for (int i = 0; i < 200_000; i++)
        {
            check(codec, Float.intBitsToFloat(random.nextInt()));
            // exponents across the format's range, its subnormals and a little beyond both ends
            final int exponent = random.nextInt(2 * bias + codec.reference.mantissaBits() + 6) - bias -
                codec.reference.mantissaBits() - 3;
            check(codec, Math.scalb(1 + random.nextFloat(), exponent) * (random.nextBoolean() ? 1 : -1));
        }
        for (final float value : new float[]{ 0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL,
            Float.MAX_VALUE, -Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN,
            -Float.NaN, Float.intBitsToFloat(0x7F80_0001), Float.intBitsToFloat(0xFFC0_1234) })
        {
            check(codec, value);
        }
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void shouldRoundOnceWhenADoubleGoesThroughRoundToOdd(final Codec codec)
    {
        final NarrowFloat reference = codec.reference;
        final Random random = new Random(codec.ordinal() + 100);
        for (int code = 0; code <= reference.maxFiniteBits(); code++)
        {
            final double low = reference.toDouble(code);
            final double high = reference.nextAbove(code);
            final double midpoint = (low + high) / 2;
            // nudges far below float precision: a plain (float) cast would round them onto the midpoint
            final double nudge = midpoint * 0x1p-40;
            final double above = midpoint * (1 + random.nextDouble() * 0x1p-20);
            for (final double value : new double[]{ midpoint, midpoint + nudge, midpoint - nudge, above })
            {
                final int expected = reference.roundExact(value);
                final int actual = codec.fromFloat(FloatRounding.toFloatRoundToOdd(value));
                if (expected != actual)
                {
                    fail(codec + " " + value + ": expected 0x" + Integer.toHexString(expected) + " but was 0x" +
                        Integer.toHexString(actual));
                }
            }
        }
    }

    @Tag("slow")
    @ParameterizedTest
    @EnumSource(Codec.class)
    void shouldMatchScalingReferenceWhenRoundingEveryFloat(final Codec codec)
    {
        final NarrowFloat reference = codec.reference;
        int bits = 0;
        do
        {
            final float value = Float.intBitsToFloat(bits);
            final int expected = reference.fromFloat(value);
            final int actual = codec.fromFloat(value);
            if (reference.isNaN(expected) ? !reference.isNaN(actual) : expected != actual)
            {
                fail(codec + " " + value + " (0x" + Integer.toHexString(bits) + "): expected 0x" +
                    Integer.toHexString(expected) + " but was 0x" + Integer.toHexString(actual));
            }
            bits++;
        }
        while (bits != 0);
    }

    @Test
    void shouldSaturateOrOverflowWhenBeyondLargestFinite()
    {
        assertEquals(0x7BFF, Float16.fromFloat(65519.99f));
        assertEquals(0x7C00, Float16.fromFloat(65520f));
        assertEquals((short)0xFC00, Float16.fromFloat(Float.NEGATIVE_INFINITY));
        assertEquals(0x7F80, BFloat16.fromFloat(Float.MAX_VALUE));
        assertEquals(0x7E, Float8E4M3.fromFloat(448f));
        assertEquals(0x7E, Float8E4M3.fromFloat(464f));
        assertEquals(0x7E, Float8E4M3.fromFloat(465f));
        assertEquals(0x7E, Float8E4M3.fromFloat(Float.POSITIVE_INFINITY));
        assertEquals((byte)0xFE, Float8E4M3.fromFloat(Float.NEGATIVE_INFINITY));
        assertEquals(0x7F, Float8E4M3.fromFloat(Float.NaN));
        assertEquals(0x7B, Float8E5M2.fromFloat(61440f));
        assertEquals(0x7B, Float8E5M2.fromFloat(Float.POSITIVE_INFINITY));
        assertEquals((byte)0xFB, Float8E5M2.fromFloat(-1e30f));
        assertEquals(448f, Float8E4M3.toFloat((byte)0x7E));
        assertEquals(57344f, Float8E5M2.toFloat((byte)0x7B));
    }

    @Test
    void shouldKeepSubnormalsWhenRoundingSmallValues()
    {
        assertEquals(0x0001, Float16.fromFloat(0x1p-24f));
        assertEquals(0x0000, Float16.fromFloat(0x1p-25f));
        assertEquals(0x0001, Float16.fromFloat(Math.nextUp(0x1p-25f)));
        assertEquals(0x0002, Float16.fromFloat(0x3p-25f));
        assertEquals((short)0x8000, Float16.fromFloat(-0x1p-26f));
        assertEquals(0x01, Float8E4M3.fromFloat(0x1p-9f));
        assertEquals(0x01, Float8E5M2.fromFloat(0x1p-16f));
        assertEquals(0x0001, BFloat16.fromFloat(0x1p-133f));
        assertEquals(0x1p-9f, Float8E4M3.toFloat((byte)0x01));
    }

    private static void check(final Codec codec, final float value)
    {
        final int expected = codec.reference.roundExact(value);
        final int actual = codec.fromFloat(value);
        if (codec.reference.isNaN(expected) ? !codec.reference.isNaN(actual) : expected != actual)
        {
            fail(codec + " " + value + " (0x" + Integer.toHexString(Float.floatToRawIntBits(value)) +
                "): expected 0x" + Integer.toHexString(expected) + " but was 0x" + Integer.toHexString(actual));
        }
    }
}
