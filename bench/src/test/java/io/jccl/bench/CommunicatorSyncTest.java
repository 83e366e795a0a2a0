package io.jccl.bench;

import io.jccl.Communicator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link CommunicatorSync} over three stand-in ranks, each on a thread as it would be in a process of its own. */
class CommunicatorSyncTest
{
    private static final int RANKS = 3;

    @Test
    @Timeout(30)
    void shouldCombineAsNcclTestsOverProcessesWhenEachMode() throws Exception
    {
        final List<double[]> results = onEveryRank((rank, sync) ->
        {
            final double value = new double[] {3, 1, 2}[rank];
            sync.barrier();
            return new double[]
            {
                sync.allReduce(0, value, ThreadSync.RANK0),
                sync.allReduce(0, value, ThreadSync.AVG),
                sync.allReduce(0, value, ThreadSync.MIN),
                sync.allReduce(0, value, ThreadSync.MAX),
                sync.allReduce(0, value, ThreadSync.SUM)
            };
        });
        for (final double[] result : results)
        {
            assertArrayEquals(new double[] {3, 2, 1, 3, 6}, result);
        }
    }

    @Test
    @Timeout(30)
    void shouldSumEachProcessesEntriesWhenGatheringTheHeader() throws Exception
    {
        final List<double[]> results = onEveryRank((rank, sync) ->
        {
            final double[] known = new double[RANKS];
            known[rank] = 1000 + rank;
            final double[] sums = sync.sumOverProcesses(known);
            assertEquals(1000 + rank, known[rank], "the argument stays as it was");
            return sums;
        });
        for (final double[] result : results)
        {
            assertArrayEquals(new double[] {1000, 1001, 1002}, result);
        }
    }

    @Test
    void shouldRefuseAnotherThreadWhenAProcessHasOne()
    {
        final CommunicatorSync sync = new CommunicatorSync(comms()[0]);
        assertThrows(IllegalArgumentException.class, () -> sync.allReduce(1, 0, ThreadSync.SUM));
        sync.abort();
        assertThrows(IllegalStateException.class, sync::barrier);
    }

    /** What one rank does with its sync. */
    private interface RankBody
    {
        double[] run(int rank, CommunicatorSync sync);
    }

    private static List<double[]> onEveryRank(final RankBody body) throws Exception
    {
        final Communicator[] comms = comms();
        final ExecutorService pool = Executors.newFixedThreadPool(RANKS);
        try
        {
            final List<Future<double[]>> futures = new ArrayList<>();
            for (int r = 0; r < RANKS; r++)
            {
                final int rank = r;
                futures.add(pool.submit(() -> body.run(rank, new CommunicatorSync(comms[rank]))));
            }
            final List<double[]> results = new ArrayList<>();
            for (final Future<double[]> future : futures)
            {
                results.add(future.get());
            }
            return results;
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    private static Communicator[] comms()
    {
        final BenchOptions options = new BenchOptions();
        new CommandLine(options).parseArgs("-g", Integer.toString(RANKS));
        return FakeCommunicators.factory(FakeCommunicators.Fault.NONE).create(options, SweepCombination.DEFAULT,
            RANKS);
    }
}
