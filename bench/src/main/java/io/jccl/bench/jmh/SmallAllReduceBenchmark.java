package io.jccl.bench.jmh;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The latency floor of a collective: an 8-byte AllReduce (2 FLOAT32, SUM, out of place) among 2 ranks of this
 * process, issued as nccl-tests issues it (one group call over both ranks, then a join of each rank's work), with
 * the settings' defaults ({@code JCCL_*} variables apply). Reports microseconds per AllReduce.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED")
@State(Scope.Thread)
public class SmallAllReduceBenchmark
{
    /** Ranks in the communicator. */
    public static final int RANKS = 2;
    /** Elements per rank: 2 FLOAT32 = 8 bytes. */
    public static final int COUNT = 2;

    private final HostBuffer[] send = new HostBuffer[RANKS];
    private final HostBuffer[] recv = new HostBuffer[RANKS];
    private final Work[] work = new Work[RANKS];
    private Communicator[] comms;

    /** Creates the benchmark; JMH calls {@link #init()} before measuring. */
    public SmallAllReduceBenchmark()
    {
    }

    /** Creates the two ranks and their buffers (rank r sends r + 1 in every element). */
    @Setup(Level.Trial)
    public void init()
    {
        comms = Jccl.initAll(new Context(), RANKS);
        for (int r = 0; r < RANKS; r++)
        {
            send[r] = HostBuffer.allocate((long)COUNT * Float.BYTES);
            recv[r] = HostBuffer.allocate((long)COUNT * Float.BYTES);
            for (int i = 0; i < COUNT; i++)
            {
                send[r].byteBuffer().putFloat(i * Float.BYTES, r + 1f);
            }
        }
    }

    /**
     * Checks the last result (1 + 2 in every element of every rank) and closes the ranks.
     *
     * @throws IllegalStateException if a rank holds a wrong sum.
     */
    @TearDown(Level.Trial)
    public void close()
    {
        try
        {
            for (int r = 0; r < RANKS; r++)
            {
                for (int i = 0; i < COUNT; i++)
                {
                    final float sum = recv[r].byteBuffer().getFloat(i * Float.BYTES);
                    if (sum != 3f)
                    {
                        throw new IllegalStateException("rank " + r + " element " + i + ": " + sum + ", not 3.0");
                    }
                }
            }
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.close();
            }
        }
    }

    /** One AllReduce on both ranks: a group call, then a join of each rank's work. */
    @Benchmark
    public void allReduce()
    {
        Jccl.groupStart();
        for (final Communicator c : comms)
        {
            final int r = c.rank();
            work[r] = c.allReduce(send[r], recv[r], COUNT, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT);
        }
        Jccl.groupEnd();
        for (final Work w : work)
        {
            w.join();
        }
    }
}
