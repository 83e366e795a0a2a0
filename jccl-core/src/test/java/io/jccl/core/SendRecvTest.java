package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclException;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.JcclRemoteException;
import io.jccl.JcclTimeoutException;
import io.jccl.Stream;
import io.jccl.Work;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Send and receive between in-process ranks ({@link P2pWorkload} on one thread per rank, 1 to 8 ranks), ring shifts
 * issued for every rank by one thread (nccl-tests' {@code -g}), and every way a send and its receive can fail to
 * meet: named on both sides, before anything is sent where the arguments say so, within the deadline otherwise.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SendRecvTest
{
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void shouldDeliverEveryMessageExactlyWhenEachRankRunsTheWorkloadOnItsThread(final int n) throws Exception
    {
        final Communicator[] comms = Jccl.initAll(new Context().timeoutMs(60_000), n);
        final List<Thread> threads = new ArrayList<>();
        final Throwable[] failures = new Throwable[n];
        final long[] checked = new long[n];
        for (int r = 0; r < n; r++)
        {
            final int rank = r;
            final Thread t = new Thread(() ->
            {
                try
                {
                    final P2pWorkload workload = new P2pWorkload(comms[rank], false);
                    workload.runAll(42 + n);
                    checked[rank] = workload.checkedBytes();
                }
                catch (final Throwable ex)
                {
                    failures[rank] = ex;
                }
            }, "rank-" + r);
            threads.add(t);
            t.start();
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        for (int r = 0; r < n; r++)
        {
            if (failures[r] != null)
            {
                throw new AssertionError("rank " + r + " failed", failures[r]);
            }
            assertTrue(checked[r] > 1_000_000, "rank " + r + " checked " + checked[r] + " bytes");
        }
        final io.jccl.transport.ConnectorCounters counters = ((LocalCommunicator)comms[0]).counters();
        assertTrue(n == 1 || counters.bytesDirect(io.jccl.TransportKind.P2P) > 0,
            "in one process, sends are read in place");
        close(comms);
    }

    @Test
    void shouldShiftTheRingBothWaysWhenOneThreadIssuesEveryRanksCallsInOneGroup()
    {
        for (final int n : new int[] {1, 2, 3, 7})
        {
            final Communicator[] comms = Jccl.initAll(new Context().chunkBytes(4096), n);
            for (final DataType type : new DataType[] {DataType.INT8, DataType.FLOAT16, DataType.FLOAT64})
            {
                for (final long count : P2pWorkload.COUNTS)
                {
                    final long bytes = count * type.byteSize();
                    final HostBuffer[] send = new HostBuffer[n];
                    final HostBuffer[] right = new HostBuffer[n];
                    final HostBuffer[] left = new HostBuffer[n];
                    final Work[] works = new Work[n];
                    Jccl.groupStart();
                    for (int r = 0; r < n; r++)
                    {
                        send[r] = HostBuffer.allocate(Math.max(1, bytes));
                        for (long b = 0; b < bytes; b++)
                        {
                            send[r].byteBuffer().put((int)b, P2pWorkload.pattern(r, r, 0, b));
                        }
                        right[r] = HostBuffer.allocate(Math.max(1, bytes));
                        left[r] = HostBuffer.allocate(Math.max(1, bytes));
                        // the receives first on every rank: one group, so nothing waits on the order
                        comms[r].recv(right[r], count, type, (r - 1 + n) % n, Stream.DEFAULT);
                        comms[r].recv(left[r], count, type, (r + 1) % n, Stream.DEFAULT);
                        comms[r].send(send[r], count, type, (r + 1) % n, Stream.DEFAULT);
                        works[r] = comms[r].send(send[r], count, type, (r - 1 + n) % n, Stream.DEFAULT);
                    }
                    Jccl.groupEnd();
                    for (final Work w : works)
                    {
                        w.join();
                    }
                    for (int r = 0; r < n; r++)
                    {
                        final int prev = (r - 1 + n) % n;
                        final int next = (r + 1) % n;
                        for (long b = 0; b < bytes; b++)
                        {
                            assertEquals(P2pWorkload.pattern(prev, prev, 0, b), right[r].byteBuffer().get((int)b),
                                "rank " + r + " from " + prev + " byte " + b + " of " + count + " " + type);
                            assertEquals(P2pWorkload.pattern(next, next, 0, b), left[r].byteBuffer().get((int)b),
                                "rank " + r + " from " + next + " byte " + b + " of " + count + " " + type);
                        }
                    }
                }
            }
            close(comms);
        }
    }

    @Test
    void shouldFailTheReceiverNamingBothSidesAndBreakTheSenderWhenCountsDiffer()
    {
        final Communicator[] comms = Jccl.initAll(new Context().timeoutMs(10_000), 2);
        final HostBuffer a = HostBuffer.allocate(64);
        final HostBuffer b = HostBuffer.allocate(64);
        final Work sent = comms[0].send(a, 8, DataType.FLOAT32, 1, Stream.DEFAULT);
        final Work received = comms[1].recv(b, 16, DataType.FLOAT32, 0, Stream.DEFAULT);
        final JcclException error = assertThrows(JcclException.class, received::join);
        assertInstanceOf(JcclRemoteException.class, error);
        assertTrue(error.getMessage().contains("recv of 16 float from rank 0") &&
            error.getMessage().contains("of 8 float"), error.getMessage());
        // in one process the receiver reads the send in place: the sender's call waits for it, and fails naming both
        final JcclException senders = assertThrows(JcclException.class, sent::join);
        assertTrue(senders.getMessage().contains("send of 8 float to rank 1") &&
            senders.getMessage().contains("recv of 16 float from rank 0"), senders.getMessage());
        final JcclException next = assertThrows(JcclException.class,
            () -> comms[0].send(a, 8, DataType.FLOAT32, 1, Stream.DEFAULT));
        assertTrue(next.getMessage().contains("of 8 float"), next.getMessage());
        abort(comms);
    }

    @Test
    void shouldFailNamingTheTypesWhenTheyDiffer()
    {
        final Communicator[] comms = Jccl.initAll(new Context().timeoutMs(10_000), 2);
        final HostBuffer a = HostBuffer.allocate(64);
        comms[0].send(a, 4, DataType.INT32, 1, Stream.DEFAULT);
        final JcclException error = assertThrows(JcclException.class,
            () -> comms[1].recv(a, 4, DataType.FLOAT32, 0, Stream.DEFAULT).join());
        assertTrue(error.getMessage().contains("of 4 int32"), error.getMessage());
        abort(comms);
    }

    @Test
    void shouldTimeOutNamingThePeerWhenTheSenderNeverSends()
    {
        final long deadlineMs = 500;
        final Communicator[] comms = Jccl.initAll(new Context().timeoutMs(deadlineMs), 3);
        final long start = System.nanoTime();
        final JcclException error = assertThrows(JcclException.class,
            () -> comms[1].recv(HostBuffer.allocate(64), 4, DataType.INT32, 2, Stream.DEFAULT).join());
        final long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertInstanceOf(JcclTimeoutException.class, error);
        assertTrue(error.getMessage().contains("recv of 4 int32 from rank 2") &&
            error.getMessage().contains("waits for rank 2 to send"), error.getMessage());
        assertTrue(tookMs >= deadlineMs && tookMs < deadlineMs + 5000, "took " + tookMs + " ms");
        abort(comms);
    }

    @Test
    void shouldTimeOutNamingThePeerWhenTheReceiverNeverReceivesALargeSend()
    {
        final Communicator[] comms = Jccl.initAll(new Context().timeoutMs(500), 2);
        final long count = 4 << 20;
        final JcclException error = assertThrows(JcclException.class,
            () -> comms[0].send(HostBuffer.allocate(count * 4), count, DataType.FLOAT32, 1, Stream.DEFAULT).join());
        assertInstanceOf(JcclTimeoutException.class, error);
        assertTrue(error.getMessage().contains("waits for rank 1"), error.getMessage());
        abort(comms);
    }

    @Test
    void shouldRejectBadArgumentsNamingThemBeforeAnythingIsSent()
    {
        final Communicator[] comms = Jccl.initAll(new Context(), 2);
        final HostBuffer b = HostBuffer.allocate(16);
        assertMessage(JcclInvalidArgumentException.class, "peer=2",
            () -> comms[0].send(b, 1, DataType.INT32, 2, Stream.DEFAULT));
        assertMessage(JcclInvalidArgumentException.class, "peer=-1",
            () -> comms[0].recv(b, 1, DataType.INT32, -1, Stream.DEFAULT));
        assertMessage(JcclInvalidArgumentException.class, "count=-1",
            () -> comms[0].send(b, -1, DataType.INT32, 1, Stream.DEFAULT));
        assertMessage(JcclInvalidArgumentException.class, "buffer holds 16 bytes",
            () -> comms[0].send(b, 5, DataType.INT32, 1, Stream.DEFAULT));
        assertMessage(JcclInvalidArgumentException.class, "buffer is null",
            () -> comms[0].recv(null, 5, DataType.INT32, 1, Stream.DEFAULT));
        assertMessage(JcclInvalidArgumentException.class, "type is null",
            () -> comms[0].recv(b, 1, null, 1, Stream.DEFAULT));
        assertMessage(JcclInvalidArgumentException.class, "recvCounts has 1 entries",
            () -> comms[0].allToAllv(b, new long[2], new long[2], b, new long[1], new long[2], DataType.INT8,
            Stream.DEFAULT));
        assertMessage(JcclInvalidArgumentException.class, "sendDispls[1]",
            () -> comms[0].allToAllv(b, new long[] {1, 1}, new long[] {0, 16}, HostBuffer.allocate(16),
            new long[] {1, 1}, new long[2], DataType.INT8, Stream.DEFAULT));
        assertMessage(JcclInvalidArgumentException.class, "recv holds 16 bytes",
            () -> comms[0].gather(b, b, 4, DataType.INT32, 0, Stream.DEFAULT));
        assertMessage(JcclInvalidArgumentException.class, "root=3",
            () -> comms[0].scatter(b, b, 1, DataType.INT32, 3, Stream.DEFAULT));
        // a send to itself needs its receive in the same call
        assertMessage(JcclInvalidUsageException.class, "send of 1 int32 to rank 0 has no receive from itself",
            () -> comms[0].send(b, 1, DataType.INT32, 0, Stream.DEFAULT));
        Jccl.groupStart();
        comms[0].send(b, 1, DataType.INT32, 0, Stream.DEFAULT);
        comms[0].recv(b, 2, DataType.INT32, 0, Stream.DEFAULT);
        assertMessage(JcclInvalidArgumentException.class, "same count and type", Jccl::groupEnd);
        // nothing was sent: the communicators still work
        final HostBuffer x = HostBuffer.allocate(8);
        x.byteBuffer().putLong(0, 5);
        Jccl.groupStart();
        final Work w = comms[0].send(x, 1, DataType.INT64, 1, Stream.DEFAULT);
        final Work v = comms[1].recv(b, 1, DataType.INT64, 0, Stream.DEFAULT);
        Jccl.groupEnd();
        w.join();
        v.join();
        assertEquals(5, b.byteBuffer().getLong(0));
        close(comms);
    }

    @Test
    void shouldKeepCollectivesMatchedWhenOnlySomeRanksExchangeMessagesBetweenThem()
    {
        final Communicator[] comms = Jccl.initAll(new Context(), 3);
        final HostBuffer[] one = new HostBuffer[3];
        for (int round = 0; round < 3; round++)
        {
            Jccl.groupStart();
            final HostBuffer m = HostBuffer.allocate(4);
            final Work sent = comms[0].send(m, 1, DataType.INT32, 1, Stream.DEFAULT);
            final Work got = comms[1].recv(m, 1, DataType.INT32, 0, Stream.DEFAULT);
            final Work[] works = new Work[3];
            for (int r = 0; r < 3; r++)
            {
                one[r] = HostBuffer.allocate(4);
                one[r].byteBuffer().putInt(0, r + 1);
                works[r] = comms[r].allReduce(one[r], one[r], 1, DataType.INT32, io.jccl.ReduceOp.SUM,
                    Stream.DEFAULT);
            }
            Jccl.groupEnd();
            sent.join();
            got.join();
            for (int r = 0; r < 3; r++)
            {
                works[r].join();
                assertEquals(6, one[r].byteBuffer().getInt(0), "round " + round + " rank " + r);
            }
        }
        assertNotNull(comms[0]);
        close(comms);
    }

    private static <T extends Throwable> void assertMessage(final Class<T> type, final String part,
        final org.junit.jupiter.api.function.Executable call)
    {
        final T error = assertThrows(type, call);
        assertTrue(error.getMessage().contains(part), "expected '" + part + "' in: " + error.getMessage());
    }

    private static void close(final Communicator[] comms)
    {
        for (final Communicator c : comms)
        {
            c.close();
        }
    }

    private static void abort(final Communicator[] comms)
    {
        for (final Communicator c : comms)
        {
            c.abort();
        }
    }
}
