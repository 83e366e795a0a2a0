package io.jccl.bench.jmh;

import io.jccl.Protocol;
import io.jccl.transport.Connections;
import io.jccl.transport.RecvConnector;
import io.jccl.transport.SendConnector;
import org.agrona.UnsafeApi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import java.util.concurrent.TimeUnit;

/**
 * One FIFO slot round trip per protocol over {@link Connections}: a payload ({@code payload} bytes, 8 by default)
 * {@code publish}ed from the slot, seen by {@code hasData}, its first word read and the slot {@code release}d.
 * <ul>
 *     <li>{@code roundTrip}: both ends in one thread: what the protocol itself costs (headers, counters, fences),
 *     without a cache-line handoff;</li>
 *     <li>{@code pingPong}: two threads, each end in its own, a slot out on one FIFO and back on another: the
 *     {@code :ping} row is the time of one round trip (two handoffs). Waits spin, then yield
 *     ({@link #SPINS_BEFORE_YIELD}); with two free cores they seldom get that far.</li>
 * </ul>
 * {@code protocol} takes the protocols' stable names ({@code -p protocol=ll} runs one); a new protocol joins by
 * adding its name to the {@code @Param} list.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED")
public class FifoSlotBenchmark
{

    /**
     * Busy polls before a waiting thread of {@code pingPong} yields, as jccl's progress loops spin then yield: when
     * another process holds one of two cores, a pure spinner waits out the scheduler's slice (about 1 ms).
     */
    public static final int SPINS_BEFORE_YIELD = 100;

    private static final long SHAPE = 0x5a5a_0001L;
    private static final long PLAN = 0x5a5a_0002L;

    /** The benchmark class holds no state of its own; the FIFOs live in {@link Fifos}. */
    public FifoSlotBenchmark()
    {
    }

    /**
     * Two FIFOs between ranks 0 and 1 on channel 0: {@code out} from 0 to 1 and {@code back} from 1 to 0. JMH
     * wants a state per scope: {@link OneThread} for {@code roundTrip}, {@link TwoThreads} for {@code pingPong}
     * (JMH takes {@code @Param} fields only in a {@code @State} class; the subclasses override the scope).
     */
    @State(Scope.Thread)
    public abstract static class Fifos
    {
        /** The protocol's stable lower-case name. */
        @Param({"simple", "ll", "ll128"})
        public String protocol;

        /**
         * Bytes of payload per slot: by default one 8-byte word, the smallest message a collective sends; up to a
         * slot's length ({@code -p payload=30720}: what the framing's copies cost per byte).
         */
        @Param({"8"})
        public int payload;

        /** Rank 0's sending end towards rank 1. */
        public SendConnector outSender;
        /** Rank 1's receiving end from rank 0. */
        public RecvConnector outReceiver;
        /** Rank 1's sending end towards rank 0. */
        public SendConnector backSender;
        /** Rank 0's receiving end from rank 1. */
        public RecvConnector backReceiver;

        private Connections transport;
        // written by rank 0's thread only; rank 1 echoes what it receives
        private long outSeq;

        /** Creates the state; JMH fills the parameters before {@link #connect()}. */
        protected Fifos()
        {
        }

        /** Creates the transport and both FIFOs (their memory is allocated and touched here, not when timed). */
        @Setup(Level.Trial)
        public void connect()
        {
            final Protocol framing = Protocol.fromName(protocol);
            transport = new Connections();
            outSender = transport.sender(0, 1, 0, framing);
            outReceiver = transport.receiver(0, 1, 0, framing);
            backSender = transport.sender(1, 0, 0, framing);
            backReceiver = transport.receiver(1, 0, 0, framing);
        }

        /** Frees the FIFOs. */
        @TearDown(Level.Trial)
        public void close()
        {
            transport.close();
        }

        /** @return the next sequence number on {@code out} (rank 0's thread only). */
        long nextOutSeq()
        {
            return ++outSeq;
        }
    }

    /** The FIFOs of one thread. */
    @State(Scope.Thread)
    public static class OneThread extends Fifos
    {
        /** Creates the state. */
        public OneThread()
        {
        }
    }

    /** The FIFOs shared by the two threads of a {@code pingPong} group. */
    @State(Scope.Group)
    public static class TwoThreads extends Fifos
    {
        /** Creates the state. */
        public TwoThreads()
        {
        }
    }

    /**
     * Publishes one slot and consumes it in the same thread.
     *
     * @param fifos the connectors.
     * @return the payload read back, so that the JIT keeps the read.
     */
    @Benchmark
    public long roundTrip(final OneThread fifos)
    {
        final SendConnector sender = fifos.outSender;
        final RecvConnector receiver = fifos.outReceiver;
        while (!sender.hasSpace())
        {
            Thread.onSpinWait(); // never taken: every slot is released before the next is written
        }
        final long seq = fifos.nextOutSeq();
        UnsafeApi.putLong(sender.slotAddress(), seq);
        sender.publish(fifos.payload, seq, SHAPE, PLAN);
        while (!receiver.hasData())
        {
            Thread.onSpinWait();
        }
        final long payload = UnsafeApi.getLong(receiver.slotAddress());
        receiver.release();
        return payload;
    }

    /**
     * Rank 0: sends a slot to rank 1 and waits for the slot that rank 1 sends back.
     *
     * @param fifos   the connectors, shared with {@link #pong}.
     * @param control tells when JMH ends the iteration, so that neither thread spins on a peer that has stopped.
     * @return the payload received, or -1 when the iteration ended first.
     */
    @Benchmark
    @Group("pingPong")
    @GroupThreads(1)
    public long ping(final TwoThreads fifos, final Control control)
    {
        if (!send(fifos.outSender, fifos.nextOutSeq(), fifos.payload, control))
        {
            return -1;
        }
        return receive(fifos.backReceiver, control);
    }

    /**
     * Rank 1: waits for rank 0's slot and sends one back.
     *
     * @param fifos   the connectors, shared with {@link #ping}.
     * @param control tells when JMH ends the iteration.
     * @return the payload received, or -1 when the iteration ended first.
     */
    @Benchmark
    @Group("pingPong")
    @GroupThreads(1)
    public long pong(final TwoThreads fifos, final Control control)
    {
        final long payload = receive(fifos.outReceiver, control);
        // echoes the payload as its sequence number: this thread writes no counter next to rank 0's
        if (payload < 0 || !send(fifos.backSender, payload, fifos.payload, control))
        {
            return -1;
        }
        return payload;
    }

    private static long receive(final RecvConnector receiver, final Control control)
    {
        int polls = 0;
        while (!receiver.hasData())
        {
            if (control.stopMeasurement)
            {
                return -1;
            }
            polls = idle(polls);
        }
        final long payload = UnsafeApi.getLong(receiver.slotAddress());
        receiver.release();
        return payload;
    }

    private static boolean send(final SendConnector sender, final long seq, final int length, final Control control)
    {
        int polls = 0;
        while (!sender.hasSpace())
        {
            if (control.stopMeasurement)
            {
                return false;
            }
            polls = idle(polls);
        }
        UnsafeApi.putLong(sender.slotAddress(), seq);
        sender.publish(length, seq, SHAPE, PLAN);
        return true;
    }

    private static int idle(final int polls)
    {
        if (polls < SPINS_BEFORE_YIELD)
        {
            Thread.onSpinWait();
            return polls + 1;
        }
        Thread.yield();
        return polls;
    }
}
