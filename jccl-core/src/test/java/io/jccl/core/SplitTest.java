package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclTimeoutException;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ncclCommSplit} among ranks of one process: colors group ranks, keys order them (ties by rank), a rank with
 * no color gets none, the new communicators compute over their own members only, and the parent still works.
 */
class SplitTest
{
    @Test
    @Timeout(60)
    void shouldGroupByColorOrderByKeyAndComputeOverTheMembersOnly() throws Exception
    {
        final int n = 5;
        final Communicator[] parent = Jccl.initAll(new Context().timeoutMs(20_000), n);
        final ExecutorService threads = Executors.newFixedThreadPool(n);
        try
        {
            // colors: even ranks 0, odd ranks 1, rank 4 none; keys reverse the order within a color
            final Future<?>[] done = new Future<?>[n];
            final Communicator[] child = new Communicator[n];
            for (int r = 0; r < n; r++)
            {
                final int rank = r;
                done[r] = threads.submit(() ->
                {
                    child[rank] = parent[rank].split(rank == 4 ? Communicator.SPLIT_NOCOLOR : rank % 2, -rank);
                    return null;
                });
            }
            for (final Future<?> f : done)
            {
                f.get();
            }
            assertNull(child[4], "no color, no communicator");
            assertEquals(2, child[0].size());
            assertEquals(1, child[0].rank(), "key -0 sorts after key -2");
            assertEquals(0, child[2].rank());
            assertEquals(2, child[1].size());
            assertEquals(0, child[3].rank());
            assertEquals(1, child[1].rank());
            // each new communicator sums its members' parent ranks + 1: {0, 2} -> 4, {1, 3} -> 6
            final Future<?>[] sums = new Future<?>[4];
            final float[] result = new float[4];
            for (int r = 0; r < 4; r++)
            {
                final int rank = r;
                sums[r] = threads.submit(() ->
                {
                    final HostBuffer buf = HostBuffer.allocate(1001 * 4);
                    for (int i = 0; i < 1001; i++)
                    {
                        buf.byteBuffer().putFloat(i * 4, rank + 1);
                    }
                    child[rank].allReduce(buf, buf, 1001, DataType.FLOAT32, ReduceOp.SUM);
                    result[rank] = buf.byteBuffer().getFloat(1000 * 4);
                    return null;
                });
            }
            for (final Future<?> f : sums)
            {
                f.get();
            }
            assertEquals(4f, result[0]);
            assertEquals(4f, result[2]);
            assertEquals(6f, result[1]);
            assertEquals(6f, result[3]);
            for (int r = 0; r < 4; r++)
            {
                child[r].close();
            }
        }
        finally
        {
            threads.shutdownNow();
            for (final Communicator c : parent)
            {
                c.close();
            }
        }
    }

    @Test
    void shouldRefuseANegativeColorAndTimeOutNamingTheMissingRanks()
    {
        final Communicator[] parent = Jccl.initAll(new Context().timeoutMs(300), 3);
        try
        {
            final JcclInvalidArgumentException bad = assertThrows(JcclInvalidArgumentException.class,
                () -> parent[0].split(-7, 0));
            assertTrue(bad.getMessage().contains("color=-7"), bad.getMessage());
            final JcclTimeoutException late = assertThrows(JcclTimeoutException.class, () -> parent[1].split(0, 0));
            assertTrue(late.getMessage().contains("ranks 0, 2 did not call split"), late.getMessage());
        }
        finally
        {
            for (final Communicator c : parent)
            {
                c.close();
            }
        }
    }
}
