package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.Protocol;
import io.jccl.Stream;
import io.jccl.TransportKind;
import io.jccl.Work;
import io.jccl.transport.ConnectorCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In place, an AllGather's or a Broadcast's own block is its output already, and the copy of it onto itself writes
 * nothing: the ring's sends read the block in place as they do out of place (P2P with SIMPLE), nothing is staged,
 * and the result is exact. A copy that premultiplies does write; that is AllReduce's business, not tested here.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class InPlaceDirectReadTest
{
    private static final int RANKS = 3;
    private static final long COUNT = 64 * 1024;

    @Test
    void shouldReadTheOwnBlockInPlaceAndStageNothingWhenAllGatherOrBroadcastRunsInPlace()
    {
        final Communicator[] comms = Jccl.initAll(new Context().algorithm(Algorithm.RING).protocol(Protocol.SIMPLE)
            .chunkBytes(64 * 1024), RANKS);
        final ConnectorCounters counters = ((LocalCommunicator)comms[0]).counters();
        final HostBuffer[] out = new HostBuffer[RANKS];
        for (int round = 0; round < 3; round++)
        {
            for (int r = 0; r < RANKS; r++)
            {
                out[r] = HostBuffer.allocate(RANKS * COUNT * 4);
                for (long i = 0; i < COUNT; i++)
                {
                    out[r].byteBuffer().putInt((int)((r * COUNT + i) * 4), value(r, i, round));
                }
            }
            final long staged = counters.bytesStaged(TransportKind.P2P);
            final long direct = counters.bytesDirect(TransportKind.P2P);
            final Work[] works = new Work[RANKS];
            Jccl.groupStart();
            for (int r = 0; r < RANKS; r++)
            {
                works[r] = comms[r].allGather(out[r].slice(r * COUNT * 4, COUNT * 4), out[r], COUNT, DataType.INT32,
                    Stream.DEFAULT);
            }
            Jccl.groupEnd();
            for (final Work w : works)
            {
                w.join();
            }
            for (int r = 0; r < RANKS; r++)
            {
                for (int q = 0; q < RANKS; q++)
                {
                    for (long i = 0; i < COUNT; i += 997)
                    {
                        assertEquals(value(q, i, round), out[r].byteBuffer().getInt((int)((q * COUNT + i) * 4)),
                            "AllGather rank " + r + " block " + q + " element " + i);
                    }
                }
            }
            assertEquals(0, counters.bytesStaged(TransportKind.P2P) - staged, "in-place AllGather stages nothing");
            assertTrue(counters.bytesDirect(TransportKind.P2P) - direct >= (RANKS - 1) * RANKS * COUNT * 4,
                "every block is read in place");

            final long stagedBefore = counters.bytesStaged(TransportKind.P2P);
            Jccl.groupStart();
            for (int r = 0; r < RANKS; r++)
            {
                works[r] = comms[r].broadcast(out[r], out[r], COUNT, DataType.INT32, round % RANKS, Stream.DEFAULT);
            }
            Jccl.groupEnd();
            for (final Work w : works)
            {
                w.join();
            }
            for (int r = 0; r < RANKS; r++)
            {
                for (long i = 0; i < COUNT; i += 997)
                {
                    // the root's first COUNT elements were block 0 of its gather: rank 0's values
                    assertEquals(value(0, i, round), out[r].byteBuffer().getInt((int)(i * 4)),
                        "Broadcast rank " + r + " element " + i);
                }
            }
            assertEquals(0, counters.bytesStaged(TransportKind.P2P) - stagedBefore,
                "in-place Broadcast stages nothing");
        }
        for (final Communicator c : comms)
        {
            c.close();
        }
    }

    private static int value(final int rank, final long i, final int round)
    {
        return (int)(rank * 1_000_003L + i * 31 + round * 7);
    }
}
