package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import io.jccl.kernels.cuda.CudaApi;
import io.jccl.kernels.cuda.CudaProbe;
import io.jccl.kernels.cuda.EmulatedCuda;
import io.jccl.kernels.cuda.KernelNames;
import io.jccl.kernels.cuda.PtxResources;
import io.jccl.schedules.Generators;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@code jccl-bench gpu-check [--emulated] [--quick] [--ranks=N,...]}: what {@code bench/gpu-check.sh} runs on a GPU
 * machine in one call. It prints the driver and the device; times a device-to-device copy, jccl's copy kernel and its
 * float32 sum kernel on 1 GiB (CUDA events, median of repeated runs, bytes read plus written per second); and runs
 * the correctness grid, every collective x type x op with 1, 2 and 4 ranks sharing the GPU (or the counts
 * {@code --ranks=} names), both protocols and every algorithm, comparing every output byte with the host backend's
 * on the same inputs (the same plan reduces in the same order, so they agree bit for bit; two NaNs count as equal).
 * Between the timings and the grid, {@link GpuSoak} runs about 2,000 back-to-back AllReduces of odd counts on 2 and
 * 4 ranks, SIMPLE and LL, each checked. Lines starting with {@code RESULT} carry the figures the script's table is
 * made of. {@code --emulated} runs it on
 * the device double with small sizes.
 */
final class GpuCheckCommand
{
    private static final int[] RANKS = {1, 2, 4};
    private static final ReduceOp[] OPS = {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.AVG,
        ReduceOp.preMulSum(2.5)};
    private static final BenchTool[] TOOLS = {BenchTool.ALL_REDUCE, BenchTool.ALL_GATHER, BenchTool.REDUCE_SCATTER,
        BenchTool.BROADCAST, BenchTool.REDUCE};

    /** A case of a few MiB at most takes milliseconds: a hung case costs this, and its communicators are broken. */
    private static final long GRID_TIMEOUT_MS = 10_000;

    private static final String RANKS_FLAG = "--ranks=";
    /** Calls timed per latency figure, after as many untimed. */
    private static final int LATENCY_CALLS = 2000;

    private final CudaApi api;
    /** The rank counts the grid runs, {@link #RANKS} unless {@code --ranks=} names others. */
    private final int[] rankCounts;
    private final boolean quick;
    private final PrintStream out;
    private final Map<String, Communicator[]> comms = new HashMap<>();

    private GpuCheckCommand(final CudaApi api, final int[] rankCounts, final boolean quick, final PrintStream out)
    {
        this.api = api;
        this.rankCounts = rankCounts;
        this.quick = quick;
        this.out = out;
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final List<String> flags = new java.util.ArrayList<>(Arrays.asList(args));
        int[] ranks = RANKS;
        for (final String flag : args)
        {
            if (flag.startsWith(RANKS_FLAG))
            {
                try
                {
                    ranks = Arrays.stream(flag.substring(RANKS_FLAG.length()).split(",")).mapToInt(Integer::parseInt)
                        .toArray();
                }
                catch (final NumberFormatException ex)
                {
                    ranks = new int[0];
                }
                if (ranks.length == 0 || Arrays.stream(ranks).anyMatch(r -> r < 1))
                {
                    err.println("jccl-bench gpu-check: " + flag + ": give rank counts of at least 1, e.g. " +
                        RANKS_FLAG + "2,4");
                    return 2;
                }
                flags.remove(flag);
            }
            else if (!"--emulated".equals(flag) && !"--quick".equals(flag))
            {
                err.println("jccl-bench gpu-check: unknown flag " + flag + " (--emulated, --quick, " + RANKS_FLAG +
                    "N,...)");
                return 2;
            }
        }
        final CudaApi api;
        try
        {
            api = flags.contains("--emulated") ? new EmulatedCuda() : CudaProbe.api();
        }
        catch (final RuntimeException ex)
        {
            err.println("jccl-bench gpu-check: " + ex.getMessage());
            return 1;
        }
        final GpuCheckCommand check = new GpuCheckCommand(api, ranks, flags.contains("--quick") ||
            flags.contains("--emulated"), out);
        try
        {
            check.describe();
            check.bandwidth();
            check.latency();
            final long soakWrong = new GpuSoak(api, out).run(check.quick ? 100 : 500);
            final long wrong = check.grid();
            out.println("RESULT grid_wrong_cases " + wrong);
            return wrong == 0 && soakWrong == 0 ? 0 : 1;
        }
        finally
        {
            check.comms.values().forEach(c -> Arrays.stream(c).forEach(Communicator::close));
        }
    }

    private void describe()
    {
        final int version = api.driverVersion();
        out.println("RESULT driver " + version / 1000 + "." + version % 1000 / 10 + " (" + api.name() + ")");
        for (int d = 0; d < api.deviceCount(); d++)
        {
            out.println("RESULT device" + d + " " + api.deviceName(d).replace(' ', '_') + " " +
                api.multiprocessorCount(d) + "_SMs");
        }
        out.flush();
    }

    /** Copy and sum bandwidth on 1 GiB float (16 MiB emulated), bytes read plus written per second. */
    private void bandwidth()
    {
        api.setDevice(0);
        final long bytes = quick ? 16L << 20 : 1L << 30;
        final long n = bytes / 4;
        final long a = api.malloc(bytes);
        final long b = api.malloc(bytes);
        final long c = api.malloc(bytes);
        final long stream = api.streamCreate();
        final long start = api.eventCreate(true);
        final long end = api.eventCreate(true);
        try
        {
            // never time on zeros: 0x3f3f3f3f is 0.747 as a float
            api.memsetAsync(a, 0x3f, bytes, stream);
            api.memsetAsync(b, 0x40, bytes, stream);
            api.streamSynchronize(stream);
            final long loadStart = System.nanoTime();
            final long copy = function(KernelNames.copy());
            final long sum = function(KernelNames.reduce(DataType.FLOAT32, ReduceOp.Kind.SUM));
            out.println("RESULT module_load_ms " + (System.nanoTime() - loadStart) / 1_000_000);
            final int sms = api.multiprocessorCount(0);
            final int blocks = sms * 8;
            final float memcpyMs = median(start, end, stream, () -> api.memcpyAsync(c, a, bytes, stream));
            final float copyMs = median(start, end, stream,
                () -> api.launch(copy, blocks, 512, 0, stream, a, c, bytes));
            final float sumMs = median(start, end, stream,
                () -> api.launch(sum, blocks, 512, 0, stream, a, b, c, n, 0, 0));
            checkSum(c, n);
            out.printf("RESULT memcpy_d2d_GBps %.1f%n", 2.0 * bytes / memcpyMs / 1e6);
            out.printf("RESULT copy_kernel_GBps %.1f%n", 2.0 * bytes / copyMs / 1e6);
            out.printf("RESULT sum_kernel_GBps %.1f%n", 3.0 * bytes / sumMs / 1e6);
            out.printf("RESULT sum_kernel_ms %.3f%n", sumMs);
            out.flush();
        }
        finally
        {
            api.streamSynchronize(stream);
            api.eventDestroy(start);
            api.eventDestroy(end);
            api.streamDestroy(stream);
            api.free(a);
            api.free(b);
            api.free(c);
        }
    }

    /**
     * What an 8-byte call costs on the device, in parts: a small pinned copy to the device, a kernel launch and an
     * event, waited for by polling as jccl does (the floor of any call), then jccl's AllReduce of 8 bytes on one rank
     * (its launch record copy, interpreter kernel and completion event) and on two ranks sharing the device, each
     * the median of {@value #LATENCY_CALLS} calls, in microseconds.
     */
    private void latency()
    {
        api.setDevice(0);
        final long stream = api.streamCreate();
        final long done = api.eventCreate(false);
        final long pinned = api.mallocHost(4096);
        final long device = api.malloc(4096);
        try
        {
            final long copy = function(KernelNames.copy());
            final double floorUs = medianUs(() ->
            {
                api.memcpyAsync(device, pinned, 4096, stream);
                api.launch(copy, 1, 32, 0, stream, device, device + 2048, 8L);
                api.eventRecord(done, stream);
                while (!api.eventQuery(done))
                {
                    Thread.onSpinWait();
                }
            });
            out.printf("RESULT launch_roundtrip_us %.2f%n", floorUs);
            for (final int ranks : new int[] {1, 2})
            {
                final Communicator[] c = communicators(true, ranks, Algorithm.RING, Protocol.SIMPLE);
                final long[] memory = new long[ranks];
                for (int r = 0; r < ranks; r++)
                {
                    memory[r] = api.malloc(64);
                }
                try
                {
                    final Work[] works = new Work[ranks];
                    final double us = medianUs(() ->
                    {
                        Jccl.groupStart();
                        for (int r = 0; r < ranks; r++)
                        {
                            final DeviceBuffer buffer = DeviceBuffer.of(memory[r], 8, 0);
                            works[r] = c[r].allReduce(buffer, buffer, 2, DataType.FLOAT32, ReduceOp.SUM,
                                Stream.DEFAULT);
                        }
                        Jccl.groupEnd();
                        Arrays.stream(works).forEach(Work::join);
                    });
                    out.printf("RESULT allreduce_8B_%drank_us %.2f%n", ranks, us);
                }
                catch (final RuntimeException ex)
                {
                    // the grid after this names the cases that fail; a hang here must not keep it from running
                    out.println("latency: " + ranks + " ranks failed: " + ex);
                }
                finally
                {
                    Arrays.stream(memory).forEach(api::free);
                }
            }
            out.flush();
        }
        finally
        {
            api.streamSynchronize(stream);
            api.eventDestroy(done);
            api.streamDestroy(stream);
            api.freeHost(pinned);
            api.free(device);
        }
    }

    /** @return the median time of {@value #LATENCY_CALLS} runs of the action after as many warm-up runs, in us. */
    private static double medianUs(final Runnable action)
    {
        final long[] ns = new long[LATENCY_CALLS];
        for (int i = 0; i < 2 * LATENCY_CALLS; i++)
        {
            final long start = System.nanoTime();
            action.run();
            if (i >= LATENCY_CALLS)
            {
                ns[i - LATENCY_CALLS] = System.nanoTime() - start;
            }
        }
        Arrays.sort(ns);
        return ns[LATENCY_CALLS / 2] / 1e3;
    }

    private long function(final String name)
    {
        final String base = name.startsWith("jccl_interp_") ? KernelNames.INTERPRETER : KernelNames.ELEMENTWISE;
        return api.function(api.moduleLoad(new PtxResources().load(base)), name);
    }

    /** The sum's result: 0x3f3f3f3f + 0x40404040 as floats, checked on a few elements copied back. */
    private void checkSum(final long c, final long n)
    {
        final HostBuffer probe = HostBuffer.allocate(16);
        final long address = DeviceMirror.address(probe);
        final float expected = Float.intBitsToFloat(0x3f3f3f3f) + Float.intBitsToFloat(0x40404040);
        for (final long i : new long[] {0, n / 2, n - 4})
        {
            api.memcpyAsync(address, c + 4 * i, 16, 0);
            api.streamSynchronize(0);
            for (int k = 0; k < 4; k++)
            {
                final float got = probe.byteBuffer().order(ByteOrder.nativeOrder()).getFloat((int)probe.offset() + 4 * k);
                if (got != expected)
                {
                    throw new IllegalStateException("sum kernel: element " + (i + k) + " is " + got + ", expected " +
                        expected);
                }
            }
        }
    }

    private float median(final long start, final long end, final long stream, final Runnable op)
    {
        final int runs = quick ? 3 : 20;
        op.run();
        op.run();
        final float[] ms = new float[runs];
        for (int i = 0; i < runs; i++)
        {
            api.eventRecord(start, stream);
            op.run();
            api.eventRecord(end, stream);
            api.streamSynchronize(stream);
            ms[i] = api.eventElapsedMs(start, end);
        }
        Arrays.sort(ms);
        return ms[runs / 2];
    }

    /** @return the cases whose CUDA output differs from the host backend's. */
    private long grid()
    {
        final long started = System.nanoTime();
        final long[] counts = quick ? new long[] {1021} : new long[] {1, 1021, 262147};
        long cases = 0;
        long wrong = 0;
        for (final int ranks : rankCounts)
        {
            for (final Algorithm algorithm : Algorithm.values())
            {
                for (final Protocol protocol : new Protocol[] {Protocol.SIMPLE, Protocol.LL})
                {
                    for (final BenchTool tool : TOOLS)
                    {
                        final Collective collective = tool.collective();
                        if (Generators.effective(algorithm, collective) != algorithm)
                        {
                            // runs as the ring, which the grid checks anyway
                            continue;
                        }
                        for (final DataType type : DataType.values())
                        {
                            for (final ReduceOp op : collective.isReducing() ? OPS : new ReduceOp[] {null})
                            {
                                for (final long count : counts)
                                {
                                    cases++;
                                    final String failure = compare(tool, type, op, ranks, count, algorithm,
                                        protocol);
                                    if (failure != null)
                                    {
                                        wrong++;
                                        if (wrong <= 20)
                                        {
                                            out.println("WRONG " + collective.xmlName() + " " + type.ncclTestsName() +
                                                " " + op + " ranks=" + ranks + " count=" + count + " " +
                                                algorithm.lowerName() + "/" + protocol.lowerName() + ": " + failure);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                out.println("grid: " + ranks + " ranks, " + algorithm.lowerName() + " done: " + cases + " cases, " +
                    wrong + " wrong, " + (System.nanoTime() - started) / 1_000_000 + " ms");
                out.flush();
            }
        }
        out.println("RESULT grid_cases " + cases);
        out.println("RESULT grid_seconds " + (System.nanoTime() - started) / 1_000_000_000);
        return wrong;
    }

    private Communicator[] communicators(final boolean cuda, final int ranks, final Algorithm algorithm,
        final Protocol protocol)
    {
        return comms.computeIfAbsent(cuda + "/" + ranks + "/" + algorithm + "/" + protocol, k -> Jccl.initAll(
            new Context().cuda(cuda ? api : null).algorithm(algorithm).protocol(protocol).channels(2)
                .timeoutMs(GRID_TIMEOUT_MS), ranks));
    }

    /** @return null when the CUDA ranks' outputs equal the host ranks', else the first difference. */
    private String compare(final BenchTool tool, final DataType type, final ReduceOp op, final int ranks,
        final long count, final Algorithm algorithm, final Protocol protocol)
    {
        final Collective collective = tool.collective();
        final long inCount = collective == Collective.REDUCE_SCATTER ? count * ranks : count;
        final long outCount = collective == Collective.ALL_GATHER ? count * ranks : count;
        final int size = type.byteSize();
        final SplittableRandom random = new SplittableRandom(Arrays.hashCode(new Object[] {collective, type, op,
            ranks, count}));
        final ElementCodec codec = ElementCodec.of(type);
        final HostBuffer[] inputs = new HostBuffer[ranks];
        final HostBuffer[] hostOut = new HostBuffer[ranks];
        final HostBuffer[] cudaOut = new HostBuffer[ranks];
        for (int r = 0; r < ranks; r++)
        {
            inputs[r] = HostBuffer.allocate(inCount * size);
            hostOut[r] = HostBuffer.allocate(outCount * size);
            cudaOut[r] = HostBuffer.allocate(outCount * size);
            final ByteBuffer in = inputs[r].byteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            for (long i = 0; i < inCount; i++)
            {
                final long raw = type.isFloatingPoint() ? codec.fromDouble(random.nextInt(-64, 65) / 8.0) :
                    random.nextLong();
                codec.write(in, (int)(inputs[r].offset() + i * size), raw);
            }
        }
        final Work[] works = new Work[ranks];
        final Communicator[] host = communicators(false, ranks, algorithm, protocol);
        Jccl.groupStart();
        for (int r = 0; r < ranks; r++)
        {
            works[r] = tool.start(host[r], inputs[r], hostOut[r], count, type, op, 0, Stream.DEFAULT);
        }
        Jccl.groupEnd();
        Arrays.stream(works).forEach(Work::join);

        final Communicator[] cuda = communicators(true, ranks, algorithm, protocol);
        final long[] deviceIn = new long[ranks];
        final long[] deviceOut = new long[ranks];
        try
        {
            for (int r = 0; r < ranks; r++)
            {
                api.setDevice(Jccl.cudaDevice(cuda[r]));
                deviceIn[r] = api.malloc(Math.max(1, inCount * size));
                deviceOut[r] = api.malloc(Math.max(1, outCount * size));
                api.memcpyAsync(deviceIn[r], DeviceMirror.address(inputs[r]), inCount * size, 0);
                api.memsetAsync(deviceOut[r], 0, outCount * size, 0);
                api.streamSynchronize(0);
            }
            Jccl.groupStart();
            try
            {
                for (int r = 0; r < ranks; r++)
                {
                    final int device = Jccl.cudaDevice(cuda[r]);
                    works[r] = tool.start(cuda[r], DeviceBuffer.of(deviceIn[r], inCount * size, device),
                        DeviceBuffer.of(deviceOut[r], outCount * size, device), count, type, op, 0, Stream.DEFAULT);
                }
            }
            finally
            {
                // a rank refusing the call (a communicator broken by an earlier case) must not leave the group open
                Jccl.groupEnd();
            }
            Arrays.stream(works).forEach(Work::join);
            for (int r = 0; r < ranks; r++)
            {
                api.setDevice(Jccl.cudaDevice(cuda[r]));
                api.memcpyAsync(DeviceMirror.address(cudaOut[r]), deviceOut[r], outCount * size, 0);
                api.streamSynchronize(0);
                if (collective == Collective.REDUCE && r != 0)
                {
                    continue;
                }
                final String difference = difference(codec, hostOut[r], cudaOut[r], outCount, r);
                if (difference != null)
                {
                    return difference;
                }
            }
            return null;
        }
        catch (final RuntimeException ex)
        {
            return ex.toString();
        }
        finally
        {
            for (int r = 0; r < ranks; r++)
            {
                api.free(deviceIn[r]);
                api.free(deviceOut[r]);
            }
        }
    }

    private static String difference(final ElementCodec codec, final HostBuffer expected, final HostBuffer actual,
        final long count, final int rank)
    {
        final ByteBuffer e = expected.byteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer a = actual.byteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        final int size = codec.byteSize();
        for (long i = 0; i < count; i++)
        {
            final long x = codec.read(e, (int)(expected.offset() + i * size));
            final long y = codec.read(a, (int)(actual.offset() + i * size));
            final boolean bothNaN = codec.type().isFloatingPoint() && Double.isNaN(codec.toDouble(x)) &&
                Double.isNaN(codec.toDouble(y));
            if (x != y && !bothNaN)
            {
                return "rank " + rank + " element " + i + ": host 0x" + Long.toHexString(x) + ", cuda 0x" +
                    Long.toHexString(y);
            }
        }
        return null;
    }
}
