package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.JcclTimeoutException;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.core.CollectiveGrid.GridCase;
import io.jccl.core.CollectiveHarness.RankBuffers;
import io.jccl.kernels.cuda.EmulatedCuda;
import io.jccl.testkit.ReferenceCollectives;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CUDA executor without a GPU: communicators on {@link EmulatedCuda}, whose launches of the interpreter kernel
 * run in Java over the same launch, block and step records, chunk tables and FIFOs (SIMPLE slots with headers, LL
 * words with flags) the kernel reads. The covering-array grid runs with every rank's buffers as
 * {@link DeviceBuffer}s (the emulated device addresses host memory, so the harness's guard bytes and reference
 * checks apply unchanged), alternating SIMPLE and LL; the calls stay on the same communicators from case to case, so
 * the FIFO counters, which never reset, are exercised across calls too.
 */
class CudaEmulatedGridTest
{
    private static final long JCCL_TIMEOUT_MS = 60_000;
    private static final EmulatedCuda CUDA = new EmulatedCuda();
    private static final Map<String, Communicator[]> COMMUNICATORS = new HashMap<>();

    static java.util.stream.Stream<Object[]> cases()
    {
        final List<GridCase> all = CollectiveGrid.ciCases();
        return IntStream.range(0, all.size())
            .mapToObj(i -> new Object[] {all.get(i), i % 2 == 0 ? Protocol.SIMPLE : Protocol.LL});
    }

    @ParameterizedTest(name = "{index}: {0} {1}")
    @MethodSource("cases")
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldMatchReferenceOnEmulatedCuda(final GridCase gridCase, final Protocol protocol)
    {
        runCase(CUDA, COMMUNICATORS, gridCase, protocol);
    }

    /**
     * Runs one grid case on communicators of the double (made once per shape and kept in the map, dropped and
     * aborted when a case fails) with device buffers, and checks every rank's output against the reference.
     *
     * @param cuda          the device double.
     * @param communicators the communicators made so far, by shape.
     * @param gridCase      the case.
     * @param protocol      the protocol.
     */
    static void runCase(final EmulatedCuda cuda, final Map<String, Communicator[]> communicators,
        final GridCase gridCase, final Protocol protocol)
    {
        final String key = gridCase.ranks() + "/" + gridCase.algorithm() + "/" + gridCase.pipeline() + "/" + protocol;
        final Communicator[] comms;
        synchronized (communicators)
        {
            comms = communicators.computeIfAbsent(key, k -> Jccl.initAll(new Context()
                .cuda(cuda)
                .algorithm(gridCase.algorithm())
                .protocol(protocol)
                .timeoutMs(JCCL_TIMEOUT_MS)
                .channels(gridCase.pipeline().channels)
                .chunkBytes(gridCase.pipeline().chunkBytes), gridCase.ranks()));
        }
        boolean ok = false;
        try
        {
            final ByteBuffer[] inputs = CollectiveHarness.inputs(gridCase);
            final ByteBuffer expected = ReferenceCollectives.expected(gridCase.collective(), gridCase.algorithm(),
                inputs, gridCase.count(), gridCase.type(), gridCase.op(), gridCase.root());
            final RankBuffers[] buffers = CollectiveHarness.buffers(gridCase, inputs, expected);
            for (final RankBuffers b : buffers)
            {
                b.send = device(b.send);
                b.recv = device(b.recv);
            }
            CollectiveHarness.run(gridCase, comms, buffers);
            CollectiveHarness.check(gridCase.type(), buffers);
            ok = true;
        }
        finally
        {
            if (!ok)
            {
                synchronized (communicators)
                {
                    communicators.remove(key);
                }
                for (final Communicator c : comms)
                {
                    c.abort();
                }
            }
        }
    }

    /** The emulated device reads host addresses: a host buffer's memory, passed as device memory of device 0. */
    static Buffer device(final Buffer buffer)
    {
        if (!(buffer instanceof HostBuffer host))
        {
            return buffer;
        }
        return DeviceBuffer.of(BufferUtil.address(host.byteBuffer()) + host.offset(), Math.max(1, host.length()), 0);
    }

    @Test
    void shouldRefuseHostBuffersOnCudaRanks()
    {
        final Communicator[] comms = Jccl.initAll(new Context().cuda(CUDA), 1);
        try
        {
            final HostBuffer host = HostBuffer.allocate(64);
            final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
                () -> comms[0].allReduce(host, host, 4, DataType.FLOAT32, ReduceOp.SUM));
            assertTrue(ex.getMessage().startsWith("send is HostBuffer"), ex.getMessage());
            assertTrue(ex.getMessage().contains("CUDA device 0"), ex.getMessage());
            final Buffer other = DeviceBuffer.of(CUDA.malloc(64), 64, 1);
            final JcclInvalidArgumentException wrongDevice = assertThrows(JcclInvalidArgumentException.class,
                () -> comms[0].allReduce(device(host), other, 4, DataType.FLOAT32, ReduceOp.SUM));
            assertTrue(wrongDevice.getMessage().startsWith("recv is DeviceBuffer{device=1"), wrongDevice.getMessage());
        }
        finally
        {
            comms[0].close();
        }
    }

    @Test
    void shouldRefuseMoreWorkersThanMultiprocessorsBeforeLaunching()
    {
        final Communicator[] comms = Jccl.initAll(new Context().cuda(new EmulatedCuda(1, 4)).channels(4)
            .algorithm(io.jccl.Algorithm.RING), 2);
        try
        {
            final long memory = CUDA.malloc(1 << 16);
            final Buffer b = DeviceBuffer.of(memory, 1 << 16, 0);
            final Work work = comms[0].allReduce(b, b, 1024, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT);
            final JcclInvalidUsageException ex = assertThrows(JcclInvalidUsageException.class, work::join);
            assertTrue(ex.getMessage().contains("4 multiprocessors"), ex.getMessage());
        }
        finally
        {
            abortAndClose(comms);
        }
    }

    @ParameterizedTest(name = "kernel source {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldTimeOutAndAbortTheKernelWhenAPeerNeverCalls(final boolean kernelSource) throws Exception
    {
        // a device each: rank 0's kernel runs alone and waits for rank 1's slots (ranks sharing a device start
        // together or not at all: CudaSharedDeviceLaunchTest)
        EmulatedCuda cuda = new EmulatedCuda(2, 132);
        if (kernelSource)
        {
            final java.nio.file.Path library = CudaKernelSourceGridTest.library();
            org.junit.jupiter.api.Assumptions.assumeTrue(library != null, CudaKernelSourceGridTest::skipReason);
            cuda = cuda.runKernelSource(io.jccl.kernels.cuda.HostBuiltInterpreter.load(library), 4);
        }
        final EmulatedCuda two = cuda;
        final Communicator[] comms = Jccl.initAll(new Context().cuda(two).timeoutMs(500), 2);
        try
        {
            final long memory = two.malloc(4096);
            final Buffer b = DeviceBuffer.of(memory, 4096, 0);
            final JcclTimeoutException ex = assertThrows(JcclTimeoutException.class,
                () -> comms[0].allReduce(b, b, 256, DataType.INT32, ReduceOp.SUM));
            assertTrue(ex.getMessage().contains("CUDA kernel jccl_interp_"), ex.getMessage());
            // where the kernel stood when it was aborted: it started (its clock says), ran until the abort near the
            // 500 ms deadline, and its first receive from rank 1 never came
            assertTrue(ex.getMessage().matches("(?s).*worker 0 \\(channel 0\\) ran [0-9]+\\.[0-9] ms and finished .*"),
                ex.getMessage());
            assertTrue(ex.getMessage().contains("receiving from rank 1 (slots published 0, consumed 0)"),
                ex.getMessage());
        }
        finally
        {
            abortAndClose(comms);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldSayTheKernelNeverStartedWhenItsStreamHoldsEarlierWork()
    {
        final EmulatedCuda two = new EmulatedCuda(2, 132);
        final Communicator[] comms = Jccl.initAll(new Context().cuda(two).timeoutMs(500), 2);
        final Stream stream = Stream.wrapNative(0x7200_0000L);
        final long held = two.wrapStream(stream.nativeHandle());
        try
        {
            // the caller's earlier work on its stream never finishes: the kernel queued behind it never starts
            two.hold(held, true);
            final Buffer b = DeviceBuffer.of(two.malloc(4096), 4096, 0);
            final Work work = comms[0].allReduce(b, b, 256, DataType.INT32, ReduceOp.SUM, stream);
            final JcclTimeoutException ex = assertThrows(JcclTimeoutException.class, work::join);
            assertTrue(ex.getMessage().contains("did not stop within 2000 ms of its abort: it never started, as " +
                "earlier work on its stream has not finished"), ex.getMessage());
        }
        finally
        {
            two.hold(held, false);
            abortAndClose(comms);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldDivideIntegerAverageOnTheDevice() throws Exception
    {
        final int n = 3;
        final Communicator[] comms = Jccl.initAll(new Context().cuda(CUDA), n);
        final long[] memory = new long[n];
        try
        {
            final Work[] works = new Work[n];
            Jccl.groupStart();
            for (int r = 0; r < n; r++)
            {
                memory[r] = CUDA.malloc(4 * 100);
                for (int i = 0; i < 100; i++)
                {
                    org.agrona.UnsafeApi.putInt(memory[r] + 4L * i, i * (r + 1));
                }
                final Buffer b = DeviceBuffer.of(memory[r], 400, 0);
                works[r] = comms[r].allReduce(b, b, 100, DataType.INT32, ReduceOp.AVG, Stream.DEFAULT);
            }
            Jccl.groupEnd();
            for (final Work w : works)
            {
                w.join();
            }
            for (int r = 0; r < n; r++)
            {
                for (int i = 0; i < 100; i++)
                {
                    assertEquals(i * 6 / 3, org.agrona.UnsafeApi.getInt(memory[r] + 4L * i), "rank " + r + " [" + i + "]");
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

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRunOnTheCallersStreamAfterItsEarlierWork() throws InterruptedException
    {
        final int n = 2;
        final long count = 1 << 16;
        final EmulatedCuda cuda = new EmulatedCuda();
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda), n);
        final HostBuffer fives = HostBuffer.allocate(4 * count);
        for (long i = 0; i < count; i++)
        {
            fives.byteBuffer().putInt((int)(4 * i), 5);
        }
        final long[] memory = new long[n];
        try
        {
            final Work[] works = new Work[n];
            final long[] streams = new long[n];
            for (int r = 0; r < n; r++)
            {
                memory[r] = cuda.malloc(4 * count);
                org.agrona.UnsafeApi.setMemory(memory[r], 4 * count, (byte)1);
                // the caller's stream, held: a copy of fives into the buffer, then the collective, behind it
                final Stream stream = Stream.wrapNative(0x7000_0000L + r);
                streams[r] = cuda.wrapStream(stream.nativeHandle());
                cuda.hold(streams[r], true);
                cuda.memcpyAsync(memory[r], BufferUtil.address(fives.byteBuffer()), 4 * count, streams[r]);
                final Buffer b = DeviceBuffer.of(memory[r], 4 * count, 0);
                works[r] = comms[r].allReduce(b, b, count, DataType.INT32, ReduceOp.SUM, stream);
            }
            final Thread joiner = new Thread(() -> java.util.Arrays.stream(works).forEach(Work::join));
            joiner.start();
            joiner.join(500);
            assertTrue(joiner.isAlive(), "the calls finished while the caller's streams were held");
            for (int r = 0; r < n; r++)
            {
                cuda.hold(streams[r], false);
            }
            joiner.join(30_000);
            for (final Work w : works)
            {
                w.join();
            }
            for (int r = 0; r < n; r++)
            {
                for (long i = 0; i < count; i += 997)
                {
                    assertEquals(10, org.agrona.UnsafeApi.getInt(memory[r] + 4 * i), "rank " + r + " [" + i + "]");
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

    /** A call on a stream that captures a CUDA graph is refused before anything is queued, naming the stream. */
    @Test
    void shouldRefuseAStreamCapturingACudaGraph()
    {
        final EmulatedCuda cuda = new EmulatedCuda();
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda), 2);
        try
        {
            final Stream stream = Stream.wrapNative(0x7200_0000L);
            cuda.capture(cuda.wrapStream(stream.nativeHandle()), true);
            final Buffer b = DeviceBuffer.of(cuda.malloc(4096), 4096, 0);
            final JcclInvalidUsageException collective = assertThrows(JcclInvalidUsageException.class,
                () -> comms[0].allReduce(b, b, 1024, DataType.FLOAT32, ReduceOp.SUM, stream));
            assertTrue(collective.getMessage().startsWith("stream " + stream + " is capturing a CUDA graph " +
                "(allReduce)"), collective.getMessage());
        }
        finally
        {
            abortAndClose(comms);
        }
    }

    /**
     * JCCL_NTHREADS allows 640 threads, but the interpreter's launch bound is 512 (the double refuses a launch above
     * a kernel's {@code .maxntid}, as the driver does): the launcher clamps to the function's own limit.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldLaunchNoMoreThreadsThanTheKernelsLaunchBound()
    {
        final Communicator[] comms = Jccl.initAll(new Context().cuda(CUDA).threads(640), 2);
        final long[] memory = new long[2];
        try
        {
            final Work[] works = new Work[2];
            Jccl.groupStart();
            for (int r = 0; r < 2; r++)
            {
                memory[r] = CUDA.malloc(4 * 1000);
                for (int i = 0; i < 1000; i++)
                {
                    org.agrona.UnsafeApi.putInt(memory[r] + 4L * i, i + r);
                }
                final Buffer b = DeviceBuffer.of(memory[r], 4000, 0);
                works[r] = comms[r].allReduce(b, b, 1000, DataType.INT32, ReduceOp.SUM, Stream.DEFAULT);
            }
            Jccl.groupEnd();
            for (final Work w : works)
            {
                w.join();
            }
            for (int r = 0; r < 2; r++)
            {
                for (int i = 0; i < 1000; i++)
                {
                    assertEquals(2 * i + 1, org.agrona.UnsafeApi.getInt(memory[r] + 4L * i), "rank " + r + " [" + i +
                        "]");
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

    @Test
    void shouldPlaceRanksOnTheDevicesTheContextNames()
    {
        final EmulatedCuda two = new EmulatedCuda(2, 132);
        final Communicator[] comms = Jccl.initAll(new Context().cuda(two).cudaDevices(1, 1, 0), 3);
        try
        {
            assertEquals(List.of(1, 1, 0), java.util.Arrays.stream(comms).map(Jccl::cudaDevice).toList());
        }
        finally
        {
            java.util.Arrays.stream(comms).forEach(Communicator::close);
        }
        final Communicator[] byDefault = Jccl.initAll(new Context().cuda(two), 3);
        try
        {
            assertEquals(List.of(0, 1, 0), java.util.Arrays.stream(byDefault).map(Jccl::cudaDevice).toList());
        }
        finally
        {
            java.util.Arrays.stream(byDefault).forEach(Communicator::close);
        }
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> Jccl.initAll(new Context().cuda(two).cudaDevices(0, 2), 2));
        assertTrue(ex.getMessage().startsWith("cudaDevices[1]=2 is outside 0..1"), ex.getMessage());
    }

    private static void abortAndClose(final Communicator[] comms)
    {
        for (final Communicator c : comms)
        {
            c.abort();
            c.close();
        }
    }

    @AfterAll
    static void closeCommunicators()
    {
        closeAll(COMMUNICATORS);
    }

    /** @param communicators closed and emptied. */
    static void closeAll(final Map<String, Communicator[]> communicators)
    {
        synchronized (communicators)
        {
            communicators.values().forEach(comms -> java.util.Arrays.stream(comms).forEach(Communicator::close));
            communicators.clear();
        }
    }
}
