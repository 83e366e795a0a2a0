package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidUsageException;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Work handle, group calls and ordering on a stream. */
class AsyncWorkTest
{
    private static HostBuffer filled(final int count, final float value)
    {
        final HostBuffer b = HostBuffer.allocate((long)count * Float.BYTES);
        for (int i = 0; i < count; i++)
        {
            b.byteBuffer().putFloat(i * Float.BYTES, value);
        }
        return b;
    }

    @Test
    @Timeout(60)
    void shouldCompleteFuturesWhenNobodyWaits() throws Exception
    {
        final Communicator[] comms = Jccl.initAll(new Context(), 3);
        final HostBuffer[] bufs = new HostBuffer[3];
        final CompletableFuture<?>[] futures = new CompletableFuture<?>[3];
        Jccl.groupStart();
        for (final Communicator c : comms)
        {
            bufs[c.rank()] = filled(1000, c.rank() + 1);
            futures[c.rank()] = c.allReduce(bufs[c.rank()], bufs[c.rank()], 1000, DataType.FLOAT32, ReduceOp.SUM,
                Stream.DEFAULT).toCompletableFuture();
        }
        Jccl.groupEnd();
        // nobody drives: the progress agent must
        CompletableFuture.allOf(futures).get(30, TimeUnit.SECONDS);
        for (final HostBuffer b : bufs)
        {
            assertEquals(6f, b.byteBuffer().getFloat(999 * Float.BYTES));
        }
        for (final Communicator c : comms)
        {
            c.close();
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseBlockingWhenInsideGroup()
    {
        final Communicator[] comms = Jccl.initAll(new Context(), 2);
        final HostBuffer b = filled(4, 1);
        Jccl.groupStart();
        try
        {
            final JcclInvalidUsageException ex = assertThrows(JcclInvalidUsageException.class,
                () -> comms[0].allReduce(b, b, 4, DataType.FLOAT32, ReduceOp.SUM));
            assertTrue(ex.getMessage().contains("group"), ex.getMessage());
        }
        finally
        {
            Jccl.groupEnd();
        }
        // the held call was submitted at groupEnd; rank 1 makes the matching call and both complete
        comms[1].allReduce(filled(4, 2), filled(4, 0), 4, DataType.FLOAT32, ReduceOp.SUM);
        for (final Communicator c : comms)
        {
            c.close();
        }
        assertEquals(3f, b.byteBuffer().getFloat(0));
    }

    @Test
    @Timeout(60)
    void shouldRunCallsInOrderWhenSeveralAreQueued()
    {
        final Communicator[] comms = Jccl.initAll(new Context(), 2);
        final HostBuffer[] bufs = {filled(16, 1), filled(16, 1)};
        final Work[][] works = new Work[2][10];
        Jccl.groupStart();
        for (int k = 0; k < 10; k++)
        {
            for (final Communicator c : comms)
            {
                works[c.rank()][k] = c.allReduce(bufs[c.rank()], bufs[c.rank()], 16, DataType.FLOAT32, ReduceOp.SUM,
                    Stream.DEFAULT);
            }
        }
        Jccl.groupEnd();
        assertTrue(works[1][9].await(30, TimeUnit.SECONDS));
        for (final Work[] rankWorks : works)
        {
            for (final Work w : rankWorks)
            {
                w.join();
                assertTrue(w.isDone());
                assertNull(w.error());
            }
        }
        // ten in-place doublings in order
        assertEquals(1024f, bufs[0].byteBuffer().getFloat(0));
        assertEquals(1024f, bufs[1].byteBuffer().getFloat(60));
        for (final Communicator c : comms)
        {
            c.close();
        }
    }

    @Test
    @Timeout(60)
    void shouldReportNotDoneWhenAwaitTimesOutOnAMissingPeer()
    {
        final Communicator[] comms = Jccl.initAll(new Context(), 2);
        final HostBuffer b = filled(4, 1);
        final Work w = comms[0].allReduce(b, b, 4, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT);
        assertFalse(w.await(50, TimeUnit.MILLISECONDS));
        assertFalse(w.isDone());
        comms[1].allReduce(filled(4, 1), filled(4, 0), 4, DataType.FLOAT32, ReduceOp.SUM);
        w.join();
        assertEquals(2f, b.byteBuffer().getFloat(12));
        for (final Communicator c : comms)
        {
            c.close();
        }
    }
}
