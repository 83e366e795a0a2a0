package io.jccl.kernels;

import org.agrona.UnsafeApi;

/**
 * jccl's one LL and LL128 codec on the Java side (NCCL's low-latency framings), used by the host FIFOs, the CUDA
 * proxy and the emulated interpreter alike, so the framing is written once as {@code cuda-src}'s kernels read it.
 * <ul>
 * <li>LL: 8-byte words {@code {uint32 data, uint32 flag}}; a word is published by one 64-bit release-store, so a
 * reader that sees the flag sees the data beside it. The reader polls each word's flag.</li>
 * <li>LL128: 128-byte lines of 120 data bytes and an 8-byte flag, the flag release-stored after the data.</li>
 * </ul>
 * Payload is packed and unpacked in whole 4-byte words (LL) or 120-byte lines (LL128): the payload buffers hold them
 * rounded up, and the bytes past a slot's length are padding no one reads. Nothing here allocates.
 */
public final class LlCodec
{
    /** Bytes of an LL word: 4 of data, 4 of flag. */
    public static final int LL_WORD = 8;
    /** Data bytes of an LL word. */
    public static final int LL_WORD_DATA = 4;
    /** Bytes of an LL128 line. */
    public static final int LL128_LINE = 128;
    /** Data bytes of an LL128 line; its last 8 bytes are the flag. */
    public static final int LL128_LINE_DATA = 120;
    /**
     * LL's flags run from 1 to this: never 0, which memory no sender wrote holds, and a FIFO's slot sequence k has
     * flag {@code k % LL_FLAG_PERIOD + 1} ({@link #llFlag}).
     */
    public static final long LL_FLAG_PERIOD = 1L << 31;

    private LlCodec()
    {
    }

    /**
     * @param bytes payload bytes.
     * @return the LL words that carry them (at least one, so even an empty slot has a flag).
     */
    public static int llWords(final long bytes)
    {
        return (int)Math.max(1, (bytes + LL_WORD_DATA - 1) / LL_WORD_DATA);
    }

    /**
     * @param bytes payload bytes.
     * @return the LL128 lines that carry them (at least one).
     */
    public static int ll128Lines(final long bytes)
    {
        return (int)Math.max(1, (bytes + LL128_LINE_DATA - 1) / LL128_LINE_DATA);
    }

    /**
     * Publishes payload as LL words: each word's data and flag in one release-store.
     *
     * @param payload where the data is, {@code 4 * words} bytes readable.
     * @param wire    where the words go.
     * @param words   how many.
     * @param flag    the slot's flag.
     */
    public static void packWords(final long payload, final long wire, final long words, final int flag)
    {
        final long high = (long)flag << 32;
        for (long i = 0; i < words; i++)
        {
            UnsafeApi.putLongRelease(null, wire + (i << 3), high | (UnsafeApi.getInt(payload + (i << 2)) &
                0xFFFF_FFFFL));
        }
    }

    /**
     * @param slot a FIFO's slot sequence number (its tail or head).
     * @return the flag of that slot's LL words.
     */
    public static int llFlag(final long slot)
    {
        return (int)((slot & (LL_FLAG_PERIOD - 1)) + 1);
    }

    /**
     * Whether a sender writes the whole of this slot ({@link #fillWords} past its data). LL words past a slot's data
     * keep what an earlier, longer slot left there; a flag repeats every {@link #LL_FLAG_PERIOD} slots, so a word left
     * exactly that many slots before would read as arrived. Twice a period, for one turn of the ring, every word of
     * every slot is written: no word a receiver polls is then older than a period.
     *
     * @param slot  the slot sequence number.
     * @param slots the slots of the FIFO's ring.
     * @return true for the last {@code slots} slots of each half period.
     */
    public static boolean llFillsSlot(final long slot, final int slots)
    {
        return (slot & (LL_FLAG_PERIOD / 2 - 1)) >= LL_FLAG_PERIOD / 2 - slots;
    }

    /**
     * Writes LL words that carry the flag and no data.
     *
     * @param wire the slot's words.
     * @param from the first word to write.
     * @param to   the word after the last.
     * @param flag the slot's flag.
     */
    public static void fillWords(final long wire, final long from, final long to, final int flag)
    {
        final long word = (long)flag << 32;
        for (long i = from; i < to; i++)
        {
            UnsafeApi.putLongRelease(null, wire + (i << 3), word);
        }
    }

    /**
     * Decodes the LL words of a slot that carry its flag, from a word on, stopping at the first that does not.
     *
     * @param wire    the slot's words.
     * @param payload where their data goes, {@code 4 * words} bytes writable.
     * @param from    the first word not yet decoded.
     * @param words   the slot's words.
     * @param flag    the slot's flag.
     * @return the first word still missing its flag, or {@code words} once all have arrived.
     */
    public static long unpackArrivedWords(final long wire, final long payload, final long from, final long words,
        final int flag)
    {
        for (long i = from; i < words; i++)
        {
            final long word = UnsafeApi.getLongAcquire(null, wire + (i << 3));
            if ((int)(word >>> 32) != flag)
            {
                return i;
            }
            UnsafeApi.putInt(payload + (i << 2), (int)word);
        }
        return words;
    }

    /**
     * @param wire  a slot's LL words.
     * @param from  the first word to look at.
     * @param words the slot's words.
     * @param flag  the slot's flag.
     * @return the first word from {@code from} on that does not carry the flag, or {@code words}.
     */
    public static long arrivedWords(final long wire, final long from, final long words, final int flag)
    {
        for (long i = from; i < words; i++)
        {
            if (UnsafeApi.getIntAcquire(null, wire + (i << 3) + LL_WORD_DATA) != flag)
            {
                return i;
            }
        }
        return words;
    }

    /**
     * Unpacks LL words whose flags were checked ({@link #arrivedWords}) or that a peer handed over whole.
     *
     * @param wire    the words.
     * @param payload where their data goes, {@code 4 * words} bytes writable.
     * @param words   how many.
     */
    public static void unpackWords(final long wire, final long payload, final long words)
    {
        for (long i = 0; i < words; i++)
        {
            UnsafeApi.putInt(payload + (i << 2), UnsafeApi.getInt(wire + (i << 3)));
        }
    }

    /**
     * Publishes payload as LL128 lines: each line's data, then its flag with release.
     *
     * @param payload where the data is.
     * @param wire    where the lines go.
     * @param bytes   payload bytes.
     * @param flag    the slot's flag.
     */
    public static void packLines(final long payload, final long wire, final int bytes, final long flag)
    {
        final int lines = ll128Lines(bytes);
        for (int i = 0; i < lines; i++)
        {
            final long line = wire + (long)i * LL128_LINE;
            copyLineData(payload + (long)i * LL128_LINE_DATA, line, bytes - i * LL128_LINE_DATA);
            UnsafeApi.putLongRelease(null, line + LL128_LINE_DATA, flag);
        }
    }

    /**
     * Decodes the LL128 lines of a slot that carry its flag, from a line on, stopping at the first that does not.
     *
     * @param wire    the slot's lines.
     * @param payload where their data goes.
     * @param from    the first line not yet decoded.
     * @param bytes   the slot's payload bytes.
     * @param flag    the slot's flag.
     * @return the first line still missing its flag, or the slot's line count once all have arrived.
     */
    public static int unpackArrivedLines(final long wire, final long payload, final int from, final int bytes,
        final long flag)
    {
        final int lines = ll128Lines(bytes);
        for (int i = from; i < lines; i++)
        {
            final long line = wire + (long)i * LL128_LINE;
            if (UnsafeApi.getLongAcquire(null, line + LL128_LINE_DATA) != flag)
            {
                return i;
            }
            copyLineData(line, payload + (long)i * LL128_LINE_DATA, bytes - i * LL128_LINE_DATA);
        }
        return lines;
    }

    /**
     * Copies a line's data: a whole line as 15 plain 8-byte moves, which the JIT keeps inline where a 120-byte {@code
     * copyMemory} calls the VM's copy stub per line (a 30 KiB slot packed and unpacked in one thread: 1.83-1.84 us
     * against 2.10-2.22 with the stub, {@code FifoSlotBenchmark.roundTrip -p payload=30720}), and the last, partial
     * line of a slot with {@code copyMemory}.
     *
     * @param from      where the data is.
     * @param to        where it goes.
     * @param remaining the slot's payload bytes from this line on.
     */
    private static void copyLineData(final long from, final long to, final int remaining)
    {
        if (remaining >= LL128_LINE_DATA)
        {
            for (int k = 0; k < LL128_LINE_DATA; k += Long.BYTES)
            {
                UnsafeApi.putLong(to + k, UnsafeApi.getLong(from + k));
            }
        }
        else if (remaining > 0)
        {
            UnsafeApi.copyMemory(from, to, remaining);
        }
    }
}
