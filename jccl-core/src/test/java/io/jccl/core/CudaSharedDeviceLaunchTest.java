package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.JcclInvalidUsageException;
import io.jccl.JcclTimeoutException;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.kernels.cuda.EmulatedCuda;
import io.jccl.kernels.cuda.HostBuiltInterpreter;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Ranks of one process that share a CUDA device start each call's kernels as one grid ({@link DeviceLaunch}), so no
 * rank's kernel waits on one the device has not started: ranks the caller put on one stream (where kernels launched
 * one per rank run one after the other, and the first waits for the second forever) finish; a rank that never makes
 * the call is named; more ranks than one launch runs are refused when the communicator is made. The emulation runs a
 * stream's work in order, as CUDA does.
 */
class CudaSharedDeviceLaunchTest
{
    private static final int COUNT = 1000;

    @ParameterizedTest(name = "{0} ranks on {1} device(s)")
    @CsvSource({"2, 1", "4, 1", "4, 2", "3, 2"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldLaunchEachCallOnceForTheRanksThatShareADevice(final int ranks, final int devices)
    {
        final EmulatedCuda cuda = new EmulatedCuda(devices, 132);
        final int calls = 5;
        final long[] memory = allocate(cuda, ranks);
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda), ranks);
        try
        {
            for (int c = 0; c < calls; c++)
            {
                allReduceInt32(comms, memory, devices, i -> Stream.DEFAULT);
                assertSums(memory, ranks, c + 1);
            }
            // ranks are spread over the devices round-robin: a launch per device with ranks, per call
            assertEquals((long)calls * Math.min(ranks, devices), cuda.interpreterLaunches());
        }
        finally
        {
            closeAll(comms);
        }
    }

    @ParameterizedTest(name = "kernel source {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldFinishWhenTheCallerGivesEveryRankOneStream(final boolean kernelSource) throws Exception
    {
        EmulatedCuda cuda = new EmulatedCuda();
        if (kernelSource)
        {
            final Path library = CudaKernelSourceGridTest.library();
            assumeTrue(library != null, CudaKernelSourceGridTest::skipReason);
            cuda = cuda.runKernelSource(HostBuiltInterpreter.load(library), 4);
        }
        final int ranks = 3;
        final long[] memory = allocate(cuda, ranks);
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda).timeoutMs(20_000), ranks);
        try
        {
            // one caller's stream for all: kernels launched one per rank would queue there one behind the other
            final Stream one = Stream.wrapNative(0x7100_0000L);
            for (int c = 0; c < 3; c++)
            {
                allReduceInt32(comms, memory, 1, i -> one);
                assertSums(memory, ranks, c + 1);
            }
        }
        finally
        {
            closeAll(comms);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldNameTheRanksOfTheDeviceThatNeverMadeTheCall()
    {
        final EmulatedCuda cuda = new EmulatedCuda();
        final long[] memory = allocate(cuda, 3);
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda).timeoutMs(500), 3);
        try
        {
            final Work[] works = new Work[2];
            Jccl.groupStart();
            for (int r = 0; r < 2; r++)
            {
                final Buffer b = DeviceBuffer.of(memory[r], 4L * COUNT, 0);
                works[r] = comms[r].allReduce(b, b, COUNT, DataType.INT32, ReduceOp.SUM, Stream.DEFAULT);
            }
            Jccl.groupEnd();
            // whichever rank's deadline passes first names rank 2; the other's call ends with that cause
            for (final Work w : works)
            {
                final JcclTimeoutException error = assertThrows(JcclTimeoutException.class, w::join);
                assertTrue(error.getMessage().contains("waited 500 ms for rank(s) 2 of this process, which share " +
                    "CUDA device 0 with it and start their kernels in one launch with it"), error.getMessage());
            }
            assertEquals(0, cuda.interpreterLaunches(), "nothing launched");
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.abort();
                c.close();
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRefuseMoreRanksOnADeviceThanOneLaunchRuns()
    {
        final JcclInvalidUsageException error = assertThrows(JcclInvalidUsageException.class,
            () -> Jccl.initAll(new Context().cuda(new EmulatedCuda()), 9));
        assertTrue(error.getMessage().contains("9 ranks of this process share CUDA device 0: at most 8 run in one " +
            "launch"), error.getMessage());
    }

    private static long[] allocate(final EmulatedCuda cuda, final int ranks)
    {
        final long[] memory = new long[ranks];
        for (int r = 0; r < ranks; r++)
        {
            memory[r] = cuda.malloc(4L * COUNT);
            for (int i = 0; i < COUNT; i++)
            {
                UnsafeApi.putInt(memory[r] + 4L * i, i + r);
            }
        }
        return memory;
    }

    /** An in-place INT32 sum over every rank, issued as one group from this thread, and joined. */
    private static void allReduceInt32(final Communicator[] comms, final long[] memory, final int devices,
        final java.util.function.IntFunction<Stream> stream)
    {
        for (final Work w : submitInt32Sums(comms, memory, devices, COUNT, stream))
        {
            w.join();
        }
    }

    /**
     * @param comms   every rank.
     * @param memory  each rank's device memory of {@code count} INT32.
     * @param devices the devices the ranks are spread over, round-robin.
     * @param count   elements.
     * @param stream  each rank's stream.
     * @return the calls of an in-place INT32 sum over every rank, issued as one group from this thread.
     */
    static Work[] submitInt32Sums(final Communicator[] comms, final long[] memory, final int devices,
        final long count, final java.util.function.IntFunction<Stream> stream)
    {
        final Work[] works = new Work[comms.length];
        Jccl.groupStart();
        for (int r = 0; r < comms.length; r++)
        {
            final Buffer b = DeviceBuffer.of(memory[r], 4L * count, r % devices);
            works[r] = comms[r].allReduce(b, b, count, DataType.INT32, ReduceOp.SUM, stream.apply(r));
        }
        Jccl.groupEnd();
        return works;
    }

    /**
     * Element i starts as i + r on rank r; after k in-place sums every rank holds ranks^(k-1) * sum over r of
     * (i + r), computed here in long arithmetic and compared as the int the sums wrap to.
     */
    private static void assertSums(final long[] memory, final int ranks, final int calls)
    {
        long scale = 1;
        for (int k = 1; k < calls; k++)
        {
            scale *= ranks;
        }
        for (int r = 0; r < ranks; r++)
        {
            for (int i = 0; i < COUNT; i++)
            {
                final long first = (long)ranks * i + (long)ranks * (ranks - 1) / 2;
                assertEquals((int)(first * scale), UnsafeApi.getInt(memory[r] + 4L * i), "rank " + r + " [" + i +
                    "] after " + calls + " calls");
            }
        }
    }

    private static void closeAll(final Communicator[] comms)
    {
        for (final Communicator c : comms)
        {
            c.close();
        }
    }
}
