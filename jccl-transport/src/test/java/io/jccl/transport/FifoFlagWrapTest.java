package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.kernels.HostDevice;
import io.jccl.kernels.LlCodec;
import org.agrona.UnsafeApi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A FIFO's flags across their wrap-around, reached by moving both idle ends to a slot sequence just before it
 * ({@link MemoryFifo#restartAt}), as billions of slots would: every slot arrives exactly, none reads as arrived before
 * it was published, and under LL a word left by an older, longer slot never reads as part of a new one.
 */
class FifoFlagWrapTest
{
    private static final int SLOTS = FifoDescriptor.SLOTS;

    /** Slot sequences whose flags wrap (LL's period, 32 bits) or lie at a half period (where LL fills its slots). */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void shouldDeliverEverySlotExactlyAcrossTheFlagsWrap(final Protocol protocol)
    {
        for (final long start : new long[] {LlCodec.LL_FLAG_PERIOD - 20, LlCodec.LL_FLAG_PERIOD / 2 - 20,
            (1L << 32) - 20})
        {
            final MemoryFifo fifo = new MemoryFifo(HostDevice.INSTANCE, protocol, 0, 1);
            try
            {
                fifo.restartAt(start);
                final SendConnector sender = fifo.sender();
                final RecvConnector receiver = fifo.receiver();
                final int capacity = sender.slotLength();
                for (int i = 0; i < 48; i++)
                {
                    // lengths that grow and shrink, so later slots' ends lie past earlier ones' and short of them
                    final int length = Math.max(4, (int)((long)capacity * ((i * 7) % 11) / 10) / 4 * 4);
                    assertFalse(receiver.hasData(), "slot " + (start + i) + " reads as arrived before it was sent");
                    assertTrue(sender.hasSpace());
                    final long out = sender.slotAddress();
                    for (int b = 0; b < length; b += 4)
                    {
                        UnsafeApi.putInt(out + b, (int)(start + i) * 31 + b);
                    }
                    sender.publish(length, start + i, 0, 0);
                    assertTrue(receiver.hasData(), "slot " + (start + i));
                    assertEquals(length, receiver.dataLength());
                    final long in = receiver.slotAddress();
                    for (int b = 0; b < length; b += 4)
                    {
                        assertEquals((int)(start + i) * 31 + b, UnsafeApi.getInt(in + b), "slot " + (start + i) +
                            " byte " + b);
                    }
                    receiver.release();
                }
            }
            finally
            {
                fifo.close();
            }
        }
    }

    /**
     * An LL slot filled to its end at sequence s, then only short slots (which leave its later words as they were),
     * then the same ring position with the same flag again at s + LL_FLAG_PERIOD. While the sender has written only
     * the new slot's header and first word, the receiver must not find its later words arrived: the fill at each
     * half period rewrote them with other flags. Without the fill they still carry the old flag and the slot decodes
     * at once, with the old data (as it did before, 2^32 slots apart, when the flags were the low 32 bits of the
     * sequence and nothing was filled).
     */
    @ParameterizedTest(name = "long slot at {0}")
    @ValueSource(longs = {100, (1L << 30) + 5})
    void shouldNotReadWordsOfAnOlderSlotWhenItsFlagComesRoundAgain(final long first)
    {
        final MemoryFifo fifo = new MemoryFifo(HostDevice.INSTANCE, Protocol.LL, 0, 1);
        try
        {
            final SendConnector sender = fifo.sender();
            final RecvConnector receiver = fifo.receiver();
            final int capacity = sender.slotLength() / 4 * 4;
            fifo.restartAt(first);
            send(sender, receiver, capacity, 0x5A5A_0000);
            // the short slots in between, through every half period's last turn of the ring
            for (long half = (first / (LlCodec.LL_FLAG_PERIOD / 2) + 1) * (LlCodec.LL_FLAG_PERIOD / 2);
                half <= first + LlCodec.LL_FLAG_PERIOD; half += LlCodec.LL_FLAG_PERIOD / 2)
            {
                fifo.restartAt(half - SLOTS);
                for (int i = 0; i < SLOTS; i++)
                {
                    send(sender, receiver, 4, i);
                }
            }
            final long again = first + LlCodec.LL_FLAG_PERIOD;
            assertEquals(LlCodec.llFlag(first), LlCodec.llFlag(again));
            fifo.restartAt(again);
            // the sender has written the header (a full slot's length) and the first word, nothing more
            final long header = fifo.headerAddress(again);
            UnsafeApi.putInt(header + FifoDescriptor.HEADER_DATA_LENGTH, capacity);
            UnsafeApi.putLongRelease(null, fifo.wireSlot(again), (long)LlCodec.llFlag(again) << 32 | 7);
            assertFalse(receiver.hasData(), "words of the slot sent " + LlCodec.LL_FLAG_PERIOD + " slots before " +
                "read as arrived");
        }
        finally
        {
            fifo.close();
        }
    }

    private static void send(final SendConnector sender, final RecvConnector receiver, final int length,
        final int seed)
    {
        final long out = sender.slotAddress();
        for (int b = 0; b < length; b += 4)
        {
            UnsafeApi.putInt(out + b, seed + b);
        }
        sender.publish(length, 1, 0, 0);
        assertTrue(receiver.hasData());
        receiver.release();
    }
}
