package io.jccl.kernels;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The one LL/LL128 codec: every length round-trips byte for byte, each LL word carries its data in the low half and
 * the flag in the high half (the layout the CUDA kernel reads), and a reader stops at the first unit whose flag has
 * not arrived and resumes there.
 */
class LlCodecTest
{
    private static final int MAX = 4096;
    private long payload;
    private long wire;
    private long out;

    @BeforeEach
    void allocate()
    {
        payload = UnsafeApi.allocateMemory(MAX + 8);
        wire = UnsafeApi.allocateMemory(4 * MAX);
        out = UnsafeApi.allocateMemory(MAX + 8);
    }

    @AfterEach
    void free()
    {
        UnsafeApi.freeMemory(payload);
        UnsafeApi.freeMemory(wire);
        UnsafeApi.freeMemory(out);
    }

    private void fill(final int bytes, final int seed)
    {
        for (int i = 0; i < bytes + 4; i++)
        {
            UnsafeApi.putByte(payload + i, (byte)(seed * 13 + i * 7 + (i >>> 8)));
        }
    }

    private void assertSame(final int bytes)
    {
        for (int i = 0; i < bytes; i++)
        {
            assertEquals(UnsafeApi.getByte(payload + i), UnsafeApi.getByte(out + i), "byte " + i + " of " + bytes);
        }
    }

    @Test
    void llWordsRoundTripEveryLengthWithTheFlagInTheHighHalf()
    {
        for (int bytes = 0; bytes <= 1100; bytes++)
        {
            fill(bytes, bytes);
            final int words = LlCodec.llWords(bytes);
            assertEquals(Math.max(1, (bytes + 3) / 4), words);
            LlCodec.packWords(payload, wire, words, bytes + 1);
            for (int w = 0; w < words; w++)
            {
                assertEquals(bytes + 1, UnsafeApi.getInt(wire + 8L * w + 4), "flag of word " + w);
                assertEquals(UnsafeApi.getInt(payload + 4L * w), UnsafeApi.getInt(wire + 8L * w), "data of word " + w);
            }
            assertEquals(words, LlCodec.unpackArrivedWords(wire, out, 0, words, bytes + 1));
            assertSame(bytes);
        }
    }

    @Test
    void llReaderStopsAtTheFirstWordWithoutTheFlagAndResumesThere()
    {
        final int bytes = 400;
        fill(bytes, 5);
        final int words = LlCodec.llWords(bytes);
        LlCodec.packWords(payload, wire, words, 7);
        UnsafeApi.putInt(wire + 8L * 60 + 4, 6);
        assertEquals(60, LlCodec.arrivedWords(wire, 0, words, 7));
        assertEquals(60, LlCodec.unpackArrivedWords(wire, out, 0, words, 7));
        assertEquals(0, LlCodec.arrivedWords(wire, 0, words, 8), "an old slot's flag is not this slot's");
        UnsafeApi.putInt(wire + 8L * 60 + 4, 7);
        assertEquals(words, LlCodec.unpackArrivedWords(wire, out, 60, words, 7));
        assertSame(bytes);
    }

    @Test
    void llUnpackOfCheckedWordsMatchesTheirPayload()
    {
        fill(256, 9);
        LlCodec.packWords(payload, wire, 64, 3);
        assertEquals(64, LlCodec.arrivedWords(wire, 0, 64, 3));
        LlCodec.unpackWords(wire, out, 64);
        assertSame(256);
    }

    @Test
    void ll128LinesRoundTripEveryLengthWithTheFlagAfterEachLine()
    {
        for (int bytes = 0; bytes <= 1000; bytes += 7)
        {
            fill(bytes, bytes);
            LlCodec.packLines(payload, wire, bytes, 1000L + bytes);
            final int lines = LlCodec.ll128Lines(bytes);
            assertEquals(Math.max(1, (bytes + 119) / 120), lines);
            for (int l = 0; l < lines; l++)
            {
                assertEquals(1000L + bytes, UnsafeApi.getLong(wire + 128L * l + 120), "flag of line " + l);
            }
            assertEquals(lines, LlCodec.unpackArrivedLines(wire, out, 0, bytes, 1000L + bytes));
            assertSame(bytes);
        }
    }

    @Test
    void ll128ReaderStopsAtTheFirstLineWithoutTheFlagAndResumesThere()
    {
        final int bytes = 1000;
        fill(bytes, 2);
        LlCodec.packLines(payload, wire, bytes, 4);
        UnsafeApi.putLong(wire + 128L * 5 + 120, 3);
        assertEquals(5, LlCodec.unpackArrivedLines(wire, out, 0, bytes, 4));
        UnsafeApi.putLong(wire + 128L * 5 + 120, 4);
        assertEquals(LlCodec.ll128Lines(bytes), LlCodec.unpackArrivedLines(wire, out, 5, bytes, 4));
        assertSame(bytes);
    }
}
