package io.jccl.djl;

import io.jccl.testkit.NarrowFloat;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The conversions against jccl-testkit's reference, over every 16-bit code and a stride of every float. */
class NarrowFloatsTest
{
    @Test
    void shouldWidenEveryCodeAsTheReferenceDoes()
    {
        for (int code = 0; code < 0x10000; code++)
        {
            check(NarrowFloat.FLOAT16.toFloat(code), NarrowFloats.fromFloat16((short)code), "float16 " + code);
            check(NarrowFloat.BFLOAT16.toFloat(code), NarrowFloats.fromBfloat16((short)code), "bfloat16 " + code);
        }
    }

    @Test
    void shouldRoundFloatsToNearestEvenAsTheReferenceDoes()
    {
        // a stride prime to 2^32 visits every exponent and many mantissas; the edges are added one by one
        final float[] edges = {0f, -0f, 65504f, 65519.996f, 65520f, 0x1p-24f, 0x1p-25f, 0x1.000002p-25f, 0x1p-14f,
            0x1.ffcp-15f, Float.MIN_VALUE, Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
            1.00048828125f, 1.00146484375f};
        for (final float edge : edges)
        {
            checkNarrowing(edge);
            checkNarrowing(-edge);
        }
        for (long bits = 0; bits < (1L << 32); bits += 16411)
        {
            checkNarrowing(Float.intBitsToFloat((int)bits));
        }
    }

    private static void checkNarrowing(final float value)
    {
        final int float16 = NarrowFloats.toFloat16(value) & 0xffff;
        final int bfloat16 = NarrowFloats.toBfloat16(value) & 0xffff;
        if (Float.isNaN(value))
        {
            assertTrue(NarrowFloat.FLOAT16.isNaN(float16) && NarrowFloat.BFLOAT16.isNaN(bfloat16), "NaN " + value);
            return;
        }
        assertEquals(NarrowFloat.FLOAT16.fromFloat(value), float16, "float16 of " + value);
        assertEquals(NarrowFloat.BFLOAT16.fromFloat(value), bfloat16, "bfloat16 of " + value);
    }

    private static void check(final float expected, final float actual, final String what)
    {
        if (Float.isNaN(expected))
        {
            assertTrue(Float.isNaN(actual), what);
        }
        else
        {
            assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(actual), what);
        }
    }
}
