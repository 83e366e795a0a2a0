package io.jccl.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ThreadSyncTest
{
    @Test
    void shouldCombineAsNcclTestsWhenEachMode()
    {
        final double[] values = {3, 1, 2};
        assertEquals(3, ThreadSync.combine(values, ThreadSync.RANK0));
        assertEquals(2, ThreadSync.combine(values, ThreadSync.AVG));
        assertEquals(1, ThreadSync.combine(values, ThreadSync.MIN));
        assertEquals(3, ThreadSync.combine(values, ThreadSync.MAX));
        assertEquals(6, ThreadSync.combine(values, ThreadSync.SUM));
    }

    @Test
    @Timeout(30)
    void shouldGiveEveryThreadTheResultWhenAllReducing() throws Exception
    {
        final ThreadSync sync = new ThreadSync(3);
        final ExecutorService pool = Executors.newFixedThreadPool(3);
        try
        {
            final Future<?>[] results = new Future<?>[3];
            for (int t = 0; t < 3; t++)
            {
                final int thread = t;
                results[t] = pool.submit(() ->
                {
                    double last = 0;
                    for (int round = 0; round < 100; round++)
                    {
                        last = sync.allReduce(thread, thread + round, ThreadSync.MAX);
                        assertEquals(2 + round, last);
                    }
                    return last;
                });
            }
            for (final Future<?> result : results)
            {
                assertEquals(101.0, result.get());
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(30)
    void shouldWakeWaitersWhenAborted() throws Exception
    {
        final ThreadSync sync = new ThreadSync(2);
        final Thread aborter = new Thread(() ->
        {
            try
            {
                Thread.sleep(100);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            sync.abort();
        });
        aborter.start();
        assertThrows(IllegalStateException.class, sync::barrier);
        aborter.join();
    }
}
