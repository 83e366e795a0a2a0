package io.jccl.testkit;

import io.jccl.DataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Self-tests of the narrow formats: known encodings, exhaustive round-to-nearest-even, and both roundings agreeing. */
class NarrowFloatTest
{
    @Test
    void shouldEncodeKnownHalfValuesWhenConvertingFromFloat()
    {
        assertEquals(0x3c00, NarrowFloat.FLOAT16.fromFloat(1.0f));
        assertEquals(0xc000, NarrowFloat.FLOAT16.fromFloat(-2.0f));
        assertEquals(0x7bff, NarrowFloat.FLOAT16.fromFloat(65504f));
        assertEquals(0x7bff, NarrowFloat.FLOAT16.fromFloat(65519.99f));
        assertEquals(0x7c00, NarrowFloat.FLOAT16.fromFloat(65520f));
        assertEquals(0xfc00, NarrowFloat.FLOAT16.fromFloat(Float.NEGATIVE_INFINITY));
        assertEquals(0x0001, NarrowFloat.FLOAT16.fromFloat(0x1p-24f));
        assertEquals(0x0000, NarrowFloat.FLOAT16.fromFloat(0x1p-25f));
        assertEquals(0x0001, NarrowFloat.FLOAT16.fromFloat(0x1.8p-25f));
        assertEquals(0x0400, NarrowFloat.FLOAT16.fromFloat(0x1p-14f));
        assertEquals(0x3c00, NarrowFloat.FLOAT16.fromFloat(1.0f + 0x1p-11f));
        assertEquals(0x3c02, NarrowFloat.FLOAT16.fromFloat(1.0f + 0x3p-11f));
        assertEquals(0x8000, NarrowFloat.FLOAT16.fromFloat(-0.0f));
        assertEquals(0x3555, NarrowFloat.FLOAT16.fromFloat(1.0f / 3));
        assertTrue(NarrowFloat.FLOAT16.isNaN(NarrowFloat.FLOAT16.fromFloat(Float.NaN)));
        assertEquals(65504f, NarrowFloat.FLOAT16.toFloat(0x7bff));
        assertEquals(0x1p-24f, NarrowFloat.FLOAT16.toFloat(0x0001));
        assertEquals(Float.POSITIVE_INFINITY, NarrowFloat.FLOAT16.toFloat(0x7c00));
        assertTrue(Float.isNaN(NarrowFloat.FLOAT16.toFloat(0x7c01)));
    }

    @Test
    void shouldEncodeKnownBfloat16ValuesWhenConvertingFromFloat()
    {
        assertEquals(0x3f80, NarrowFloat.BFLOAT16.fromFloat(1.0f));
        assertEquals(0x3f80, NarrowFloat.BFLOAT16.fromFloat(Float.intBitsToFloat(0x3f808000)));
        assertEquals(0x3f82, NarrowFloat.BFLOAT16.fromFloat(Float.intBitsToFloat(0x3f818000)));
        assertEquals(0x3f81, NarrowFloat.BFLOAT16.fromFloat(Float.intBitsToFloat(0x3f808001)));
        assertEquals(0x7f7f, NarrowFloat.BFLOAT16.fromFloat(Float.intBitsToFloat(0x7f7f7fff)));
        assertEquals(0x7f80, NarrowFloat.BFLOAT16.fromFloat(Float.MAX_VALUE));
        assertEquals(0x0001, NarrowFloat.BFLOAT16.fromFloat(Float.intBitsToFloat(0x00010000)));
        assertEquals(0x0000, NarrowFloat.BFLOAT16.fromFloat(Float.MIN_VALUE));
        assertEquals(0x3eab, NarrowFloat.BFLOAT16.fromFloat(1.0f / 3));
        assertEquals(Float.intBitsToFloat(0x7f7f0000), NarrowFloat.BFLOAT16.toFloat(0x7f7f));
    }

    @Test
    void shouldSaturateWhenConvertingToE4m3()
    {
        assertEquals(0x38, NarrowFloat.E4M3.fromFloat(1.0f));
        assertEquals(0x7e, NarrowFloat.E4M3.fromFloat(448f));
        assertEquals(0x7e, NarrowFloat.E4M3.fromFloat(460f));
        assertEquals(0x7e, NarrowFloat.E4M3.fromFloat(1e6f));
        assertEquals(0x7e, NarrowFloat.E4M3.fromFloat(Float.POSITIVE_INFINITY));
        assertEquals(0xfe, NarrowFloat.E4M3.fromFloat(Float.NEGATIVE_INFINITY));
        assertEquals(0x01, NarrowFloat.E4M3.fromFloat(0x1p-9f));
        assertEquals(0x00, NarrowFloat.E4M3.fromFloat(0x1p-10f));
        assertEquals(0x7f, NarrowFloat.E4M3.fromFloat(Float.NaN));
        assertEquals(448f, NarrowFloat.E4M3.toFloat(0x7e));
        assertEquals(256f, NarrowFloat.E4M3.toFloat(0x78));
        assertTrue(Float.isNaN(NarrowFloat.E4M3.toFloat(0xff)));
    }

    @Test
    void shouldSaturateWhenConvertingToE5m2()
    {
        assertEquals(0x3c, NarrowFloat.E5M2.fromFloat(1.0f));
        assertEquals(0x7b, NarrowFloat.E5M2.fromFloat(57344f));
        assertEquals(0x7b, NarrowFloat.E5M2.fromFloat(1e9f));
        assertEquals(0x7b, NarrowFloat.E5M2.fromFloat(Float.POSITIVE_INFINITY));
        assertEquals(0xfb, NarrowFloat.E5M2.fromFloat(-65536f));
        assertEquals(0x01, NarrowFloat.E5M2.fromFloat(0x1p-16f));
        assertEquals(Float.POSITIVE_INFINITY, NarrowFloat.E5M2.toFloat(0x7c));
        assertTrue(Float.isNaN(NarrowFloat.E5M2.toFloat(0x7d)));
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void shouldRoundTripEveryEncodingWhenNotNaN(final DataType type)
    {
        final int width = 8 * type.byteSize();
        for (int bits = 0; bits < (1 << width); bits++)
        {
            final float value = NarrowFloat.of(type).toFloat(bits);
            // saturating formats map an infinity to the largest finite value by design
            if (!Float.isNaN(value) && !(Float.isInfinite(value) && NarrowFloat.of(type).saturating()))
            {
                assertEquals(bits, NarrowFloat.of(type).fromFloat(value), () -> type + " " + Integer.toHexString(
                    NarrowFloat.of(type).fromDouble(value)));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void shouldRoundToNearestEvenWhenBetweenNeighbours(final DataType type)
    {
        final NarrowFloat format = NarrowFloat.of(type);
        // walk the positive finite encodings in order; neighbours differ by one in the encoding
        for (int bits = 0; bits < format.maxFiniteBits(); bits++)
        {
            final float low = NarrowFloat.of(type).toFloat(bits);
            final float high = NarrowFloat.of(type).toFloat(bits + 1);
            final float middle = (float)(((double)low + high) / 2); // exact: at most 12 significant bits
            final int even = (bits & 1) == 0 ? bits : bits + 1;
            final int b = bits;
            assertEquals(even, NarrowFloat.of(type).fromFloat(middle), () -> type + " tie above 0x" +
                Integer.toHexString(b));
            assertEquals(bits, NarrowFloat.of(type).fromFloat(Math.nextDown(middle)));
            assertEquals(bits + 1, NarrowFloat.of(type).fromFloat(Math.nextUp(middle)));
            assertEquals(bits | format.signBit(), NarrowFloat.of(type).fromFloat(-Math.nextDown(middle)));
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void shouldRoundAsExactSearchWhenNearEveryMidpoint(final DataType type)
    {
        final NarrowFloat format = NarrowFloat.of(type);
        for (int bits = 0; bits <= format.maxFiniteBits(); bits++)
        {
            final double low = format.toDouble(bits);
            assertEquals(bits, format.roundExact(low), () -> format + " decodes and re-encodes");
            final double midpoint = (low + format.nextAbove(bits)) / 2;
            final double nudge = midpoint * 0x1p-40;
            for (final double value : new double[]{midpoint, midpoint + nudge, midpoint - nudge,
                Math.nextUp(midpoint), Math.nextDown(midpoint), low})
            {
                assertEquals(format.roundExact(value), format.fromDouble(value), () -> format + " " + value);
                assertEquals(format.roundExact(-value), format.fromDouble(-value), () -> format + " " + -value);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void shouldRoundAsExactSearchWhenRandomDoubles(final DataType type)
    {
        final NarrowFloat format = NarrowFloat.of(type);
        final Random random = new Random(type.ordinal());
        for (int i = 0; i < 20_000; i++)
        {
            // exponents across the format's range, its subnormals and a little beyond both ends
            final int exponent = random.nextInt(2 * format.bias() + format.mantissaBits() + 6) - format.bias() -
                format.mantissaBits() - 3;
            final double value = Math.scalb(1 + random.nextDouble(), exponent) * (random.nextBoolean() ? 1 : -1);
            assertEquals(format.roundExact(value), format.fromDouble(value), () -> format + " " + value);
        }
        for (final double value : new double[]{0.0, -0.0, Double.MIN_VALUE, Double.MAX_VALUE,
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, format.maxFinite(), format.minSubnormal() / 2,
            format.minNormal()})
        {
            assertEquals(format.roundExact(value), format.fromDouble(value), () -> format + " " + value);
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void shouldGiveCanonicalNaNWithSignWhenEncodingNaN(final DataType type)
    {
        final NarrowFloat format = NarrowFloat.of(type);
        assertEquals(format.nanBits(), format.fromDouble(Double.NaN));
        // written as bits: Java's unary minus need not flip a NaN's sign
        final double negativeNaN = Double.longBitsToDouble(0xfff8_0000_0000_0000L);
        assertEquals(format.signBit() | format.nanBits(), format.fromDouble(negativeNaN));
        assertEquals(format.nanBits(), format.roundExact(Double.NaN));
        assertTrue(format.isNaN(format.nanBits()));
        assertTrue(format.isSpecial(format.nanBits()));
        assertFalse(format.isSpecial(format.maxFiniteBits()));
        assertTrue(format.isSpecial(format.maxFiniteBits() + 1), "infinity, or E4M3's NaN");
        assertEquals(format.hasInfinity(), format.isInfinite(format.maxFiniteBits() + 1));
        assertEquals(format.hasInfinity(), format.infinityBits() > 0);
    }

    @Test
    void shouldKnowEachFormatsLimitsWhenAsked()
    {
        assertEquals(65504.0, NarrowFloat.FLOAT16.maxFinite());
        assertEquals(0x1p-24, NarrowFloat.FLOAT16.minSubnormal());
        assertEquals(0x1p-14, NarrowFloat.FLOAT16.minNormal());
        assertEquals(0x7c00, NarrowFloat.FLOAT16.infinityBits());
        assertEquals(0x1p-133, NarrowFloat.BFLOAT16.minSubnormal());
        assertEquals(448.0, NarrowFloat.E4M3.maxFinite());
        assertEquals(-1, NarrowFloat.E4M3.infinityBits());
        assertEquals(0x1p-9, NarrowFloat.E4M3.minSubnormal());
        assertEquals(57344.0, NarrowFloat.E5M2.maxFinite());
        assertEquals(0x1p-16, NarrowFloat.E5M2.minSubnormal());
        assertEquals(65536, NarrowFloat.BFLOAT16.codeCount());
        assertEquals(256, NarrowFloat.E5M2.codeCount());
        assertTrue(NarrowFloat.isNarrow(DataType.FLOAT8_E4M3));
        assertFalse(NarrowFloat.isNarrow(DataType.FLOAT32));
    }
}
