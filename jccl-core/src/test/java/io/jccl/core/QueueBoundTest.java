package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank holds at most {@link Context#maxQueuedCalls()} calls queued: a loop of calls never waited on makes its thread
 * run calls instead of piling them up, and still gets every result. Its peers' calls come from other threads, or from
 * the same thread in groups.
 */
class QueueBoundTest
{
    /** A small bound, so that the calls go past it many times. */
    private static final int BOUND = 1000;
    private static final int CALLS = 50 * BOUND + 17;

    @Test
    void shouldRefuseABoundBelowOneNamingItsVariable()
    {
        final io.jccl.JcclInvalidArgumentException ex = org.junit.jupiter.api.Assertions.assertThrows(
            io.jccl.JcclInvalidArgumentException.class, () -> Jccl.initAll(new Context().maxQueuedCalls(0), 2));
        assertTrue(ex.getMessage().contains("JCCL_MAX_QUEUED_CALLS=0"), ex.getMessage());
    }

    @Test
    @Timeout(120)
    void shouldBoundTheQueueOfARankWhoseThreadNeverWaits() throws Exception
    {
        final Communicator[] comms = Jccl.initAll(new Context().maxQueuedCalls(BOUND), 2);
        try
        {
            final HostBuffer[] buffers = new HostBuffer[2];
            final CompletableFuture<?>[] threads = new CompletableFuture<?>[2];
            final long[] mostQueued = new long[2];
            for (int r = 0; r < 2; r++)
            {
                final int rank = r;
                buffers[r] = HostBuffer.allocate(8L * CALLS);
                threads[r] = CompletableFuture.runAsync(() ->
                {
                    final LocalCommunicator comm = (LocalCommunicator)comms[rank];
                    Work last = null;
                    for (int i = 0; i < CALLS; i++)
                    {
                        // each call sums its own two floats, so no call's buffer is another's
                        final HostBuffer slot = buffers[rank].slice(8L * i, 8);
                        slot.byteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN)
                            .putFloat((int)slot.offset(), rank + 1).putFloat((int)slot.offset() + 4, i % 7);
                        last = comm.allReduce(slot, slot, 2, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT);
                        mostQueued[rank] = Math.max(mostQueued[rank], comm.queuedCalls());
                    }
                    last.join();
                });
            }
            CompletableFuture.allOf(threads).get();
            for (int r = 0; r < 2; r++)
            {
                assertTrue(mostQueued[r] <= BOUND, "rank " + r + " held " + mostQueued[r] + " calls");
                for (int i = 0; i < CALLS; i += 997)
                {
                    final HostBuffer slot = buffers[r].slice(8L * i, 8);
                    assertEquals(3f, slot.byteBuffer().getFloat((int)slot.offset()), "call " + i);
                    assertEquals(2f * (i % 7), slot.byteBuffer().getFloat((int)slot.offset() + 4), "call " + i);
                }
            }
        }
        finally
        {
            Arrays.stream(comms).forEach(Communicator::close);
        }
    }

    @Test
    @Timeout(60)
    void shouldRunAGroupOfMoreCallsPerRankThanTheBound()
    {
        // one thread queues 3x the bound on each rank in one group: rank 0's calls wait for rank 1's, which the
        // group queues after them, so nobody may wait for room before the whole group is queued
        final int bound = 8;
        final int calls = 3 * bound + 1;
        final Communicator[] comms = Jccl.initAll(new Context().maxQueuedCalls(bound).timeoutMs(20_000), 2);
        try
        {
            final HostBuffer[] buffers = {HostBuffer.allocate(8L * calls), HostBuffer.allocate(8L * calls)};
            final Work[] works = new Work[2];
            Jccl.groupStart();
            for (int r = 0; r < 2; r++)
            {
                for (int i = 0; i < calls; i++)
                {
                    final HostBuffer slot = buffers[r].slice(8L * i, 8);
                    slot.byteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).putFloat((int)slot.offset(), r + 1)
                        .putFloat((int)slot.offset() + 4, i);
                    works[r] = comms[r].allReduce(slot, slot, 2, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT);
                }
            }
            Jccl.groupEnd();
            Arrays.stream(works).forEach(Work::join);
            for (int r = 0; r < 2; r++)
            {
                assertTrue(((LocalCommunicator)comms[r]).queuedCalls() <= bound, "rank " + r);
                for (int i = 0; i < calls; i++)
                {
                    final HostBuffer slot = buffers[r].slice(8L * i, 8);
                    assertEquals(3f, slot.byteBuffer().getFloat((int)slot.offset()), "call " + i);
                    assertEquals(2f * i, slot.byteBuffer().getFloat((int)slot.offset() + 4), "call " + i);
                }
            }
        }
        finally
        {
            Arrays.stream(comms).forEach(Communicator::close);
        }
    }

    @Test
    @Timeout(60)
    void shouldNameTheBoundWhenOneThreadMakesARanksCallsAheadOfAnothersOutsideAGroup()
    {
        // NCCL's rule, that one thread driving several ranks groups their calls, broken: the thread's call past the
        // bound on rank 0 waits for room, while rank 0's first call waits for rank 1's, which the thread never makes
        final int bound = 8;
        final Communicator[] comms = Jccl.initAll(new Context().maxQueuedCalls(bound).timeoutMs(1_000), 2);
        try
        {
            final HostBuffer buffer = HostBuffer.allocate(8);
            final Work first = comms[0].allReduce(buffer, buffer, 2, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT);
            for (int i = 0; i < bound; i++)
            {
                comms[0].allReduce(buffer, buffer, 2, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT);
            }
            final io.jccl.JcclTimeoutException ex =
                org.junit.jupiter.api.Assertions.assertThrows(io.jccl.JcclTimeoutException.class, first::join);
            assertTrue(ex.getMessage().startsWith("allReduce #0 (count 2 float sum) timed out after 1000 ms on rank 0"),
                ex.getMessage());
            assertTrue(ex.getMessage().contains("rank 1 holds it up: it has not started allReduce #0"),
                ex.getMessage());
            assertTrue(ex.getMessage().contains("meanwhile a thread waits for room in rank 0's queue, which holds 8 " +
                "calls (JCCL_MAX_QUEUED_CALLS)"), ex.getMessage());
            assertTrue(ex.getMessage().contains("make them in a group (Jccl.groupStart/groupEnd) or from a thread " +
                "per rank"), ex.getMessage());
        }
        finally
        {
            Arrays.stream(comms).forEach(Communicator::close);
        }
    }

    @Test
    @Timeout(120)
    void shouldBoundTheQueuesOfRanksOneThreadDrivesInGroups()
    {
        final Communicator[] comms = Jccl.initAll(new Context().maxQueuedCalls(BOUND), 2);
        try
        {
            final HostBuffer[] buffers = {HostBuffer.allocate(8L * CALLS), HostBuffer.allocate(8L * CALLS)};
            final Work[] works = new Work[2];
            long mostQueued = 0;
            for (int i = 0; i < CALLS; i++)
            {
                Jccl.groupStart();
                for (int r = 0; r < 2; r++)
                {
                    final HostBuffer slot = buffers[r].slice(8L * i, 8);
                    slot.byteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN).putFloat((int)slot.offset(), r + 1)
                        .putFloat((int)slot.offset() + 4, i % 5);
                    works[r] = comms[r].allReduce(slot, slot, 2, DataType.FLOAT32, ReduceOp.MAX, Stream.DEFAULT);
                }
                Jccl.groupEnd();
                mostQueued = Math.max(mostQueued, ((LocalCommunicator)comms[0]).queuedCalls());
            }
            Arrays.stream(works).forEach(Work::join);
            assertTrue(mostQueued <= BOUND, "rank 0 held " + mostQueued + " calls");
            for (int r = 0; r < 2; r++)
            {
                for (int i = 0; i < CALLS; i += 991)
                {
                    final HostBuffer slot = buffers[r].slice(8L * i, 8);
                    assertEquals(2f, slot.byteBuffer().getFloat((int)slot.offset()), "call " + i);
                    assertEquals(i % 5, slot.byteBuffer().getFloat((int)slot.offset() + 4), "call " + i);
                }
            }
        }
        finally
        {
            Arrays.stream(comms).forEach(Communicator::close);
        }
    }
}
