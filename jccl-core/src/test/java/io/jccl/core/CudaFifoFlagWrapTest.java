package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.kernels.LlCodec;
import io.jccl.kernels.cuda.DeviceLayout;
import io.jccl.kernels.cuda.EmulatedCuda;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The CUDA FIFOs' LL flags across their wrap-around, reached by moving every idle FIFO to a slot sequence just
 * before it ({@link CudaGroup#restartFifosAt}): on the Java model and through the kernel's own source, AllReduces of
 * many sizes stay exact across each wrap; and through the kernel's own source, a rank never takes words an older,
 * longer call left in a slot for the new call's, when the flags come round again.
 */
class CudaFifoFlagWrapTest
{
    private static final int SLOTS = DeviceLayout.SLOTS;
    /** Elements of the long calls: more than one LL slot's payload per rank. */
    private static final int LONG = 3 * DeviceLayout.LL_PAYLOAD / 4 + 5;

    @ParameterizedTest(name = "kernel source {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldStayExactAcrossTheFlagsWrap(final boolean kernelSource) throws Exception
    {
        final EmulatedCuda cuda = cuda(kernelSource);
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda).protocol(Protocol.LL), 2);
        final long[] memory = {cuda.malloc(4L * LONG), cuda.malloc(4L * LONG)};
        try
        {
            allReduce(comms, memory, 1, 0, null);
            for (final long start : new long[] {LlCodec.LL_FLAG_PERIOD - 20, LlCodec.LL_FLAG_PERIOD / 2 - 20,
                (1L << 32) - 20})
            {
                restart(comms, start);
                for (int call = 0; call < 12; call++)
                {
                    final int count = call % 3 == 0 ? LONG : 1 + 37 * call;
                    allReduce(comms, memory, count, call, null);
                }
            }
        }
        finally
        {
            close(comms);
        }
    }

    /**
     * A long call at slot sequence s, then short calls through the half periods' last turns of the ring, then the
     * same long call at s + LL_FLAG_PERIOD, the same slots and flags, with rank 1's stream held: rank 0's kernel
     * waits for rank 1's words and must not take the old call's, which the fills overwrote. Without the fills it
     * took them and ended with the old call's data (tried). The Java model reads a step only once all its words
     * carry the flag, so the short calls' words already hold it back: only the kernel shows this.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldNotTakeAnOlderCallsWordsWhenTheFlagsComeRoundAgain() throws Exception
    {
        final EmulatedCuda cuda = cuda(true);
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda).protocol(Protocol.LL)
            .algorithm(io.jccl.Algorithm.RING).channels(1), 2);
        final long[] memory = {cuda.malloc(4L * LONG), cuda.malloc(4L * LONG)};
        try
        {
            allReduce(comms, memory, 1, 0, null);
            final long first = 100;
            restart(comms, first);
            allReduce(comms, memory, LONG, 1000, null);
            for (long half = LlCodec.LL_FLAG_PERIOD / 2; half <= first + LlCodec.LL_FLAG_PERIOD;
                half += LlCodec.LL_FLAG_PERIOD / 2)
            {
                restart(comms, half - SLOTS);
                for (int call = 0; call < SLOTS; call++)
                {
                    allReduce(comms, memory, 1, call, null);
                }
            }
            restart(comms, first + LlCodec.LL_FLAG_PERIOD);
            allReduce(comms, memory, LONG, 2000, cuda);
        }
        finally
        {
            close(comms);
        }
    }

    private static EmulatedCuda cuda(final boolean kernelSource) throws Exception
    {
        final EmulatedCuda cuda = new EmulatedCuda();
        if (!kernelSource)
        {
            return cuda;
        }
        final java.nio.file.Path library = CudaKernelSourceGridTest.library();
        assumeTrue(library != null, CudaKernelSourceGridTest::skipReason);
        return cuda.runKernelSource(io.jccl.kernels.cuda.HostBuiltInterpreter.load(library), 4);
    }

    private static void restart(final Communicator[] comms, final long slot)
    {
        ((LocalCommunicator)comms[0]).group().cuda.restartFifosAt(slot);
    }

    /**
     * An int sum AllReduce in place, rank r holding {@code seed + 3i + r}; checked on both ranks.
     *
     * @param holdRank1 where not null, rank 1's call goes on a stream of this double held for 300 ms after both calls
     *                  are queued, so rank 0's kernel runs alone first.
     */
    private static void allReduce(final Communicator[] comms, final long[] memory, final int count, final int seed,
        final EmulatedCuda holdRank1) throws InterruptedException
    {
        final Work[] works = new Work[2];
        long held = 0;
        Jccl.groupStart();
        for (int r = 0; r < 2; r++)
        {
            for (int i = 0; i < count; i++)
            {
                UnsafeApi.putInt(memory[r] + 4L * i, seed + 3 * i + r);
            }
            final Buffer b = DeviceBuffer.of(memory[r], 4L * count, 0);
            Stream stream = Stream.DEFAULT;
            if (r == 1 && holdRank1 != null)
            {
                stream = Stream.wrapNative(0x7100_0000L);
                held = holdRank1.wrapStream(stream.nativeHandle());
                holdRank1.hold(held, true);
            }
            works[r] = comms[r].allReduce(b, b, count, DataType.INT32, ReduceOp.SUM, stream);
        }
        Jccl.groupEnd();
        if (holdRank1 != null)
        {
            Thread.sleep(300);
            holdRank1.hold(held, false);
        }
        for (final Work w : works)
        {
            w.join();
        }
        for (int r = 0; r < 2; r++)
        {
            for (int i = 0; i < count; i++)
            {
                assertEquals(2 * (seed + 3 * i) + 1, UnsafeApi.getInt(memory[r] + 4L * i), "rank " + r + " [" + i +
                    "] of " + count);
            }
        }
    }

    private static void close(final Communicator[] comms)
    {
        for (final Communicator c : comms)
        {
            c.close();
        }
    }
}
