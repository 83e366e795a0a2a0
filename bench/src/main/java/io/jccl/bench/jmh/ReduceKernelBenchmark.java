package io.jccl.bench.jmh;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.kernels.HostReducer;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The host reduce kernels, {@code HostReducer.of(type, SUM, 0).reduce(a, false, b, false, dst, count)} over
 * off-heap memory, against a plain copy of the same length ({@code UnsafeApi.copyMemory}).
 * <p>
 * Score = GB/s of result: every invocation writes {@link #BYTES_PER_INVOCATION} bytes of {@code dst} (the
 * kernel over a {@code length}-byte buffer, repeated), and counts one operation per byte, so JMH's "ops/ns" reads
 * as GB/s (10^9 bytes per second). A reduce also reads two inputs of that length, a copy one. {@code length}
 * chooses where the buffers live: 1 MiB (three buffers: cache-resident on most machines) or 64 MiB (memory).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED")
public class ReduceKernelBenchmark
{
    /** Bytes of result per invocation: 64 MiB, a multiple of every {@code length}. */
    public static final int BYTES_PER_INVOCATION = 64 << 20;

    /** The benchmark class holds no state of its own; the states are {@link Kernel} and {@link Buffers}. */
    public ReduceKernelBenchmark()
    {
    }

    /** Three off-heap buffers of {@code length} bytes: two operands and a result. */
    @State(Scope.Thread)
    public static class Buffers
    {
        /** Bytes per buffer; divides {@link #BYTES_PER_INVOCATION}. */
        @Param({"1048576", "67108864"})
        public int length;

        /** Address of the first operand. */
        public long a;
        /** Address of the second operand. */
        public long b;
        /** Address of the result. */
        public long dst;
        /** How often the kernel runs per invocation. */
        public int repeats;

        // the direct buffers own the memory: kept reachable for as long as the addresses are used
        private ByteBuffer[] owners;

        /** Creates the state; JMH fills the parameters before {@link #allocate()}. */
        public Buffers()
        {
        }

        /** Allocates the buffers and fills the operands with values that are normal numbers in every type. */
        @Setup(Level.Trial)
        public void allocate()
        {
            if (length <= 0 || BYTES_PER_INVOCATION % length != 0)
            {
                throw new IllegalArgumentException("length=" + length + " must divide " + BYTES_PER_INVOCATION);
            }
            repeats = BYTES_PER_INVOCATION / length;
            owners = new ByteBuffer[] { aligned(length), aligned(length), aligned(length) };
            a = BufferUtil.address(owners[0]);
            b = BufferUtil.address(owners[1]);
            dst = BufferUtil.address(owners[2]);
            // 0x3c bytes are normal numbers in every floating type (1.0 in E5M2, 1.5 in E4M3, 1.06 in FP16, 2^-60
            // in FP64): no subnormal slow paths, and a + b stays finite
            UnsafeApi.setMemory(a, length, (byte)0x3c);
            UnsafeApi.setMemory(b, length, (byte)0x3c);
            UnsafeApi.setMemory(dst, length, (byte)0);
        }

        private static ByteBuffer aligned(final int length)
        {
            return BufferUtil.allocateDirectAligned(length, 64);
        }
    }

    /** The reducer of one element type; its buffers come from {@link Buffers}. */
    @State(Scope.Thread)
    public static class Kernel
    {
        /** The element type (JMH runs every constant unless {@code -p type=...} picks some). */
        @Param
        public DataType type;

        /** SUM over {@link #type}. */
        public HostReducer reducer;

        /** Creates the state; JMH fills the parameters before {@link #select()}. */
        public Kernel()
        {
        }

        /** Looks up the shared SUM reducer of the type. */
        @Setup(Level.Trial)
        public void select()
        {
            reducer = HostReducer.of(type, ReduceOp.Kind.SUM, 0);
        }
    }

    /**
     * {@code dst = a + b}, {@code length} bytes at a time.
     *
     * @param kernel  the reducer.
     * @param buffers operands and result.
     */
    @Benchmark
    @OperationsPerInvocation(BYTES_PER_INVOCATION)
    public void reduce(final Kernel kernel, final Buffers buffers)
    {
        final HostReducer reducer = kernel.reducer;
        final long count = buffers.length / kernel.type.byteSize();
        for (int i = 0; i < buffers.repeats; i++)
        {
            reducer.reduce(buffers.a, false, buffers.b, false, buffers.dst, count);
        }
    }

    /**
     * The baseline: {@code dst = a}, {@code length} bytes at a time.
     *
     * @param buffers source and destination.
     */
    @Benchmark
    @OperationsPerInvocation(BYTES_PER_INVOCATION)
    public void copy(final Buffers buffers)
    {
        for (int i = 0; i < buffers.repeats; i++)
        {
            UnsafeApi.copyMemory(buffers.a, buffers.dst, buffers.length);
        }
    }
}
