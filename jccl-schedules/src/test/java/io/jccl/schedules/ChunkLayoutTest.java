package io.jccl.schedules;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ChunkLayoutTest
{
    @Test
    void shouldTileTheBufferWithoutGapsWhenSegmentedAndSliced()
    {
        for (final long elements : new long[] {0, 1, 7, 13, 1021, 1 << 20, Long.MAX_VALUE / 64})
        {
            for (final int segments : new int[] {1, 2, 3, 5, 8})
            {
                for (final int slices : new int[] {1, 2, 3, 32})
                {
                    final ChunkLayout layout = new ChunkLayout(segments, slices);
                    long next = 0;
                    for (int c = 0; c < layout.chunks(); c++)
                    {
                        assertEquals(next, layout.start(elements, c), "chunk " + c);
                        next += layout.length(elements, c);
                    }
                    assertEquals(elements, next);
                }
            }
        }
    }

    @Test
    void shouldKeepRankSegmentsIndependentOfSlicesWhenChannelsChange()
    {
        final long elements = 1021;
        for (int segment = 0; segment < 5; segment++)
        {
            final long start = new ChunkLayout(5, 1).start(elements, segment);
            final long length = new ChunkLayout(5, 1).length(elements, segment);
            final ChunkLayout sliced = new ChunkLayout(5, 7);
            assertEquals(start, sliced.start(elements, segment * 7));
            long sum = 0;
            for (int k = 0; k < 7; k++)
            {
                sum += sliced.length(elements, segment * 7 + k);
            }
            assertEquals(length, sum);
        }
    }

    @Test
    void shouldRejectEmptyLayoutWhenCountsAreZero()
    {
        assertThrows(IllegalArgumentException.class, () -> new ChunkLayout(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new ChunkLayout(1, 0));
    }
}
