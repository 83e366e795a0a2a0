package io.jccl.kernels.cuda;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The kernels' piece size: whole 128-byte lines where one fits, and every step's pieces inside one slot. */
class DeviceLayoutTest
{
    private static final int SIMPLE = 0;
    private static final int LL = 1;

    @Test
    void shouldCutThreeFloatChunksOfASimpleSlotIntoWholeLines()
    {
        // (524,288 - 3 x 16) / 3 = 174,746 bytes fit: 174,720 of them are whole 128-byte lines
        assertEquals(174_720 / Float.BYTES, DeviceLayout.pieceCount(SIMPLE, Long.MAX_VALUE, 3, Float.BYTES));
    }

    @Test
    void shouldKeepThePlansChunkWhereItIsAWholeNumberOfLinesOrBelowOne()
    {
        assertEquals(32768 / Float.BYTES, DeviceLayout.pieceCount(SIMPLE, 32768, 1, Float.BYTES));
        assertEquals(896 / Float.BYTES, DeviceLayout.pieceCount(SIMPLE, 1000, 1, Float.BYTES));
        assertEquals(25, DeviceLayout.pieceCount(SIMPLE, 100, 1, Float.BYTES), "below one line: as the plan says");
        assertEquals(1, DeviceLayout.pieceCount(SIMPLE, 4, 1, Double.BYTES), "at least one element");
    }

    @Test
    void shouldFitEveryStepsPiecesInOneSlotAsWholeLines()
    {
        for (final int protocol : new int[] {SIMPLE, LL})
        {
            final long payload = DeviceLayout.payloadBytes(protocol);
            for (int chunks = 1; chunks <= 16; chunks++)
            {
                for (final int size : new int[] {1, 2, 4, 8})
                {
                    final long bytes = DeviceLayout.pieceCount(protocol, Long.MAX_VALUE, chunks, size) * size;
                    final String at = "protocol " + protocol + ", " + chunks + " chunks of " + size + "-byte elements";
                    assertEquals(0, bytes % DeviceLayout.PIECE_ALIGN, at);
                    assertTrue(chunks * DeviceLayout.alignRegion(bytes) <= payload, at + ": " + bytes + " bytes");
                    assertTrue(chunks * (bytes + DeviceLayout.PIECE_ALIGN + DeviceLayout.REGION_ALIGN) > payload,
                        at + ": " + bytes + " bytes leave a line of the slot unused");
                }
            }
        }
    }
}
