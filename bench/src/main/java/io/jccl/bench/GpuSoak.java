package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import io.jccl.kernels.cuda.CudaApi;
import org.agrona.UnsafeApi;

import java.io.PrintStream;

/**
 * Part of {@code jccl-bench gpu-check}: back-to-back AllReduces on 2 and 4 ranks sharing the device, SIMPLE and LL,
 * each checked. A batch queues calls of odd counts (1 to 16383 int32 elements, a different count each call) without
 * waiting between them, each out of place into a region of its own; then every region is read back and compared
 * element by element with the sums, and the element past each call's count must still hold the fill, so a call that
 * writes too far or reads a stale FIFO slot shows. Prints, per rank count and protocol, the calls, the wrong ones (the
 * first few named) and the microseconds a call took in the batches.
 */
final class GpuSoak
{
    /** Most elements a call moves; counts are odd, below it. */
    private static final int MAX_COUNT = 16384;
    /** Calls queued back to back before the outputs are read. */
    private static final int BATCH = 50;
    /** What the output regions hold before a batch: an int no sum here reaches. */
    private static final int FILL = 0x7f7f7f7f;
    private static final long TIMEOUT_MS = 20_000;

    private final CudaApi api;
    private final PrintStream out;

    GpuSoak(final CudaApi api, final PrintStream out)
    {
        this.api = api;
        this.out = out;
    }

    /**
     * @param calls calls per rank count and protocol, a multiple of the batch or rounded up to one.
     * @return the wrong calls over all.
     */
    long run(final int calls)
    {
        long wrong = 0;
        for (final int ranks : new int[] {2, 4})
        {
            for (final Protocol protocol : new Protocol[] {Protocol.SIMPLE, Protocol.LL})
            {
                try
                {
                    wrong += soak(ranks, protocol, Math.max(BATCH, calls / BATCH * BATCH));
                }
                catch (final RuntimeException ex)
                {
                    // a failed call breaks its communicators: the next shape starts afresh
                    out.println("WRONG soak " + ranks + " ranks " + protocol.lowerName() + ": " + ex);
                    wrong++;
                }
                out.flush();
            }
        }
        out.println("RESULT soak_wrong " + wrong);
        return wrong;
    }

    private long soak(final int ranks, final Protocol protocol, final int calls)
    {
        final Communicator[] comms = Jccl.initAll(new Context().cuda(api).protocol(protocol).channels(2)
            .timeoutMs(TIMEOUT_MS), ranks);
        final long regionBytes = 4L * MAX_COUNT;
        final long[] input = new long[ranks];
        final long[] output = new long[ranks];
        final long host = api.mallocHost(regionBytes * BATCH);
        long wrong = 0;
        long nanos = 0;
        try
        {
            for (int r = 0; r < ranks; r++)
            {
                api.setDevice(Jccl.cudaDevice(comms[r]));
                input[r] = api.malloc(regionBytes);
                output[r] = api.malloc(regionBytes * BATCH);
                for (int j = 0; j < MAX_COUNT; j++)
                {
                    UnsafeApi.putInt(host + 4L * j, value(r, j));
                }
                copy(input[r], host, regionBytes);
            }
            final Work[] works = new Work[ranks * BATCH];
            for (int first = 0; first < calls; first += BATCH)
            {
                for (int r = 0; r < ranks; r++)
                {
                    api.setDevice(Jccl.cudaDevice(comms[r]));
                    api.memsetAsync(output[r], 0x7f, regionBytes * BATCH, 0);
                    api.streamSynchronize(0);
                }
                final long start = System.nanoTime();
                for (int b = 0; b < BATCH; b++)
                {
                    final long count = count(first + b);
                    Jccl.groupStart();
                    for (int r = 0; r < ranks; r++)
                    {
                        final int device = Jccl.cudaDevice(comms[r]);
                        works[b * ranks + r] = comms[r].allReduce(DeviceBuffer.of(input[r], 4 * count, device),
                            DeviceBuffer.of(output[r] + regionBytes * b, 4 * count, device), count,
                            DataType.INT32, ReduceOp.SUM, Stream.DEFAULT);
                    }
                    Jccl.groupEnd();
                }
                for (final Work w : works)
                {
                    w.join();
                }
                nanos += System.nanoTime() - start;
                for (int r = 0; r < ranks; r++)
                {
                    api.setDevice(Jccl.cudaDevice(comms[r]));
                    copy(host, output[r], regionBytes * BATCH);
                    for (int b = 0; b < BATCH; b++)
                    {
                        final String failure = check(host + regionBytes * b, count(first + b), ranks);
                        if (failure != null && wrong++ < 5)
                        {
                            out.println("WRONG soak " + ranks + " ranks " + protocol.lowerName() + " call " +
                                (first + b) + " count " + count(first + b) + " rank " + r + ": " + failure);
                        }
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
            for (int r = 0; r < ranks; r++)
            {
                api.free(input[r]);
                api.free(output[r]);
            }
            api.freeHost(host);
        }
        out.printf("RESULT soak_%drank_%s calls %d wrong %d us_per_call %.2f%n", ranks, protocol.lowerName(), calls,
            wrong, nanos / 1e3 / calls);
        return wrong;
    }

    /** @return call i's count: odd, from 1 to {@link #MAX_COUNT} - 1, scattered so neighbours differ in size. */
    static long count(final int call)
    {
        return 1 + 2L * ((call * 7919L) % (MAX_COUNT / 2));
    }

    /** @return rank r's input element j: small, so a sum of 4 ranks stays far from {@link #FILL}. */
    static int value(final int rank, final int j)
    {
        return j % 1000 + 1000 * rank;
    }

    /** @return null when the region holds the sums up to its count and the fill just past it, else what differs. */
    private static String check(final long region, final long count, final int ranks)
    {
        for (int j = 0; j < count; j++)
        {
            int expected = 0;
            for (int r = 0; r < ranks; r++)
            {
                expected += value(r, j);
            }
            final int actual = UnsafeApi.getInt(region + 4L * j);
            if (actual != expected)
            {
                return "element " + j + " is " + actual + ", not " + expected;
            }
        }
        final int past = UnsafeApi.getInt(region + 4 * count);
        return count < MAX_COUNT && past != FILL ? "element " + count + ", past the count, was written (" + past +
            ")" : null;
    }

    private void copy(final long to, final long from, final long bytes)
    {
        api.memcpyAsync(to, from, bytes, 0);
        api.streamSynchronize(0);
    }
}
