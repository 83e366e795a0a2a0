package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.JcclRemoteException;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.kernels.cuda.EmulatedCuda;
import io.jccl.kernels.cuda.HostBuiltInterpreter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Ranks on CUDA that make different calls. Ranks of one process on one device bind their calls to one launch, and
 * different kernels there are named before anything starts; otherwise the rank that receives a slot of the other call
 * fails at once with the error that names it, under SIMPLE (whose receivers check each slot's header before reading
 * it) and under LL (whose receivers read words as they come, and check the header once the sender has published the
 * slot, or while they wait for words that never come); on the Java model and through the kernel's own source. The
 * deadline is long, so a timeout instead of the named error fails the test.
 */
class CudaCallMismatchTest
{
    @ParameterizedTest(name = "{0}, kernel source {1}")
    @CsvSource({"SIMPLE, false", "LL, false", "SIMPLE, true", "LL, true"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldNameTheMismatchWhenRanksMakeDifferentCalls(final Protocol protocol, final boolean kernelSource)
        throws Exception
    {
        // a device each, so that each rank's kernel runs and receives the other call's slots (ranks sharing a device
        // are checked before their one launch: shouldNameTheMismatchBeforeLaunchingRanksThatShareADevice)
        EmulatedCuda cuda = new EmulatedCuda(2, 132);
        if (kernelSource)
        {
            final Path library = CudaKernelSourceGridTest.library();
            assumeTrue(library != null, CudaKernelSourceGridTest::skipReason);
            cuda = cuda.runKernelSource(HostBuiltInterpreter.load(library), 4);
        }
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda).protocol(protocol).timeoutMs(30_000), 2);
        try
        {
            final Work[] works = new Work[2];
            Jccl.groupStart();
            for (int r = 0; r < 2; r++)
            {
                final Buffer b = DeviceBuffer.of(cuda.malloc(8192), 8192, r);
                works[r] = r == 0 ? comms[r].allReduce(b, b, 1024, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT) :
                    comms[r].broadcast(b, b, 1024, DataType.FLOAT32, 1, Stream.DEFAULT);
            }
            Jccl.groupEnd();
            assertNamedSoon(works[0], "received from a peer a slot of another call or plan: the ranks do not run " +
                "the same sequence of calls");
        }
        finally
        {
            abortAndClose(comms);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"SIMPLE", "LL"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldNameTheMismatchBeforeLaunchingRanksThatShareADevice(final Protocol protocol)
    {
        final EmulatedCuda cuda = new EmulatedCuda();
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda).protocol(protocol).timeoutMs(30_000), 2);
        try
        {
            final Work[] works = new Work[2];
            Jccl.groupStart();
            for (int r = 0; r < 2; r++)
            {
                final Buffer b = DeviceBuffer.of(cuda.malloc(8192), 8192, 0);
                works[r] = r == 0 ? comms[r].allReduce(b, b, 1024, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT) :
                    comms[r].broadcast(b, b, 1024, DataType.FLOAT32, 1, Stream.DEFAULT);
            }
            Jccl.groupEnd();
            final String error = assertNamedSoon(works[1], "which shares CUDA device 0 and starts its kernels in " +
                "one launch with it");
            assertTrue(error.contains("_copy") && error.contains("_float32_sum"), error);
            assertEquals(0, cuda.interpreterLaunches(), "nothing launched");
        }
        finally
        {
            abortAndClose(comms);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldStopEveryRankOfASharedLaunchWhenOneKernelFindsAnotherCallsSlot()
    {
        // one kernel for both (the same type, op, protocol and ring), different counts: the receiving kernel finds a
        // slot of another call, and the other rank's blocks in the same grid stop with it
        final EmulatedCuda cuda = new EmulatedCuda();
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda).protocol(Protocol.SIMPLE)
            .algorithm(io.jccl.Algorithm.RING).timeoutMs(30_000), 2);
        try
        {
            final Work[] works = new Work[2];
            Jccl.groupStart();
            for (int r = 0; r < 2; r++)
            {
                final Buffer b = DeviceBuffer.of(cuda.malloc(8192), 8192, 0);
                works[r] = comms[r].allReduce(b, b, r == 0 ? 1024 : 1000, DataType.FLOAT32, ReduceOp.SUM,
                    Stream.DEFAULT);
            }
            Jccl.groupEnd();
            for (final Work w : works)
            {
                assertNamedSoon(w, "the ranks do not run the same sequence of calls");
            }
            assertEquals(1, cuda.interpreterLaunches(), "one grid for both ranks");
        }
        finally
        {
            abortAndClose(comms);
        }
    }

    /** @return the message of the remote error the work ends with within 10 s, which contains {@code expected}. */
    private static String assertNamedSoon(final Work work, final String expected)
    {
        final long start = System.nanoTime();
        final JcclRemoteException error = assertThrows(JcclRemoteException.class, work::join);
        assertTrue(error.getMessage().contains(expected), error.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "named within 10 s, not at the 30 s " +
            "deadline");
        return error.getMessage();
    }

    private static void abortAndClose(final Communicator[] comms)
    {
        for (final Communicator c : comms)
        {
            c.abort();
            c.close();
        }
    }
}
