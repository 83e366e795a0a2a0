package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.HostBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ElementCodecTest
{
    private static final ElementCodec HALF = ElementCodec.of(DataType.FLOAT16);
    private static final ElementCodec BF16 = ElementCodec.of(DataType.BFLOAT16);
    private static final ElementCodec E4M3 = ElementCodec.of(DataType.FLOAT8_E4M3);
    private static final ElementCodec E5M2 = ElementCodec.of(DataType.FLOAT8_E5M2);

    @Test
    void shouldEncodeIeeeHalfWhenKnownValues()
    {
        assertEquals(0x3C00, HALF.fromDouble(1.0));
        assertEquals(0xC000, HALF.fromDouble(-2.0));
        assertEquals(0x7BFF, HALF.fromDouble(65504));
        assertEquals(0x0001, HALF.fromDouble(0x1p-24));
        assertEquals(0x0400, HALF.fromDouble(0x1p-14));
        assertEquals(0x7C00, HALF.fromDouble(65520));
        assertEquals(0x3555, HALF.fromDouble(1.0 / 3));
        assertEquals(0x8000, HALF.fromDouble(-0.0));
        assertEquals(2048.0, HALF.toDouble(HALF.fromDouble(2048)));
        assertEquals(2048.0, HALF.toDouble(HALF.fromDouble(2049)), "2049 ties to even 2048");
        assertEquals(2052.0, HALF.toDouble(HALF.fromDouble(2051)), "2051 ties to even 2052");
        assertTrue(Double.isInfinite(HALF.toDouble(0x7C00)));
        assertTrue(Double.isNaN(HALF.toDouble(0x7E00)));
    }

    @Test
    void shouldEncodeBfloat16WhenKnownValues()
    {
        assertEquals(0x3F80, BF16.fromDouble(1.0));
        assertEquals(0xC2F7, BF16.fromDouble(-123.5));
        assertEquals(256.0, BF16.toDouble(BF16.fromDouble(257)), "257 ties to even 256");
        assertEquals(1.0, BF16.toDouble(0x3F80));
    }

    @Test
    void shouldSaturateWhenFp8Overflows()
    {
        assertEquals(0x38, E4M3.fromDouble(1.0));
        assertEquals(0x7E, E4M3.fromDouble(448));
        assertEquals(0x7E, E4M3.fromDouble(1000), "SATFINITE");
        assertEquals(0xFE, E4M3.fromDouble(-1000));
        assertEquals(0x7F, E4M3.fromDouble(Double.NaN));
        assertEquals(0x01, E4M3.fromDouble(0x1p-9));
        assertTrue(Double.isNaN(E4M3.toDouble(0x7F)));
        assertEquals(448.0, E4M3.toDouble(0x7E));
        assertEquals(0x3C, E5M2.fromDouble(1.0));
        assertEquals(0x7B, E5M2.fromDouble(57344));
        assertEquals(0x7B, E5M2.fromDouble(1e6));
        assertTrue(Double.isInfinite(E5M2.toDouble(0x7C)));
    }

    @Test
    void shouldRoundTripEveryFiniteFp8WhenDecodedThenEncoded()
    {
        for (final ElementCodec codec : new ElementCodec[] {E4M3, E5M2})
        {
            for (long raw = 0; raw < 256; raw++)
            {
                if (!codec.isSpecial(raw))
                {
                    assertEquals(raw, codec.fromDouble(codec.toDouble(raw)), codec.type() + " 0x" + Long.toHexString(raw));
                }
            }
        }
    }

    @Test
    void shouldRoundTripEveryFiniteHalfWhenDecodedThenEncoded()
    {
        for (final ElementCodec codec : new ElementCodec[] {HALF, BF16})
        {
            for (long raw = 0; raw < 65536; raw++)
            {
                if (!codec.isSpecial(raw))
                {
                    assertEquals(raw, codec.fromDouble(codec.toDouble(raw)), codec.type() + " 0x" + Long.toHexString(raw));
                }
            }
        }
    }

    @Test
    void shouldKnowExactIntegerRangeWhenFloatingType()
    {
        assertEquals(2048, HALF.exactIntegerBound());
        assertEquals(256, BF16.exactIntegerBound());
        assertEquals(16, E4M3.exactIntegerBound());
        assertEquals(8, E5M2.exactIntegerBound());
        assertEquals(1L << 24, ElementCodec.of(DataType.FLOAT32).exactIntegerBound());
        assertEquals(1L << 53, ElementCodec.of(DataType.FLOAT64).exactIntegerBound());
        for (final ElementCodec codec : new ElementCodec[] {HALF, BF16, E4M3, E5M2})
        {
            for (long v = 0; v <= codec.exactIntegerBound(); v++)
            {
                assertEquals(v, codec.toDouble(codec.fromDouble(v)), codec.type() + " " + v);
            }
            assertFalse(codec.toDouble(codec.fromDouble(codec.exactIntegerBound() + 1)) ==
                codec.exactIntegerBound() + 1);
        }
    }

    @Test
    void shouldSignExtendWhenSignedInteger()
    {
        final ElementCodec int8 = ElementCodec.of(DataType.INT8);
        assertEquals(-1, int8.toLong(0xFF));
        assertEquals(0xFF, int8.wrap(-1));
        assertEquals(255, ElementCodec.of(DataType.UINT8).toLong(0xFF));
        assertEquals(-2, ElementCodec.of(DataType.INT32).toLong(0xFFFF_FFFEL));
        assertEquals(0xFFFF_FFFEL, ElementCodec.of(DataType.UINT32).toLong(0xFFFF_FFFEL));
        assertEquals(-1L, ElementCodec.of(DataType.UINT64).wrap(-1L));
    }

    @Test
    void shouldWriteNativeOrderWhenHostBuffer()
    {
        final HostBuffer buffer = HostBuffer.allocate(64);
        final ByteBuffer bytes = buffer.byteBuffer();
        final ElementCodec int32 = ElementCodec.of(DataType.INT32);
        int32.write(bytes, 4, int32.wrap(-5));
        assertEquals(-5, bytes.getInt(4));
        assertEquals(-5, int32.toLong(int32.read(bytes, 4)));
        final ElementCodec float64 = ElementCodec.of(DataType.FLOAT64);
        float64.write(bytes, 8, float64.fromDouble(2.5));
        assertEquals(2.5, bytes.getDouble(8));
        HALF.write(bytes, 16, 0x3C00);
        assertEquals((short)0x3C00, bytes.getShort(16));
    }
}
