package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.kernels.cuda.EmulatedCuda;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Ranks of one process that share a CUDA device wait for each other inside their kernels, so a rank must never make
 * the driver wait for the device to be idle between its peers' launches and its own: freeing memory, loading kernels
 * and work on the legacy default stream do. They hung an H200 in {@code bench/gpu-check.sh} (the first integer AVG
 * loaded the elementwise module mid-call; a new FIFO was zeroed on the legacy stream; a rank whose scratch grew freed
 * the old one while its peers' kernels waited for its own). The device
 * double now waits as the driver does and calls a wait that cannot end an error, so these run one thread driving
 * every rank, as {@code all_reduce_perf -g 4 -t 1} does, on a fresh double each (nothing loaded yet).
 */
class CudaDeviceWaitTest
{
    private static final long TIMEOUT_MS = 30_000;

    @Test
    @Timeout(60)
    void shouldLoadTheDivisionKernelBeforeAnyRankLaunches()
    {
        final int ranks = 2;
        final int count = 1021;
        try (Ranks r = new Ranks(new Context().timeoutMs(TIMEOUT_MS), ranks, count * 4L))
        {
            for (int rank = 0; rank < ranks; rank++)
            {
                for (int i = 0; i < count; i++)
                {
                    UnsafeApi.putInt(r.send[rank] + 4L * i, (rank + 1) * 2 * i - 7);
                }
            }
            final long loaded = r.cuda.loads();
            r.allReduce(count, DataType.INT32, ReduceOp.AVG);
            assertEquals(loaded, r.cuda.loads(), "modules loaded or kernels looked up after the communicators were " +
                "made");
            for (int rank = 0; rank < ranks; rank++)
            {
                for (int i = 0; i < count; i++)
                {
                    // (2i - 7 + 4i - 7) / 2, exact
                    assertEquals(3 * i - 7, UnsafeApi.getInt(r.recv[rank] + 4L * i), "rank " + rank + " [" + i + "]");
                }
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldKeepScratchThatGrowsWhilePeersKernelsRun()
    {
        final int ranks = 4;
        final int[] counts = {2, 1000, 70_000};
        try (Ranks r = new Ranks(new Context().algorithm(Algorithm.TREE).timeoutMs(TIMEOUT_MS), ranks,
            counts[counts.length - 1] * 4L))
        {
            for (final int count : counts)
            {
                for (int rank = 0; rank < ranks; rank++)
                {
                    for (int i = 0; i < count; i++)
                    {
                        UnsafeApi.putFloat(r.send[rank] + 4L * i, rank + i % 64);
                    }
                }
                r.allReduce(count, DataType.FLOAT32, ReduceOp.SUM);
                for (int rank = 0; rank < ranks; rank++)
                {
                    for (int i = 0; i < count; i++)
                    {
                        // 0 + 1 + 2 + 3 + 4 * (i % 64): small integers, exact in any order of addition
                        assertEquals(6f + 4 * (i % 64), UnsafeApi.getFloat(r.recv[rank] + 4L * i),
                            "count " + count + " rank " + rank + " [" + i + "]");
                    }
                }
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldMakeAFifoWithoutTheLegacyStreamWhileAPeersKernelRuns()
    {
        // all_reduce_perf -g 4's first call on an H200 (ring, one thread, four ranks sharing the GPU): rank 1's first
        // call makes its FIFO to rank 2 after rank 0's kernel is running, and zeroed it on the legacy default stream
        final int ranks = 4;
        final int count = 262_144;
        try (Ranks r = new Ranks(new Context().algorithm(Algorithm.RING).timeoutMs(TIMEOUT_MS), ranks, count * 4L))
        {
            for (int rank = 0; rank < ranks; rank++)
            {
                for (int i = 0; i < count; i++)
                {
                    UnsafeApi.putFloat(r.send[rank] + 4L * i, rank * (i % 16));
                }
            }
            r.allReduce(count, DataType.FLOAT32, ReduceOp.SUM);
            for (int rank = 0; rank < ranks; rank++)
            {
                for (int i = 0; i < count; i += 127)
                {
                    // (0 + 1 + 2 + 3) * (i % 16)
                    assertEquals(6f * (i % 16), UnsafeApi.getFloat(r.recv[rank] + 4L * i), "rank " + rank + " [" + i +
                        "]");
                }
            }
        }
    }

    /** Communicators on a fresh device double, with a send and a receive allocation per rank. */
    private static final class Ranks implements AutoCloseable
    {
        final EmulatedCuda cuda = new EmulatedCuda();
        final Communicator[] comms;
        final long[] send;
        final long[] recv;
        final long bytes;

        Ranks(final Context context, final int ranks, final long bytes)
        {
            this.comms = Jccl.initAll(context.cuda(cuda), ranks);
            this.bytes = bytes;
            this.send = new long[ranks];
            this.recv = new long[ranks];
            for (int r = 0; r < ranks; r++)
            {
                send[r] = cuda.malloc(bytes);
                recv[r] = cuda.malloc(bytes);
            }
        }

        /** One call on every rank, issued in a group by this thread alone, then waited for. */
        void allReduce(final int count, final DataType type, final ReduceOp op)
        {
            final Work[] works = new Work[comms.length];
            Jccl.groupStart();
            try
            {
                for (int r = 0; r < comms.length; r++)
                {
                    works[r] = comms[r].allReduce(DeviceBuffer.of(send[r], bytes, 0), DeviceBuffer.of(recv[r], bytes,
                        0), count, type, op, Stream.DEFAULT);
                }
            }
            finally
            {
                Jccl.groupEnd();
            }
            Arrays.stream(works).forEach(Work::join);
        }

        @Override
        public void close()
        {
            Arrays.stream(comms).forEach(Communicator::close);
            Arrays.stream(send).forEach(cuda::free);
            Arrays.stream(recv).forEach(cuda::free);
        }
    }
}
