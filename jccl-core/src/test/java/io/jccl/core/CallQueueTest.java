package io.jccl.core;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rank's call queue: appends from any thread, removal by one; nothing lost, each producer's order kept. */
class CallQueueTest
{
    @Test
    void shouldKeepOrderAndReportTheNewestWhenOneThreadAppends()
    {
        final CallQueue queue = new CallQueue();
        assertTrue(queue.isEmpty());
        assertNull(queue.peek());
        assertNull(queue.last());
        final Call a = call(1);
        final Call b = call(2);
        queue.add(a);
        queue.add(b);
        assertSame(a, queue.peek());
        assertSame(b, queue.last());
        queue.remove();
        assertSame(b, queue.peek());
        assertSame(b, queue.last());
        queue.remove();
        assertTrue(queue.isEmpty());
        assertNull(queue.last());
        final Call c = call(3);
        queue.add(c);
        assertSame(c, queue.peek());
    }

    @Test
    @Timeout(60)
    void shouldLoseNothingAndKeepEachProducersOrderWhenThreadsAppendWhileOneRemoves() throws Exception
    {
        final int producers = 3;
        final int perProducer = 200_000;
        final CallQueue queue = new CallQueue();
        final CountDownLatch start = new CountDownLatch(1);
        final List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++)
        {
            final int producer = p;
            final Thread t = new Thread(() ->
            {
                try
                {
                    start.await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < perProducer; i++)
                {
                    // the count carries (producer, index)
                    queue.add(call((long)producer * perProducer + i));
                }
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        final long[] next = new long[producers];
        long taken = 0;
        while (taken < (long)producers * perProducer)
        {
            final Call c = queue.peek();
            if (c == null)
            {
                Thread.onSpinWait();
                continue;
            }
            final int producer = (int)(c.count / perProducer);
            assertEquals(next[producer]++, c.count % perProducer, "producer " + producer + " out of order");
            queue.remove();
            taken++;
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        assertTrue(queue.isEmpty());
        for (int p = 0; p < producers; p++)
        {
            assertEquals(perProducer, next[p], "calls of producer " + p);
        }
    }

    private static Call call(final long count)
    {
        return new Call(null, Collective.ALL_REDUCE, null, null, count, DataType.FLOAT32, null, -1, false,
            Stream.DEFAULT);
    }
}
