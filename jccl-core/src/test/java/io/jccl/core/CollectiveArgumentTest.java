package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Buffer;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.JcclException;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.core.CollectiveGrid.Drive;
import io.jccl.core.CollectiveGrid.GridCase;
import io.jccl.core.CollectiveGrid.Pipeline;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad arguments are rejected by the call itself (the asynchronous form, so not from {@code join()}), before
 * anything is sent, with {@link JcclInvalidArgumentException} naming the argument (DESIGN.md, "Failure is part of
 * the contract"); afterwards the same communicators still run a correct AllReduce, which they could not if the
 * rejected call had queued or sent anything.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CollectiveArgumentTest
{
    private static final int RANKS = 3;
    private static final long COUNT = 16;
    private static final DataType TYPE = DataType.FLOAT32;
    private static final ReduceOp OP = ReduceOp.SUM;
    private static final Stream STREAM = Stream.DEFAULT;

    private Communicator[] comms;
    private Communicator comm;
    private Buffer send;
    private Buffer recv;

    @BeforeEach
    void createCommunicators()
    {
        comms = Jccl.initAll(new Context().algorithm(Algorithm.RING).timeoutMs(10_000), RANKS);
        comm = comms[0];
        send = hostBuffer(COUNT * TYPE.byteSize());
        recv = hostBuffer(COUNT * TYPE.byteSize());
    }

    @AfterEach
    void closeCommunicators()
    {
        for (final Communicator c : comms)
        {
            try
            {
                c.close();
            }
            catch (final JcclException ex)
            {
                c.abort();
            }
        }
    }

    @Test
    void shouldRejectNullSendWhenRequired()
    {
        final Buffer gathered = hostBuffer(RANKS * COUNT * TYPE.byteSize());
        rejected("send", () -> comm.allReduce(null, recv, COUNT, TYPE, OP, STREAM));
        rejected("send", () -> comm.allGather(null, gathered, COUNT, TYPE, STREAM));
        rejected("send", () -> comm.reduceScatter(null, recv, COUNT, TYPE, OP, STREAM));
        rejected("send", () -> comm.reduce(null, recv, COUNT, TYPE, OP, 0, STREAM));
        rejected("send", () -> comm.reduce(null, recv, COUNT, TYPE, OP, 1, STREAM));
        // the root's send is required; comm is rank 0
        rejected("send", () -> comm.broadcast(null, recv, COUNT, TYPE, 0, STREAM));
        assertAllReduceStillCorrect();
    }

    @Test
    void shouldRejectNullRecvWhenRequired()
    {
        final Buffer scattered = hostBuffer(RANKS * COUNT * TYPE.byteSize());
        rejected("recv", () -> comm.allReduce(send, null, COUNT, TYPE, OP, STREAM));
        rejected("recv", () -> comm.allGather(send, null, COUNT, TYPE, STREAM));
        rejected("recv", () -> comm.reduceScatter(scattered, null, COUNT, TYPE, OP, STREAM));
        rejected("recv", () -> comm.broadcast(send, null, COUNT, TYPE, 0, STREAM));
        rejected("recv", () -> comm.broadcast(send, null, COUNT, TYPE, 2, STREAM));
        // the root's recv is required; comm is rank 0
        rejected("recv", () -> comm.reduce(send, null, COUNT, TYPE, OP, 0, STREAM));
        assertAllReduceStillCorrect();
    }

    @Test
    void shouldRejectNegativeCountWhenAnyCollective()
    {
        rejected("count", () -> comm.allReduce(send, recv, -1, TYPE, OP, STREAM));
        rejected("count", () -> comm.allGather(send, recv, -1, TYPE, STREAM));
        rejected("count", () -> comm.reduceScatter(send, recv, -1, TYPE, OP, STREAM));
        rejected("count", () -> comm.broadcast(send, recv, -1, TYPE, 0, STREAM));
        rejected("count", () -> comm.reduce(send, recv, -1, TYPE, OP, 0, STREAM));
        rejected("count", () -> comm.allReduce(send, recv, Long.MIN_VALUE, TYPE, OP, STREAM));
        assertAllReduceStillCorrect();
    }

    @Test
    void shouldRejectCountWhenBytesOverflowLong()
    {
        // count x 4 bytes overflows a long
        final long huge = Long.MAX_VALUE / 2;
        rejected("count", () -> comm.allReduce(send, recv, huge, TYPE, OP, STREAM));
        rejected("count", () -> comm.broadcast(send, recv, huge, TYPE, 0, STREAM));
        rejected("count", () -> comm.reduce(send, recv, huge, TYPE, OP, 0, STREAM));
        rejected("count", () -> comm.allGather(send, recv, huge, TYPE, STREAM));
        rejected("count", () -> comm.reduceScatter(send, recv, huge, TYPE, OP, STREAM));
        rejected("count", () -> comm.allReduce(send, recv, Long.MAX_VALUE, DataType.FLOAT64, OP, STREAM));
        // count x 1 byte fits, but size() x count of AllGather's recv and ReduceScatter's send does not: an
        // overflowing product must not pass the length check
        rejected("", () -> comm.allGather(send, recv, huge, DataType.INT8, STREAM), "count", "send", "recv");
        rejected("", () -> comm.reduceScatter(send, recv, huge, DataType.UINT8, OP, STREAM), "count", "send",
            "recv");
        assertAllReduceStillCorrect();
    }

    @Test
    void shouldRejectBufferWhenTooSmall()
    {
        final Buffer shortBuffer = hostBuffer((COUNT - 1) * TYPE.byteSize());
        final Buffer gatheredShort = hostBuffer((RANKS * COUNT - 1) * TYPE.byteSize());
        final Buffer gathered = hostBuffer(RANKS * COUNT * TYPE.byteSize());
        rejected("send", () -> comm.allReduce(shortBuffer, recv, COUNT, TYPE, OP, STREAM));
        rejected("recv", () -> comm.allReduce(send, shortBuffer, COUNT, TYPE, OP, STREAM));
        rejected("send", () -> comm.allGather(shortBuffer, gathered, COUNT, TYPE, STREAM));
        rejected("recv", () -> comm.allGather(send, gatheredShort, COUNT, TYPE, STREAM));
        rejected("send", () -> comm.reduceScatter(gatheredShort, recv, COUNT, TYPE, OP, STREAM));
        rejected("recv", () -> comm.reduceScatter(gathered, shortBuffer, COUNT, TYPE, OP, STREAM));
        rejected("send", () -> comm.broadcast(shortBuffer, recv, COUNT, TYPE, 0, STREAM));
        rejected("recv", () -> comm.broadcast(send, shortBuffer, COUNT, TYPE, 0, STREAM));
        rejected("send", () -> comm.reduce(shortBuffer, recv, COUNT, TYPE, OP, 0, STREAM));
        rejected("recv", () -> comm.reduce(send, shortBuffer, COUNT, TYPE, OP, 0, STREAM));
        // a larger type needs more bytes: 16 floats are only 8 doubles
        rejected("send", () -> comm.allReduce(send, hostBuffer(COUNT * 8), COUNT, DataType.FLOAT64, OP, STREAM));
        assertAllReduceStillCorrect();
    }

    @Test
    void shouldRejectRootWhenOutOfRange()
    {
        rejected("root", () -> comm.broadcast(send, recv, COUNT, TYPE, -1, STREAM));
        rejected("root", () -> comm.broadcast(send, recv, COUNT, TYPE, RANKS, STREAM));
        rejected("root", () -> comm.broadcast(send, recv, COUNT, TYPE, Integer.MAX_VALUE, STREAM));
        rejected("root", () -> comm.reduce(send, recv, COUNT, TYPE, OP, -1, STREAM));
        rejected("root", () -> comm.reduce(send, recv, COUNT, TYPE, OP, RANKS, STREAM));
        rejected("root", () -> comm.reduce(send, recv, COUNT, TYPE, OP, Integer.MIN_VALUE, STREAM));
        assertAllReduceStillCorrect();
    }

    @Test
    void shouldRejectMismatchedMemoryKindWhenDeviceAndHostMixed()
    {
        final Buffer device = DeviceBuffer.of(0x1000, COUNT * TYPE.byteSize(), 0);
        final Buffer deviceGathered = DeviceBuffer.of(0x1000, RANKS * COUNT * TYPE.byteSize(), 0);
        final Buffer gathered = hostBuffer(RANKS * COUNT * TYPE.byteSize());
        rejected("", () -> comm.allReduce(device, recv, COUNT, TYPE, OP, STREAM), "send", "recv", "memory");
        rejected("", () -> comm.allReduce(send, device, COUNT, TYPE, OP, STREAM), "send", "recv", "memory");
        rejected("", () -> comm.allGather(device, gathered, COUNT, TYPE, STREAM), "send", "recv", "memory");
        rejected("", () -> comm.allGather(send, deviceGathered, COUNT, TYPE, STREAM), "send", "recv", "memory");
        rejected("", () -> comm.reduceScatter(deviceGathered, recv, COUNT, TYPE, OP, STREAM), "send", "recv",
            "memory");
        rejected("", () -> comm.broadcast(device, recv, COUNT, TYPE, 0, STREAM), "send", "recv", "memory");
        rejected("", () -> comm.reduce(send, device, COUNT, TYPE, OP, 0, STREAM), "send", "recv", "memory");
        assertAllReduceStillCorrect();
    }

    @Test
    void shouldRejectPartialOverlapWhenSendAndRecvShareMemory()
    {
        final int size = TYPE.byteSize();
        final HostBuffer shared = hostBuffer((RANKS + 1) * COUNT * size);
        // recv starts one element into send
        final Buffer a = shared.view(TYPE, 0, COUNT);
        final Buffer b = shared.view(TYPE, 1, COUNT);
        rejected("", () -> comm.allReduce(a, b, COUNT, TYPE, OP, STREAM), "send", "recv", "overlap");
        rejected("", () -> comm.allReduce(b, a, COUNT, TYPE, OP, STREAM), "send", "recv", "overlap");
        rejected("", () -> comm.broadcast(a, b, COUNT, TYPE, 0, STREAM), "send", "recv", "overlap");
        rejected("", () -> comm.reduce(a, b, COUNT, TYPE, OP, 0, STREAM), "send", "recv", "overlap");
        // AllGather: send inside recv but not slice rank (rank 0's slice starts at element 0)
        final Buffer gathered = shared.view(TYPE, 0, RANKS * COUNT);
        rejected("", () -> comm.allGather(shared.view(TYPE, 1, COUNT), gathered, COUNT, TYPE, STREAM), "send",
            "recv", "overlap");
        rejected("", () -> comm.allGather(shared.view(TYPE, COUNT, COUNT), gathered, COUNT, TYPE, STREAM), "send",
            "recv", "overlap");
        // ReduceScatter: recv inside send but not slice rank
        rejected("", () -> comm.reduceScatter(gathered, shared.view(TYPE, 1, COUNT), COUNT, TYPE, OP, STREAM),
            "send", "recv", "overlap");
        rejected("", () -> comm.reduceScatter(gathered, shared.view(TYPE, 2 * COUNT, COUNT), COUNT, TYPE, OP,
            STREAM), "send", "recv", "overlap");
        assertAllReduceStillCorrect();
    }

    @Test
    void shouldRejectCallWhenCommunicatorClosed()
    {
        final Communicator[] closed = Jccl.initAll(new Context().algorithm(Algorithm.RING).timeoutMs(10_000), 2);
        for (final Communicator c : closed)
        {
            c.close();
        }
        final Communicator c = closed[0];
        final Buffer gathered = hostBuffer(2 * COUNT * TYPE.byteSize());
        closedUsage(() -> c.allReduce(send, recv, COUNT, TYPE, OP, STREAM));
        closedUsage(() -> c.allGather(send, gathered, COUNT, TYPE, STREAM));
        closedUsage(() -> c.reduceScatter(gathered, recv, COUNT, TYPE, OP, STREAM));
        closedUsage(() -> c.broadcast(send, recv, COUNT, TYPE, 0, STREAM));
        closedUsage(() -> c.reduce(send, recv, COUNT, TYPE, OP, 0, STREAM));
        closedUsage(() -> closed[1].allReduce(send, recv, COUNT, TYPE, OP));
        // and these communicators never shared anything with the closed ones
        assertAllReduceStillCorrect();
    }

    @Test
    void shouldAcceptProdAndAvgWhenAnyType()
    {
        for (final DataType type : DataType.values())
        {
            for (final ReduceOp op : new ReduceOp[]{ReduceOp.PROD, ReduceOp.AVG})
            {
                for (final Collective collective : new Collective[]{
                    Collective.ALL_REDUCE, Collective.REDUCE_SCATTER, Collective.REDUCE})
                {
                    final GridCase gridCase = new GridCase(collective, type, op, RANKS, 7, false, Algorithm.RING,
                        collective == Collective.REDUCE ? 1 : -1, Drive.GROUP, Pipeline.DEFAULT);
                    try
                    {
                        CollectiveHarness.runAndCheck(gridCase, comms);
                    }
                    catch (final JcclException | AssertionError ex)
                    {
                        throw new AssertionError(gridCase + ": " + ex, ex);
                    }
                }
            }
        }
    }

    @Test
    void shouldAcceptNullIgnoredBuffersWhenNotRoot()
    {
        final GridCase broadcast = new GridCase(Collective.BROADCAST, TYPE, null, RANKS, COUNT, false,
            Algorithm.RING, 2, Drive.GROUP, Pipeline.DEFAULT);
        final Buffer[] recvs = {hostBuffer(COUNT * 4), hostBuffer(COUNT * 4), hostBuffer(COUNT * 4)};
        final Buffer rootSend = hostBuffer(COUNT * 4);
        ((HostBuffer)rootSend).byteBuffer().putFloat(0, 42f);
        runOnAll(r -> comms[r].broadcast(r == 2 ? rootSend : null, recvs[r], COUNT, TYPE, 2, STREAM));
        for (final Buffer b : recvs)
        {
            assertEquals(42f, ((HostBuffer)b).byteBuffer().getFloat(0), broadcast.toString());
        }
        final Buffer[] sends = {hostBuffer(COUNT * 4), hostBuffer(COUNT * 4), hostBuffer(COUNT * 4)};
        for (int r = 0; r < RANKS; r++)
        {
            ((HostBuffer)sends[r]).byteBuffer().putFloat(0, r + 1);
        }
        final Buffer rootRecv = hostBuffer(COUNT * 4);
        runOnAll(r -> comms[r].reduce(sends[r], r == 1 ? rootRecv : null, COUNT, TYPE, OP, 1, STREAM));
        assertEquals(6f, ((HostBuffer)rootRecv).byteBuffer().getFloat(0));
        assertAllReduceStillCorrect();
    }

    // ---------------------------------------------------------------------------------------------------------

    /** A call on each rank. */
    @FunctionalInterface
    interface RankCall
    {
        io.jccl.Work call(int rank);
    }

    private void runOnAll(final RankCall call)
    {
        final io.jccl.Work[] works = new io.jccl.Work[RANKS];
        Jccl.groupStart();
        try
        {
            for (int r = 0; r < RANKS; r++)
            {
                works[r] = call.call(r);
            }
        }
        finally
        {
            Jccl.groupEnd();
        }
        for (final io.jccl.Work work : works)
        {
            work.join();
        }
    }

    /**
     * Asserts the call throws {@link JcclInvalidArgumentException} whose message names one of the words.
     *
     * @param argument the argument the message must name (ignored when empty).
     * @param call     the call.
     * @param anyOf    alternatively, words of which the message must contain one.
     */
    private static void rejected(final String argument, final Executable call, final String... anyOf)
    {
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class, call);
        final String message = String.valueOf(ex.getMessage()).toLowerCase(Locale.ROOT);
        if (!argument.isEmpty())
        {
            assertTrue(message.contains(argument.toLowerCase(Locale.ROOT)),
                () -> "message does not name '" + argument + "': " + ex.getMessage());
        }
        if (anyOf.length > 0)
        {
            boolean named = false;
            for (final String word : anyOf)
            {
                named |= message.contains(word.toLowerCase(Locale.ROOT));
            }
            final boolean ok = named;
            assertTrue(ok, () -> "message names none of " + String.join(", ", anyOf) + ": " + ex.getMessage());
        }
    }

    private static void closedUsage(final Executable call)
    {
        final JcclInvalidUsageException ex = assertThrows(JcclInvalidUsageException.class, call);
        assertTrue(String.valueOf(ex.getMessage()).toLowerCase(Locale.ROOT).contains("close"),
            () -> "message does not say the communicator is closed: " + ex.getMessage());
    }

    private void assertAllReduceStillCorrect()
    {
        for (final Communicator c : comms)
        {
            assertNull(c.asyncError(), () -> "rank " + c.rank() + " broken by a rejected call: " + c.asyncError());
        }
        CollectiveHarness.runAndCheck(new GridCase(Collective.ALL_REDUCE, TYPE, OP, RANKS, 1021, false,
            Algorithm.RING, -1, Drive.GROUP, Pipeline.DEFAULT), comms);
        CollectiveHarness.runAndCheck(new GridCase(Collective.ALL_REDUCE, DataType.FLOAT16, ReduceOp.MAX, RANKS, 33,
            true, Algorithm.RING, -1, Drive.THREADS, Pipeline.DEFAULT), comms);
    }

    /**
     * @param length bytes.
     * @return host memory of exactly that length.
     */
    static HostBuffer hostBuffer(final long length)
    {
        return HostBuffer.allocate(length);
    }
}
