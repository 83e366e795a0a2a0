package io.jccl.core;

import io.jccl.DataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Self-tests of the reference model's conversions: known encodings and exhaustive round-to-nearest-even. */
class ReferenceFloatsTest
{
    @Test
    void shouldEncodeKnownHalfValuesWhenConvertingFromFloat()
    {
        assertEquals(0x3c00, ReferenceFloats.fromFloat(DataType.FLOAT16, 1.0f));
        assertEquals(0xc000, ReferenceFloats.fromFloat(DataType.FLOAT16, -2.0f));
        assertEquals(0x7bff, ReferenceFloats.fromFloat(DataType.FLOAT16, 65504f));
        assertEquals(0x7bff, ReferenceFloats.fromFloat(DataType.FLOAT16, 65519.99f));
        assertEquals(0x7c00, ReferenceFloats.fromFloat(DataType.FLOAT16, 65520f));
        assertEquals(0xfc00, ReferenceFloats.fromFloat(DataType.FLOAT16, Float.NEGATIVE_INFINITY));
        assertEquals(0x0001, ReferenceFloats.fromFloat(DataType.FLOAT16, 0x1p-24f));
        assertEquals(0x0000, ReferenceFloats.fromFloat(DataType.FLOAT16, 0x1p-25f));
        assertEquals(0x0001, ReferenceFloats.fromFloat(DataType.FLOAT16, 0x1.8p-25f));
        assertEquals(0x0400, ReferenceFloats.fromFloat(DataType.FLOAT16, 0x1p-14f));
        assertEquals(0x3c00, ReferenceFloats.fromFloat(DataType.FLOAT16, 1.0f + 0x1p-11f));
        assertEquals(0x3c02, ReferenceFloats.fromFloat(DataType.FLOAT16, 1.0f + 0x3p-11f));
        assertEquals(0x8000, ReferenceFloats.fromFloat(DataType.FLOAT16, -0.0f));
        assertEquals(0x3555, ReferenceFloats.fromFloat(DataType.FLOAT16, 1.0f / 3));
        assertTrue(ReferenceFloats.HALF.isNaN((int)ReferenceFloats.fromFloat(DataType.FLOAT16, Float.NaN)));
        assertEquals(65504f, ReferenceFloats.toFloat(DataType.FLOAT16, 0x7bff));
        assertEquals(0x1p-24f, ReferenceFloats.toFloat(DataType.FLOAT16, 0x0001));
        assertEquals(Float.POSITIVE_INFINITY, ReferenceFloats.toFloat(DataType.FLOAT16, 0x7c00));
        assertTrue(Float.isNaN(ReferenceFloats.toFloat(DataType.FLOAT16, 0x7c01)));
    }

    @Test
    void shouldEncodeKnownBfloat16ValuesWhenConvertingFromFloat()
    {
        assertEquals(0x3f80, ReferenceFloats.fromFloat(DataType.BFLOAT16, 1.0f));
        assertEquals(0x3f80, ReferenceFloats.fromFloat(DataType.BFLOAT16, Float.intBitsToFloat(0x3f808000)));
        assertEquals(0x3f82, ReferenceFloats.fromFloat(DataType.BFLOAT16, Float.intBitsToFloat(0x3f818000)));
        assertEquals(0x3f81, ReferenceFloats.fromFloat(DataType.BFLOAT16, Float.intBitsToFloat(0x3f808001)));
        assertEquals(0x7f7f, ReferenceFloats.fromFloat(DataType.BFLOAT16, Float.intBitsToFloat(0x7f7f7fff)));
        assertEquals(0x7f80, ReferenceFloats.fromFloat(DataType.BFLOAT16, Float.MAX_VALUE));
        assertEquals(0x0001, ReferenceFloats.fromFloat(DataType.BFLOAT16, Float.intBitsToFloat(0x00010000)));
        assertEquals(0x0000, ReferenceFloats.fromFloat(DataType.BFLOAT16, Float.MIN_VALUE));
        assertEquals(0x3eab, ReferenceFloats.fromFloat(DataType.BFLOAT16, 1.0f / 3));
        assertEquals(Float.intBitsToFloat(0x7f7f0000), ReferenceFloats.toFloat(DataType.BFLOAT16, 0x7f7f));
    }

    @Test
    void shouldSaturateWhenConvertingToE4m3()
    {
        assertEquals(0x38, ReferenceFloats.fromFloat(DataType.FLOAT8_E4M3, 1.0f));
        assertEquals(0x7e, ReferenceFloats.fromFloat(DataType.FLOAT8_E4M3, 448f));
        assertEquals(0x7e, ReferenceFloats.fromFloat(DataType.FLOAT8_E4M3, 460f));
        assertEquals(0x7e, ReferenceFloats.fromFloat(DataType.FLOAT8_E4M3, 1e6f));
        assertEquals(0x7e, ReferenceFloats.fromFloat(DataType.FLOAT8_E4M3, Float.POSITIVE_INFINITY));
        assertEquals(0xfe, ReferenceFloats.fromFloat(DataType.FLOAT8_E4M3, Float.NEGATIVE_INFINITY));
        assertEquals(0x01, ReferenceFloats.fromFloat(DataType.FLOAT8_E4M3, 0x1p-9f));
        assertEquals(0x00, ReferenceFloats.fromFloat(DataType.FLOAT8_E4M3, 0x1p-10f));
        assertEquals(0x7f, ReferenceFloats.fromFloat(DataType.FLOAT8_E4M3, Float.NaN));
        assertEquals(448f, ReferenceFloats.toFloat(DataType.FLOAT8_E4M3, 0x7e));
        assertEquals(256f, ReferenceFloats.toFloat(DataType.FLOAT8_E4M3, 0x78));
        assertTrue(Float.isNaN(ReferenceFloats.toFloat(DataType.FLOAT8_E4M3, 0xff)));
    }

    @Test
    void shouldSaturateWhenConvertingToE5m2()
    {
        assertEquals(0x3c, ReferenceFloats.fromFloat(DataType.FLOAT8_E5M2, 1.0f));
        assertEquals(0x7b, ReferenceFloats.fromFloat(DataType.FLOAT8_E5M2, 57344f));
        assertEquals(0x7b, ReferenceFloats.fromFloat(DataType.FLOAT8_E5M2, 1e9f));
        assertEquals(0x7b, ReferenceFloats.fromFloat(DataType.FLOAT8_E5M2, Float.POSITIVE_INFINITY));
        assertEquals(0xfb, ReferenceFloats.fromFloat(DataType.FLOAT8_E5M2, -65536f));
        assertEquals(0x01, ReferenceFloats.fromFloat(DataType.FLOAT8_E5M2, 0x1p-16f));
        assertEquals(Float.POSITIVE_INFINITY, ReferenceFloats.toFloat(DataType.FLOAT8_E5M2, 0x7c));
        assertTrue(Float.isNaN(ReferenceFloats.toFloat(DataType.FLOAT8_E5M2, 0x7d)));
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void shouldRoundTripEveryEncodingWhenNotNaN(final DataType type)
    {
        final int width = 8 * type.byteSize();
        for (int bits = 0; bits < (1 << width); bits++)
        {
            final float value = ReferenceFloats.toFloat(type, bits);
            // saturating formats map an infinity to the largest finite value by design
            if (!Float.isNaN(value) && !(Float.isInfinite(value) && ReferenceFloats.format(type).saturating))
            {
                assertEquals(bits, ReferenceFloats.fromFloat(type, value), () -> type + " " + Integer.toHexString(
                    ReferenceFloats.format(type).fromDouble(value)));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void shouldRoundToNearestEvenWhenBetweenNeighbours(final DataType type)
    {
        final ReferenceFloats.Format format = ReferenceFloats.format(type);
        // walk the positive finite encodings in order; neighbours differ by one in the encoding
        for (int bits = 0; bits < format.maxFiniteBits; bits++)
        {
            final float low = ReferenceFloats.toFloat(type, bits);
            final float high = ReferenceFloats.toFloat(type, bits + 1);
            final float middle = (float)(((double)low + high) / 2); // exact: at most 12 significant bits
            final int even = (bits & 1) == 0 ? bits : bits + 1;
            final int b = bits;
            assertEquals(even, ReferenceFloats.fromFloat(type, middle), () -> type + " tie above 0x" +
                Integer.toHexString(b));
            assertEquals(bits, ReferenceFloats.fromFloat(type, Math.nextDown(middle)));
            assertEquals(bits + 1, ReferenceFloats.fromFloat(type, Math.nextUp(middle)));
            assertEquals(bits | format.signBit, ReferenceFloats.fromFloat(type, -Math.nextDown(middle)));
        }
    }
}
