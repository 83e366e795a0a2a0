package io.jccl.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.jccl.Buffer;
import io.jccl.BufferRegistration;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.autotune.TaskKey;
import io.jccl.autotune.TaskReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One run of a tool, as nccl-tests' {@code run()}, {@code TimeTest} and {@code BenchTime}: creates the ranks and
 * their buffers, starts {@code -t} threads that each drive {@code -g} ranks, and for every type, operator, root and
 * size measures the out-of-place and then the in-place call (warm-up, then {@code -n} timed iterations, the time
 * per iteration combined over threads by {@code -a}), checks the results ({@code -c}), and prints nccl-tests' table
 * on the given stream. Logs and errors go to stderr through slf4j.
 * <p>
 * With {@code --schedule}, the header names the file, every (type, size, placement) the file does not apply to is
 * named on the error stream with the reason (jccl runs its built-in algorithm there), and one {@code #} line after
 * the table lists them; the table's columns stay nccl-tests'.
 * <p>
 * In a {@code --sweep} ({@link SweepRunner}) one runner runs each pass: it creates its ranks with that pass's
 * {@link SweepCombination}. Every runner tells a listener every row it prints ({@link RowResult}: both placements'
 * time, bandwidths, wrong elements and plan), for the sweep's summary, the result files and the progress lines.
 * <p>
 * Before the first timed size of a pass, {@code --jit-warmup-ms} runs untimed calls for about that long, so that the
 * JIT has compiled the call path before the table starts (a JVM matter: nccl-tests has no such step).
 * <p>
 * With the online tuner ({@code --tuner auto}), each size first runs untimed, out of place, until the tuner's task
 * for it has converged or {@code --tune-iters} calls were made, so that the row times the converged plan (its plan
 * column shows it); after the table, a {@link TuningSummary} compares each size's default and tuned plans. The JIT
 * warm-up then runs on ranks of its own, with a tuner of their own ({@link CommunicatorFactory#createForWarmUp}), so
 * that no task's trials are timed on a cold JIT while the searches' code gets compiled. With {@code --load}, a {@link ComputeLoad} runs beside the collectives from
 * before the first size to the end.
 * <p>
 * In a multi-process run ({@link BenchOptions#processes}) this process runs one of the ranks: its buffers are that
 * rank's, its data pattern and checks are for that rank, and the ranks agree on times, wrong-element counts and
 * barriers through the factory's {@link BenchSync} ({@link CommunicatorSync}: AllReduces on jccl itself) as
 * nccl-tests' processes do through MPI. Every process prints the same table; the tools give the processes other
 * than rank 0's a stream that drops it, and only rank 0's names a schedule's fallback rows on the error stream.
 */
public final class BenchRunner
{
    /** Exit status of a run whose results were all right. */
    public static final int EXIT_OK = 0;
    /** Exit status of a run with wrong results, a bandwidth under {@code NCCL_TESTS_MIN_BW}, or a failure. */
    public static final int EXIT_FAILURE = 1;

    private static final Logger LOG = LoggerFactory.getLogger(BenchRunner.class);
    private static final long WARMUP_SEED = 99;
    /** The largest size the second half of {@code --jit-warmup-ms} cycles through. */
    private static final long JIT_WARMUP_CYCLE_MAX_BYTES = 1L << 20;
    /** The calls {@code --jit-warmup-ms} queues before waiting, at most ({@code -n} if fewer). */
    private static final int JIT_WARMUP_BURST = 8;
    /**
     * Rows formatted (not printed) per JIT warm-up round: with one, the formatting code (String.format's regex, the
     * BigDecimal rounding of {@link CFormat}) reached C2's thresholds only in the table, whose first rows then timed
     * the compilation.
     */
    private static final int JIT_WARMUP_ROWS_FORMATTED = 16;
    /** The most calls {@code --tuner auto} queues before it asks whether the size's task converged. */
    private static final int TUNE_BURST_MAX = 64;
    /** {@code --jit-warmup-ms} goes on past its budget until no JIT compiled for this long, in ms. */
    private static final long JIT_QUIET_MS = 300;
    /** ... but for at most this long past the budget, in ms. */
    private static final long JIT_QUIET_MAX_EXTRA_MS = 5_000;
    private static final long DIRECT_MEMORY_RESERVE = 1L << 30;

    private final BenchTool tool;
    private final BenchOptions options;
    private final BenchSchedule schedule;
    private final CommunicatorFactory factory;
    private final SweepCombination combination;
    private final Consumer<RowResult> rowListener;
    private final PrintStream out;
    private final PrintStream err;
    /** Written by thread 0 only: "type size" to the placements that ran the built-in instead of the schedule. */
    private final Map<String, List<String>> fallbacks = new LinkedHashMap<>();
    private final int nThreads;
    private final int nGpus;
    private final int nRanks;
    /** This process's ranks: all of them, or one in a multi-process run. */
    private final int localRanks;
    /** True in the process that runs rank 0, which alone reports what every process would report alike. */
    private final boolean lead;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** True when the online tuner decides the plans: each size is tuned before it is timed. */
    private final boolean onlineTuning;
    /** Written by thread 0 only: a tuning entry per row of the first cycle, for the summary. */
    private final List<TuningSummary.Entry> tuning = new ArrayList<>();
    /** Written by thread 0 only: the time tuned sizes ran on after converging, until the JIT was quiet. */
    private long settleNs;
    private long maxBytes;
    private Communicator[] comms;
    /** The ranks of the JIT warm-up when the online tuner decides the run's plans, until thread 0 closes them. */
    private volatile Communicator[] warmComms;
    private HostBuffer[] sendAllocs;
    private HostBuffer[] recvAllocs;
    /** Device twins of the allocations when the ranks run on CUDA ({@code --device}), else null. */
    private DeviceMirror mirror;
    private Stream[] streams;
    private BenchSync sync;
    /** Where the buffers live: jccl's shared memory unless {@code --plain-memory}. */
    private final BenchMemory memory;
    /** {@code -R}: the buffers' registrations with their ranks, closed before the ranks. */
    private final List<BufferRegistration> registrations = new ArrayList<>();

    /**
     * @param tool     the collective.
     * @param options  validated flags.
     * @param schedule the loaded {@code --schedule} file, or null.
     * @param factory  where ranks come from.
     * @param out      where the table goes (stdout for the tools).
     * @param err      where the rows a schedule does not apply to are named (stderr for the tools).
     */
    public BenchRunner(final BenchTool tool, final BenchOptions options, final BenchSchedule schedule,
        final CommunicatorFactory factory, final PrintStream out, final PrintStream err)
    {
        this(tool, options, schedule, factory, SweepCombination.DEFAULT, row -> {}, out, err);
    }

    /**
     * @param tool        the collective.
     * @param options     validated flags.
     * @param schedule    the loaded {@code --schedule} file, or null.
     * @param factory     where ranks come from.
     * @param combination the pins of this pass of a {@code --sweep}, or {@link SweepCombination#DEFAULT}.
     * @param rowListener told every row of the table as it is printed, on the thread that runs {@link #run()}.
     * @param out         where the table goes (stdout for the tools).
     * @param err         where the rows a schedule does not apply to are named (stderr for the tools).
     */
    public BenchRunner(final BenchTool tool, final BenchOptions options, final BenchSchedule schedule,
        final CommunicatorFactory factory, final SweepCombination combination, final Consumer<RowResult> rowListener,
        final PrintStream out, final PrintStream err)
    {
        this.tool = tool;
        this.options = options;
        this.schedule = schedule;
        this.factory = factory;
        this.combination = combination;
        this.rowListener = rowListener;
        this.out = out;
        this.err = err;
        this.nThreads = options.nThreads();
        this.nGpus = options.nGpus();
        this.nRanks = options.nRanks();
        this.localRanks = options.localRanks();
        this.lead = options.processRank() == 0;
        this.maxBytes = options.maxBytes();
        this.onlineTuning = options.onlineTuning();
        this.memory = BenchMemory.of(options, factory);
    }

    /**
     * Runs the tool to the end.
     *
     * @return {@link #EXIT_OK}, or {@link #EXIT_FAILURE} when a result was wrong, the bandwidth was under
     *         {@code NCCL_TESTS_MIN_BW}, or the run failed.
     */
    public int run()
    {
        try
        {
            comms = factory.create(options, combination, nRanks);
        }
        catch (final RuntimeException ex)
        {
            LOG.error("{}: creating {} ranks failed: {}", tool.toolName(), nRanks, ex.toString(), ex);
            return EXIT_FAILURE;
        }
        LOG.info("{}: {} of {} ranks ({} threads x {} ranks) in process {}; {}; {}", tool.toolName(), localRanks,
            nRanks, nThreads, nGpus, ProcessHandle.current().pid(), factory.describe(), memory.describe());
        try
        {
            if (onlineTuning && options.jitWarmupMs() > 0 && options.minBytes() <= maxBytes)
            {
                // the warm-up's calls run on a cold JIT: as trials they would score the tasks' first plans too slow
                warmComms = factory.createForWarmUp(options, combination, nRanks);
            }
            sync = factory.sync(nThreads, comms);
            printPreamble();
            warnAboutCompatibilityFlags();
            allocate();
            for (final String line : TableFormatter.columnHeaders(options.reportCputime() ? "cputime" : "time"))
            {
                out.println(line);
            }
            out.flush();
            return finish(ComputeLoad.during(options.load(), this::runWorkers));
        }
        finally
        {
            closeAll();
        }
    }

    /**
     * nccl-tests' header: the parameters, then a line per rank with the process that runs it, then the schedule and
     * any reduction of {@code -e} to what memory holds (the smallest of every process's, so that all run the same
     * sizes). The processes of a multi-process run exchange their pids and limits first.
     */
    private void printPreamble()
    {
        final double[] known = new double[3 * nRanks];
        final long pid = ProcessHandle.current().pid();
        final long ownLimit = memory.bytesPerBufferLimit(localRanks, nRanks);
        final boolean cudaRanks = onCuda();
        for (final Communicator comm : comms)
        {
            known[comm.rank()] = pid;
            known[nRanks + comm.rank()] = ownLimit;
            known[2 * nRanks + comm.rank()] = cudaRanks ? io.jccl.core.Jccl.cudaDevice(comm) : -1;
        }
        final double[] all = sync.sumOverProcesses(known);
        long limit = ownLimit;
        for (int rank = 0; rank < nRanks; rank++)
        {
            limit = Math.min(limit, Math.round(all[nRanks + rank]));
        }
        out.println(TableFormatter.parametersLine(options, maxBytes));
        if (options.blocking())
        {
            out.println(TableFormatter.blockingLine());
        }
        out.println("#");
        out.println("# Using devices");
        final String hostname = hostname();
        final io.jccl.kernels.cuda.CudaApi cuda = cudaRanks ? options.cudaApi() : null;
        for (int rank = 0; rank < nRanks; rank++)
        {
            // a GPU as nccl-tests names it, read from this process's driver (other hosts' ranks are assumed to
            // have the same devices); jccl's host buffers as "[cpu] host", numbered by rank
            final int device = (int)Math.round(all[2 * nRanks + rank]);
            out.println(cuda != null && device >= 0 ?
                TableFormatter.deviceLine(rank, Math.round(all[rank]), hostname, device, cuda.pciBusId(device),
                    cuda.deviceName(device)) :
                TableFormatter.deviceLine(rank, Math.round(all[rank]), hostname, rank, "cpu", "host"));
        }
        if (schedule != null)
        {
            out.println(schedule.headerLine());
            if (!schedule.verdict().correct() && lead)
            {
                err.println(tool.toolName() + ": warning: " + schedule.file() + " does not compute what it " +
                    "declares; running it anyway, so that the #wrong columns show it: " + schedule.verdict());
                err.flush();
            }
        }
        final ComputeLoad.Spec load = options.load();
        if (load != null)
        {
            out.println(ComputeLoad.headerLine(load));
        }
        if (onlineTuning)
        {
            out.println("# Online tuning: each size runs untimed until its tuner task converges, at most " +
                options.tuneIters() + " calls (--tune-iters), then is timed; summary after the table");
        }
        if (maxBytes > limit)
        {
            maxBytes = limit;
            out.println("#");
            out.println(TableFormatter.reducingMaxBytesLine(maxBytes));
        }
        out.println("#");
        out.flush();
    }

    private void warnAboutCompatibilityFlags()
    {
        if (!lead)
        {
            return;
        }
        if (options.parallelInit() != 0)
        {
            LOG.warn("-p/--parallel_init has no effect: jccl creates every rank at once (Jccl.initAll)");
        }
        if (options.cudaGraph() != 0)
        {
            LOG.warn("-G/--cudagraph {} ignored: jccl-bench does not capture CUDA graphs", options.cudaGraph());
        }
        final java.util.Set<io.jccl.Algorithm> allowed = JcclCommunicatorFactory.context(options, combination)
            .constraints().algorithms(tool.collective());
        if (!allowed.contains(io.jccl.Algorithm.RING) && allowed.stream().allMatch(algorithm ->
            io.jccl.schedules.Generators.effective(algorithm, tool.collective()) == io.jccl.Algorithm.RING))
        {
            LOG.warn("--algo/JCCL_ALGO allows only {}, which jccl has not for {} (tree: AllReduce, Broadcast and " +
                "Reduce; direct: AllReduce, AllGather and ReduceScatter): it runs ring (the plan column says so)",
                allowed.stream().map(io.jccl.Algorithm::lowerName).collect(java.util.stream.Collectors.joining(",")),
                tool.toolName());
        }
    }

    /**
     * The table sizes of one pass's rows, in the order printed, for a progress estimate: every type, operator, root
     * and cycle of the sizes up to {@code -e} (reduced, as the run reduces it, to what memory holds).
     *
     * @param tool    the collective.
     * @param options validated flags.
     * @return one size in bytes per row, or an empty list when the pass never ends ({@code -N 0}).
     */
    public static List<Long> plannedRowBytes(final BenchTool tool, final BenchOptions options)
    {
        final int nRanks = options.nRanks();
        final long maxBytes = Math.min(options.maxBytes(), bytesPerBufferLimit(options.localRanks()));
        final List<Long> rows = new ArrayList<>();
        if (options.runCycles() == 0 || options.minBytes() > maxBytes)
        {
            return rows;
        }
        final List<Long> sizes = Sizes.sequence(options.minBytes(), maxBytes, options.stepBytes(),
            options.stepFactor());
        final int opCount = tool.hasOp() ? options.opNames().size() : 1;
        final int rootCount = options.roots(tool).size();
        for (final DataType type : options.types())
        {
            for (int variant = 0; variant < opCount * rootCount * options.runCycles(); variant++)
            {
                for (final long size : sizes)
                {
                    rows.add(Shape.of(tool, size, type, nRanks).totalBytes());
                }
            }
        }
        return rows;
    }

    /**
     * nccl-tests keeps sendbuff, recvbuff and expected under the device memory; here two buffers per rank of this
     * process.
     */
    static long bytesPerBufferLimit(final int localRanks)
    {
        final long direct = maxDirectMemory();
        final long usable = direct - Math.min(DIRECT_MEMORY_RESERVE, direct / 4);
        final long perBuffer = usable / (2L * localRanks) - ResultChecker.GUARD_BYTES;
        final long hostBufferMax = Integer.MAX_VALUE - HostBuffer.ALIGNMENT - ResultChecker.GUARD_BYTES;
        return Math.max(0, Math.min(perBuffer, hostBufferMax));
    }

    /** Buffers and a stream per rank of this process, index as {@link #comms}. */
    private void allocate()
    {
        sendAllocs = new HostBuffer[localRanks];
        recvAllocs = new HostBuffer[localRanks];
        streams = new Stream[localRanks];
        for (int local = 0; local < localRanks; local++)
        {
            sendAllocs[local] = memory.allocate(maxBytes + ResultChecker.GUARD_BYTES);
            recvAllocs[local] = memory.allocate(maxBytes + ResultChecker.GUARD_BYTES);
            streams[local] = options.streamNull() ? Stream.DEFAULT : Stream.create();
        }
        final io.jccl.kernels.cuda.CudaApi cuda = onCuda() ? options.cudaApi() : null;
        if (cuda != null)
        {
            mirror = DeviceMirror.allocate(cuda, comms, maxBytes + ResultChecker.GUARD_BYTES);
        }
        if (options.localRegister() != 0)
        {
            register();
        }
    }

    /** @return true when this process's ranks are jccl's and run on CUDA devices. */
    private boolean onCuda()
    {
        try
        {
            return comms.length > 0 && io.jccl.core.Jccl.cudaDevice(comms[0]) >= 0;
        }
        catch (final io.jccl.JcclInvalidArgumentException notJccl)
        {
            return false;
        }
    }

    /** {@code -R}: registers every rank's buffers with its communicator, as nccl-tests calls ncclCommRegister. */
    private void register()
    {
        boolean readInPlace = true;
        for (int local = 0; local < localRanks; local++)
        {
            for (final HostBuffer buffer : new HostBuffer[] {sendAllocs[local], recvAllocs[local]})
            {
                final BufferRegistration registration = comms[local].register(buffer);
                registrations.add(registration);
                readInPlace &= registration.peersReadInPlace();
            }
        }
        LOG.info("-R/--local_register: {} buffers registered; the other ranks read them {}", registrations.size(),
            readInPlace ? "in place" : "through staging copies (private memory, ranks in other processes)");
    }

    private Worker[] runWorkers()
    {
        final Worker[] workers = new Worker[nThreads];
        final Thread[] threads = new Thread[nThreads];
        for (int t = 0; t < nThreads; t++)
        {
            workers[t] = new Worker(t);
        }
        for (int t = 1; t < nThreads; t++)
        {
            threads[t] = new Thread(workers[t], "jccl-bench-" + t);
            threads[t].start();
        }
        workers[0].run();
        for (int t = 1; t < nThreads; t++)
        {
            try
            {
                threads[t].join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail(ex);
            }
        }
        return workers;
    }

    private int finish(final Worker[] workers)
    {
        final Throwable error = failure.get();
        if (error != null)
        {
            out.flush();
            LOG.error("{} failed: {}", tool.toolName(), error.toString(), error);
            return EXIT_FAILURE;
        }
        final long errors = workers[0].allErrors;
        double bwSum = 0;
        long bwCount = 0;
        for (final Worker worker : workers)
        {
            bwSum += worker.bwSum;
            bwCount += worker.bwCount;
        }
        final double avgBusBw = bwSum / bwCount;
        final double minBusBw = minBusBandwidth();
        if (schedule != null)
        {
            out.println(fallbackLine());
        }
        out.println(TableFormatter.outOfBoundsLine(errors));
        out.println(TableFormatter.avgBusBandwidthLine(avgBusBw, minBusBw));
        out.println("#");
        if (onlineTuning)
        {
            for (final String line : new TuningSummary(tool, nRanks, tuning).lines())
            {
                out.println(line);
            }
            if (settleNs > 0)
            {
                out.println("# Then untimed calls of each tuned size up to " + JIT_WARMUP_CYCLE_MAX_BYTES +
                    " B until the JIT was quiet (--jit-warmup-ms): " + Math.round(settleNs / 1e6) + " ms");
                out.println("#");
            }
        }
        out.println();
        out.flush();
        return errors != 0 || (minBusBw >= 0 && avgBusBw < minBusBw * 0.9) ? EXIT_FAILURE : EXIT_OK;
    }

    /**
     * @return {@code # Built-in ran where schedule <name> does not apply: float 1024 (out-of-place, in-place), ...},
     *         or {@code # Schedule <name> ran every row}.
     */
    private String fallbackLine()
    {
        final String name = schedule.schedule().name();
        if (fallbacks.isEmpty())
        {
            return "# Schedule " + name + " ran every row";
        }
        final StringBuilder sb = new StringBuilder("# Built-in ran where schedule ").append(name)
            .append(" does not apply:");
        String separator = " ";
        for (final Map.Entry<String, List<String>> entry : fallbacks.entrySet())
        {
            sb.append(separator).append(entry.getKey()).append(" (").append(String.join(", ", entry.getValue()))
                .append(')');
            separator = ", ";
        }
        return sb.toString();
    }

    /** Thread 0: names a row's placement that runs the built-in instead of the schedule, once per run. */
    private void reportFallback(final Shape shape, final DataType type, final boolean inPlace)
    {
        final String placement = inPlace ? "in-place" : "out-of-place";
        final String reason = schedule.whyNot(tool, nRanks, inPlace, shape.totalBytes(), shape.elementSize());
        if (reason == null)
        {
            return;
        }
        final List<String> placements = fallbacks.computeIfAbsent(type.ncclTestsName() + " " + shape.totalBytes(),
            k -> new ArrayList<>(2));
        if (placements.contains(placement))
        {
            return;
        }
        placements.add(placement);
        err.println(tool.toolName() + ": size " + shape.totalBytes() + " (" + type.ncclTestsName() + ", " +
            placement + ") runs the built-in: schedule " + schedule.schedule().name() + " does not apply: " + reason);
        err.flush();
    }

    private void fail(final Throwable error)
    {
        if (failure.compareAndSet(null, error))
        {
            if (sync != null)
            {
                sync.abort();
            }
            final Communicator[] warm = warmComms;
            final List<Communicator> all = new ArrayList<>(List.of(comms));
            if (warm != null)
            {
                all.addAll(List.of(warm));
            }
            for (final Communicator comm : all)
            {
                try
                {
                    comm.abort();
                }
                catch (final RuntimeException ex)
                {
                    LOG.debug("abort failed", ex);
                }
            }
        }
    }

    /**
     * Whether a JIT warm-up goes on after a round: while its budget lasts, then, with {@code jit}, while any process's
     * JIT compiled in the last {@value #JIT_QUIET_MS} ms, at most {@value #JIT_QUIET_MAX_EXTRA_MS} ms more. Rank 0's
     * clock decides for every thread of every process, so that all make the same calls.
     *
     * @param sync     where the ranks agree.
     * @param thread   this bench thread.
     * @param jit      this JVM's JIT activity, or null to stop at the budget.
     * @param startNs  {@code System.nanoTime()} at the warm-up's start.
     * @param budgetNs the warm-up's budget.
     * @return true to run another round.
     */
    static boolean warmUpGoesOn(final BenchSync sync, final int thread, final JitActivity jit, final long startNs,
        final long budgetNs)
    {
        final long nowNs = System.nanoTime();
        // any process whose JIT still compiles keeps every rank going; rank 0's clock still decides
        final boolean jitBusy = jit != null &&
            sync.allReduce(thread, jit.compiledWithin(nowNs, JIT_QUIET_MS) ? 1 : 0, ThreadSync.MAX) > 0.5;
        final long elapsedNs = nowNs - startNs;
        final double goOn = elapsedNs < budgetNs ||
            jitBusy && elapsedNs < budgetNs + JIT_QUIET_MAX_EXTRA_MS * 1_000_000L ? 1 : 0;
        // a half, not 0: across processes the 1 or 0 comes through a FLOAT64 AllReduce
        return sync.allReduce(thread, goOn, ThreadSync.RANK0) > 0.5;
    }

    /** Closes the JIT warm-up's ranks, if any are open: thread 0 once every thread has warmed up, or at the end. */
    private void closeWarmComms()
    {
        final Communicator[] warm = warmComms;
        warmComms = null;
        if (warm == null)
        {
            return;
        }
        for (final Communicator comm : warm)
        {
            try
            {
                comm.close();
            }
            catch (final RuntimeException ex)
            {
                LOG.debug("closing warm-up rank {} failed", comm.rank(), ex);
            }
        }
    }

    private void closeAll()
    {
        closeWarmComms();
        registrations.forEach(BufferRegistration::close);
        registrations.clear();
        if (comms != null)
        {
            for (final Communicator comm : comms)
            {
                try
                {
                    comm.close();
                }
                catch (final RuntimeException ex)
                {
                    if (failure.get() == null)
                    {
                        LOG.warn("closing rank {} failed: {}", comm.rank(), ex.toString());
                    }
                }
            }
        }
        // after the ranks' close waited for their calls: nothing reads the buffers any more
        memory.freeAll();
        if (mirror != null)
        {
            mirror.close();
            mirror = null;
        }
    }

    /** The counts and byte lengths of one message size, as nccl-tests' {@code setupArgs}. */
    record Shape(CollByteCount counts, int elementSize)
    {
        static Shape of(final BenchTool tool, final long size, final DataType type, final int nRanks)
        {
            final int elementSize = type.byteSize();
            return new Shape(tool.byteCount(size / elementSize, elementSize, nRanks), elementSize);
        }

        long sendBytes()
        {
            return counts.sendCount() * elementSize;
        }

        long recvBytes()
        {
            return counts.recvCount() * elementSize;
        }

        long totalBytes()
        {
            return Math.max(sendBytes(), recvBytes());
        }
    }

    /** One bench thread and the ranks it drives. */
    private final class Worker implements Runnable
    {
        private final int thread;
        /** The ranks in the whole run: those of the pattern, the checks and the in-place offsets. */
        private final int[] ranks;
        private final Communicator[] myComms;
        /** This thread's ranks of {@link #warmComms}, or null when the warm-up runs on {@link #myComms}. */
        private final Communicator[] myWarmComms;
        private final Stream[] myStreams;
        private final HostBuffer[] mySendAllocs;
        private final HostBuffer[] myRecvAllocs;
        /**
         * Per rank of this thread, its newest call not yet joined, and that call's communicator. A rank's calls
         * complete in order, and a failed call breaks its communicator so that every later call fails too: joining
         * the newest joins them all. nccl-tests holds no handle per call either; holding every handle of a row kept
         * them all alive through the collector's young pauses, and a -n 2000000 row of 8 B read 0.60 us a call where
         * -n 20000 read 0.20.
         */
        private final Work[] pending;
        private final Communicator[] pendingOn;
        /** The plan text of the latest completed call of this thread's first rank. */
        private String lastPlan = RowResult.NO_PLAN;
        /** The transport of that call's plan. */
        private String lastTransport = RowResult.NO_PLAN;
        private long rep;
        private long errors;
        /** {@link #errors} summed over every thread of every process, once the thread is done. */
        private long allErrors;
        private double bwSum;
        private long bwCount;

        Worker(final int thread)
        {
            this.thread = thread;
            this.ranks = new int[nGpus];
            this.myComms = new Communicator[nGpus];
            this.myWarmComms = warmComms == null ? null : new Communicator[nGpus];
            this.myStreams = new Stream[nGpus];
            this.mySendAllocs = new HostBuffer[nGpus];
            this.myRecvAllocs = new HostBuffer[nGpus];
            this.pending = new Work[nGpus];
            this.pendingOn = new Communicator[nGpus];
            for (int i = 0; i < nGpus; i++)
            {
                final int local = thread * nGpus + i;
                myComms[i] = comms[local];
                if (myWarmComms != null)
                {
                    myWarmComms[i] = warmComms[local];
                }
                ranks[i] = comms[local].rank();
                myStreams[i] = streams[local];
                mySendAllocs[i] = sendAllocs[local];
                myRecvAllocs[i] = recvAllocs[local];
            }
        }

        @Override
        public void run()
        {
            try
            {
                jitWarmUp();
                for (final DataType type : options.types())
                {
                    for (final String opName : tool.hasOp() ? options.opNames() : List.of(BenchTool.NO_OP_NAME))
                    {
                        for (final int root : options.roots(tool))
                        {
                            final ReduceOp op = tool.hasOp() ? BenchOptions.op(opName, nRanks) : ReduceOp.SUM;
                            timeTest(type, op, opName, root);
                        }
                    }
                }
                allErrors = Math.round(sync.allReduce(thread, errors, ThreadSync.SUM));
            }
            catch (final Throwable ex)
            {
                fail(ex);
            }
        }

        private void timeTest(final DataType type, final ReduceOp op, final String opName, final int root)
        {
            sync.barrier();
            if (options.warmupIters() > 0)
            {
                warmUp(Shape.of(tool, maxBytes, type, nRanks), type, op, root);
                warmUp(Shape.of(tool, options.minBytes(), type, nRanks), type, op, root);
            }
            final List<Long> sizes = options.minBytes() <= maxBytes ?
                Sizes.sequence(options.minBytes(), maxBytes, options.stepBytes(), options.stepFactor()) : List.of();
            for (long cycle = 0; options.runCycles() == 0 || cycle < options.runCycles(); cycle++)
            {
                for (final long size : sizes)
                {
                    final Shape shape = Shape.of(tool, size, type, nRanks);
                    final StringBuilder row = new StringBuilder(TableFormatter.rowParameters(
                        shape.totalBytes(), shape.counts().paramCount(), type.ncclTestsName(), opName, root));
                    if (schedule != null && thread == 0 && lead)
                    {
                        reportFallback(shape, type, false);
                        reportFallback(shape, type, true);
                    }
                    final long[] tuned = onlineTuning && cycle == 0 ? tune(shape, type, op, root) : null;
                    final RowResult.Measurement outOfPlace = benchTime(shape, type, op, root, false, row);
                    final RowResult.Measurement inPlace = benchTime(shape, type, op, root, true, row);
                    row.append(TableFormatter.rowPlan(outOfPlace.plan(), inPlace.plan()));
                    if (thread == 0)
                    {
                        if (tuned != null)
                        {
                            tuning.add(new TuningSummary.Entry(shape.totalBytes(), shape.counts().paramCount(),
                                shape.elementSize(), type.ncclTestsName(), opName, root, taskReport(shape, type, op),
                                tuned[0], tuned[1]));
                        }
                        out.println(row);
                        out.flush();
                        rowListener.accept(new RowResult(shape.totalBytes(), shape.counts().paramCount(),
                            type.ncclTestsName(), opName, root, outOfPlace, inPlace));
                    }
                }
            }
        }

        /**
         * {@code --jit-warmup-ms}: before the first timed size of the pass, the first type, operator and root's
         * collective on the largest size for half the time, then for the other half on the table's sizes up to
         * {@value #JIT_WARMUP_CYCLE_MAX_BYTES} bytes in turn (at least the smallest): per round up to
         * {@value #JIT_WARMUP_BURST} calls out of place on one size and at once as many in place on the next, queued
         * through the timed loop's own method, then the row's exchanges and checked calls (docs/bench.md says which
         * recompilation each prevents); untimed, unprinted. The JIT compiles what a call runs only after many
         * calls, so without this the first sizes of a table time the interpreter (10-50x slower). Sizes change
         * every round so that the compiled code has seen a call unlike the last one: after a warm-up on one size,
         * the table's first new size made the JVM throw away the compiled call path (a branch its profile had never
         * seen taken) and the first rows timed the recompilation. After the budget the second half goes on while
         * the JIT of any process compiled in the last {@value #JIT_QUIET_MS} ms (at most
         * {@value #JIT_QUIET_MAX_EXTRA_MS} ms more): a compilation that runs on into the table takes the CPU from a
         * rank for milliseconds at a time, above all when each process has one CPU ({@code --bind-to core}). Thread
         * 0's clock decides when to stop, for every thread, so that every rank makes the same calls.
         */
        private void jitWarmUp()
        {
            final long budgetNs = options.jitWarmupMs() * 1_000_000L;
            if (budgetNs <= 0 || options.minBytes() > maxBytes)
            {
                return;
            }
            final DataType type = options.types().get(0);
            final ReduceOp op = tool.hasOp() ? BenchOptions.op(options.opNames().get(0), nRanks) : ReduceOp.SUM;
            final int root = options.roots(tool).get(0);
            sync.barrier();
            final Communicator[] ranksToWarm = myWarmComms != null ? myWarmComms : myComms;
            // the largest first, as nccl-tests' -w: the table starts at the smallest, whose path then ran last
            warmUpFor(ranksToWarm, List.of(Shape.of(tool, maxBytes, type, nRanks)), type, op, root, budgetNs / 2,
                false);
            final List<Shape> small = new ArrayList<>();
            for (final long size : Sizes.sequence(options.minBytes(), maxBytes, options.stepBytes(),
                options.stepFactor()))
            {
                if (small.isEmpty() || size <= JIT_WARMUP_CYCLE_MAX_BYTES)
                {
                    small.add(Shape.of(tool, size, type, nRanks));
                }
            }
            warmUpFor(ranksToWarm, small, type, op, root, budgetNs - budgetNs / 2, true);
            sync.barrier();
            if (thread == 0)
            {
                if (myWarmComms != null)
                {
                    closeWarmComms();
                }
                // the warm-up's garbage would otherwise be collected during the table: a young pause of 5-16 ms
                // (seen every 70-120 ms of warm-up) inside a -n 20 row of 1 us calls read as a 250-350 us row
                System.gc();
            }
            sync.barrier();
        }

        /**
         * Runs rounds of calls on the shapes in turn for the budget; with {@code untilJitQuiet}, then on until no
         * process's JIT has compiled for {@value #JIT_QUIET_MS} ms, at most {@value #JIT_QUIET_MAX_EXTRA_MS} ms more.
         */
        private void warmUpFor(final Communicator[] ranksToWarm, final List<Shape> shapes, final DataType type,
            final ReduceOp op, final int root, final long budgetNs, final boolean untilJitQuiet)
        {
            final JitActivity jit = untilJitQuiet ? new JitActivity() : null;
            final CallSlices[] outOfPlace = new CallSlices[shapes.size()];
            final CallSlices[] inPlace = new CallSlices[shapes.size()];
            final int calls = options.iters() * options.aggIters();
            for (int i = 0; i < shapes.size(); i++)
            {
                outOfPlace[i] = new CallSlices(shapes.get(i), false, calls);
                inPlace[i] = new CallSlices(shapes.get(i), true, calls);
            }
            // checked calls only where they run on the table's communicators
            final boolean check = untilJitQuiet && options.check() > 0 && ranksToWarm == myComms;
            final long startNs = System.nanoTime();
            boolean more = true;
            // as the timed loop: several calls queued before waiting, each on the next slice of the buffer (so a call
            // finds others queued before it, the same shape bound just before, and buffers that moved: branches the
            // compiled code must have seen, or the table's first rows time its recompilation)
            final int burst = Math.min(options.iters(), JIT_WARMUP_BURST);
            int iter = 0;
            for (int round = 0; more; round = (round + 1) % shapes.size())
            {
                // out of place on this round's size, then at once in place on the next size: the table's first
                // calls (-w on the largest size, then the smallest) change size from one call to the next, and a
                // warm-up that never did made the JVM recompile the call path in the first row
                final CallSlices[] both = {outOfPlace[round], inPlace[(round + 1) % shapes.size()]};
                for (final CallSlices slices : both)
                {
                    issueCalls(ranksToWarm, slices, type, op, root, iter, burst);
                }
                completeColl();
                // the row's own exchanges too: its time averaged as -a asks, its checked calls, their wrong elements
                // summed (the checker's code compiling during the first rows took the CPU from their timed loops)
                sync.allReduce(thread, 0, options.average());
                for (int k = 0; k < JIT_WARMUP_ROWS_FORMATTED; k++)
                {
                    formatRow(both[k & 1].shape, type, round * JIT_WARMUP_ROWS_FORMATTED + k);
                }
                for (int k = 0; check && k < both.length; k++)
                {
                    final long wrong = checkedCall(both[k], type, op, root, WARMUP_SEED, false);
                    sync.allReduce(thread, wrong, ThreadSync.SUM);
                }
                iter = (iter + burst) % (options.iters() - burst + 1);
                more = warmUpGoesOn(sync, thread, jit, startNs, budgetNs);
            }
        }

        /**
         * Formats, unprinted, a row as the table does: its {@code String.format} (a regex parse of the format, and
         * big-number paths for some values) compiled during the first rows and took a bound rank's CPU from them.
         */
        private void formatRow(final Shape shape, final DataType type, final int salt)
        {
            // values of every magnitude a row prints
            final double timeUs = (1 + salt % 997) * Math.pow(10, salt % 7 - 2);
            final StringBuilder row = new StringBuilder(TableFormatter.rowParameters(shape.totalBytes(),
                shape.counts().paramCount(), type.ncclTestsName(), "sum", -1));
            row.append(TableFormatter.rowResult(timeUs, shape.totalBytes() / timeUs / 1e3, 0.5 / timeUs, 0,
                options.check() > 0));
            row.append(TableFormatter.rowPlan(lastPlan, lastPlan));
        }

        /**
         * {@code --tuner auto}: runs the size's collective out of place, untimed and unchecked, in bursts of
         * {@code -n} calls queued before waiting (at most {@value #TUNE_BURST_MAX}), until the online tuner's task
         * covering it has converged or {@code --tune-iters} calls were made. It stops after the first burst when no
         * task covers the size (the tuner does not decide it). Thread 0 decides when to stop, for every thread, so
         * that every rank makes the same calls (the tuner's rounds go in lock-step). Then, with
         * {@code --jit-warmup-ms}, sizes up to {@value #JIT_WARMUP_CYCLE_MAX_BYTES} bytes run on untimed until the
         * JIT is quiet, as the warm-up does.
         *
         * @return the calls made and their wall time in nanoseconds.
         */
        private long[] tune(final Shape shape, final DataType type, final ReduceOp op, final int root)
        {
            final long limit = options.tuneIters();
            // queued as the timed loop queues them: scored one at a time between the bench's own exchanges, 1 us
            // calls read 3-6 us, so the search compared plans in a regime the table never runs
            final int burst = Math.max(1, Math.min(options.iters(), TUNE_BURST_MAX));
            final CallSlices slices = new CallSlices(shape, false, burst);
            sync.barrier();
            final long startNs = System.nanoTime();
            long calls = 0;
            boolean more = limit > 0 && shape.counts().paramCount() > 0;
            while (more)
            {
                final int queued = (int)Math.min(burst, limit - calls);
                for (int iter = 0; iter < queued; iter++)
                {
                    startColl(slices, type, op, root, iter);
                }
                completeColl();
                calls += queued;
                double goOn = 0;
                if (thread == 0)
                {
                    final TaskReport report = taskReport(shape, type, op);
                    goOn = report != null && !report.state().converged() && calls < limit ? 1 : 0;
                }
                // a half, not 0: the 1 or 0 comes through the bench's double-valued AllReduce
                more = sync.allReduce(thread, goOn, ThreadSync.RANK0) > 0.5;
            }
            final long tuneNs = System.nanoTime() - startNs;
            if (options.jitWarmupMs() > 0 && calls > 1 && shape.totalBytes() <= JIT_WARMUP_CYCLE_MAX_BYTES)
            {
                // the converged plan's calls, and the tuner's part in them, are compiled only now: the JIT queued
                // them during the search, and on two cores its compiler finished them 300-600 ms after the search,
                // while a -n 20000 row of 1 us calls timed 5-8 us per call (the same plan read 1 us untuned)
                final long settleStartNs = System.nanoTime();
                warmUpFor(myComms, List.of(shape), type, op, root, 0, true);
                if (thread == 0)
                {
                    settleNs += System.nanoTime() - settleStartNs;
                }
            }
            return new long[] {calls, tuneNs};
        }

        /** @return the online tuner's task covering this size's calls, or null when none does. */
        private TaskReport taskReport(final Shape shape, final DataType type, final ReduceOp op)
        {
            final Collective collective = tool.collective();
            // the tuner keys a call by NCCL's nBytes: the larger of the rank's input and output
            final long bytes = collective.totalCount(shape.counts().paramCount(), nRanks) * shape.elementSize();
            for (final TaskReport report : factory.tunerReports(myComms[0]))
            {
                final TaskKey key = report.key();
                if (key.collective() == collective && key.type() == type && key.minBytes() <= bytes &&
                    bytes <= key.maxBytes() && (!tool.hasOp() || key.op() == op.kind()))
                {
                    return report;
                }
            }
            return null;
        }

        private void warmUp(final Shape shape, final DataType type, final ReduceOp op, final int root)
        {
            final CallSlices slices = new CallSlices(shape, false, options.warmupIters());
            for (int iter = 0; iter < options.warmupIters(); iter++)
            {
                startColl(slices, type, op, root, iter);
            }
            completeColl();
        }

        /** @return the measurement: time, bandwidths, wrong elements, and the plan of its last call. */
        private RowResult.Measurement benchTime(final Shape shape, final DataType type, final ReduceOp op,
            final int root, final boolean inPlace, final StringBuilder row)
        {
            if (options.check() > 0)
            {
                checker(shape, type, op, root, inPlace, WARMUP_SEED).prepareAll();
            }
            final int calls = options.iters() * options.aggIters();
            final CallSlices slices = new CallSlices(shape, inPlace, calls);
            startColl(slices, type, op, root, 0);
            completeColl();
            sync.barrier();

            final long startNs = System.nanoTime();
            issueCalls(myComms, slices, type, op, root, 0, options.iters());
            final double cpuSeconds = (System.nanoTime() - startNs) / 1e9 / calls;
            completeColl();
            final double localSeconds = (System.nanoTime() - startNs) / 1e9 / calls;
            final double seconds = sync.allReduce(thread, localSeconds, options.average());

            final long paramCount = shape.counts().paramCount();
            final double algBw = tool.algorithmBandwidth(paramCount, shape.elementSize(), seconds, nRanks);
            final double busBw = algBw * tool.busBandwidthFactor(nRanks);
            sync.barrier();

            long wrong = 0;
            rep++;
            for (int c = 0; c < options.check(); c++)
            {
                final long localWrong = checkedCall(slices, type, op, root, rep, true);
                wrong = Math.round(sync.allReduce(thread, localWrong, ThreadSync.SUM));
                if (wrong != 0)
                {
                    break;
                }
            }

            final double timeUs = (options.reportCputime() ? cpuSeconds : seconds) * 1.0E6;
            row.append(TableFormatter.rowResult(timeUs, algBw, busBw, wrong, options.check() > 0));
            bwSum += busBw;
            bwCount++;
            return new RowResult.Measurement(timeUs, algBw, busBw, options.check() > 0 ? wrong : RowResult.NOT_CHECKED,
                lastPlan, lastTransport);
        }

        /**
         * Issues {@code iters} iterations of the timed loop from iteration {@code first}: {@code -a} calls each,
         * grouped when more than one, on the next slices of the buffers. The table and the JIT warm-up both run
         * calls through here, so the code the table times is the code the warm-up had compiled.
         */
        private void issueCalls(final Communicator[] onRanks, final CallSlices slices, final DataType type,
            final ReduceOp op, final int root, final int first, final int iters)
        {
            final int agg = options.aggIters();
            for (int iter = first; iter < first + iters; iter++)
            {
                if (agg > 1)
                {
                    factory.groupStart();
                }
                for (int a = 0; a < agg; a++)
                {
                    startColl(onRanks, slices, type, op, root, iter * agg + a);
                }
                if (agg > 1)
                {
                    factory.groupEnd();
                    blockIfAsked();
                }
            }
        }

        /**
         * One checked call of iteration 0 on this thread's ranks: fills the buffers from the pattern of {@code seed},
         * runs the call, verifies; with {@code report}, wrong elements are logged and counted in the errors (the JIT
         * warm-up's checked calls only train the JIT: the table's own checks report).
         *
         * @return the wrong elements on this thread.
         */
        private long checkedCall(final CallSlices slices, final DataType type, final ReduceOp op, final int root,
            final long seed, final boolean report)
        {
            final Shape shape = slices.shape;
            final Checked checked = checker(shape, type, op, root, slices.inPlace, seed);
            checked.prepareAll();
            startColl(slices, type, op, root, 0);
            completeColl();
            checked.download();
            final long localWrong = checked.checker.verify(ranks, mySendAllocs, myRecvAllocs);
            if (localWrong != 0 && report)
            {
                errors++;
                LOG.warn("{} {} {} {} bytes {}: {} wrong elements on thread {}; first: {}", tool.toolName(),
                    type.ncclTestsName(), tool.hasOp() ? op.ncclTestsName() : BenchTool.NO_OP_NAME,
                    shape.totalBytes(), slices.inPlace ? "in-place" : "out-of-place", localWrong, thread,
                    checked.checker.firstMismatch());
            }
            return localWrong;
        }

        private Checked checker(final Shape shape, final DataType type, final ReduceOp op, final int root,
            final boolean inPlace, final long seed)
        {
            final DataPattern pattern = new DataPattern(type, tool.hasOp() ? op.kind() : null, nRanks, seed);
            final ExpectedValues expected = new ExpectedValues(tool, pattern, shape.counts().paramCount(), root,
                op.kind() == ReduceOp.Kind.PREMULSUM ? op.scalar() : 0.0);
            return new Checked(new ResultChecker(tool, pattern, expected, shape.counts(), root, inPlace));
        }

        private void startColl(final CallSlices slices, final DataType type, final ReduceOp op, final int root,
            final int iter)
        {
            startColl(myComms, slices, type, op, root, iter);
        }

        private void startColl(final Communicator[] onRanks, final CallSlices slices, final DataType type,
            final ReduceOp op, final int root, final int iter)
        {
            final long count = slices.shape.counts().paramCount();
            if (nGpus > 1)
            {
                factory.groupStart();
            }
            for (int i = 0; i < nGpus; i++)
            {
                final Work work = tool.start(onRanks[i], slices.send(iter, i), slices.recv(iter, i), count, type, op,
                    root, myStreams[i]);
                if (pending[i] != null && pendingOn[i] != onRanks[i])
                {
                    // the call it replaces ran on another communicator, whose calls this one does not follow
                    pending[i].join();
                }
                pending[i] = work;
                pendingOn[i] = onRanks[i];
            }
            if (nGpus > 1)
            {
                factory.groupEnd();
            }
            if (options.aggIters() <= 1)
            {
                blockIfAsked();
            }
        }

        private void blockIfAsked()
        {
            if (options.blocking())
            {
                completeColl();
                sync.barrier();
            }
        }

        private void completeColl()
        {
            for (int i = 0; i < nGpus; i++)
            {
                final Work work = pending[i];
                if (work == null)
                {
                    continue;
                }
                work.join();
                if (i == 0)
                {
                    lastPlan = TableFormatter.planText(work.plan(), work.programName());
                    lastTransport = work.plan() == null ? RowResult.NO_PLAN : work.plan().transport().lowerName();
                }
                pending[i] = null;
                pendingOn[i] = null;
            }
        }

        /**
         * The buffers of this thread's ranks for each iteration of one (size, in/out-of-place) measurement, made
         * before the timed loop so that it allocates nothing itself. As nccl-tests, iteration i works at offset
         * {@code total x (i % (maxBytes / total))}, to avoid cache effects and catch races; in place, the send buffer
         * is the rank's slice of the receive buffer (AllGather) or the receive buffer the rank's slice of the send
         * buffer (ReduceScatter).
         */
        private final class CallSlices
        {
            private final Shape shape;
            private final boolean inPlace;
            private final long steps;
            private final Buffer[][] sends;
            private final Buffer[][] recvs;

            CallSlices(final Shape shape, final boolean inPlace, final int iterations)
            {
                this.shape = shape;
                this.inPlace = inPlace;
                final long total = shape.totalBytes();
                this.steps = total != 0 ? maxBytes / total : 1;
                final int cached = (int)Math.min(steps, Math.max(1, iterations));
                this.sends = new Buffer[cached][nGpus];
                this.recvs = new Buffer[cached][nGpus];
                for (int k = 0; k < cached; k++)
                {
                    for (int i = 0; i < nGpus; i++)
                    {
                        sends[k][i] = slice(k, i, true);
                        recvs[k][i] = slice(k, i, false);
                    }
                }
            }

            Buffer send(final int iter, final int i)
            {
                final long k = iter % steps;
                return k < sends.length ? sends[(int)k][i] : slice(k, i, true);
            }

            Buffer recv(final int iter, final int i)
            {
                final long k = iter % steps;
                return k < recvs.length ? recvs[(int)k][i] : slice(k, i, false);
            }

            private Buffer slice(final long step, final int i, final boolean sendSide)
            {
                final long shift = shape.totalBytes() * step;
                final long length = sendSide ? shape.sendBytes() : shape.recvBytes();
                final boolean fromSend = sendSide && !inPlace;
                final CollByteCount counts = shape.counts();
                final long offset = !inPlace ? shift : shift + (sendSide ? counts.sendInplaceOffset() :
                    counts.recvInplaceOffset()) * shape.elementSize() * ranks[i];
                if (mirror != null)
                {
                    return mirror.slice(thread * nGpus + i, fromSend, offset, length);
                }
                return (fromSend ? mySendAllocs[i] : myRecvAllocs[i]).slice(offset, length);
            }
        }

        /** A checker and the preparation of this thread's ranks. */
        private final class Checked
        {
            private final ResultChecker checker;

            Checked(final ResultChecker checker)
            {
                this.checker = checker;
            }

            void prepareAll()
            {
                for (int i = 0; i < nGpus; i++)
                {
                    checker.prepare(ranks[i], mySendAllocs[i], myRecvAllocs[i]);
                    if (mirror != null)
                    {
                        mirror.upload(thread * nGpus + i, mySendAllocs[i], myRecvAllocs[i], checkedBytes());
                    }
                }
            }

            /** Brings the device twins' results back to the host buffers the checker reads. */
            void download()
            {
                for (int i = 0; mirror != null && i < nGpus; i++)
                {
                    mirror.download(thread * nGpus + i, mySendAllocs[i], myRecvAllocs[i], checkedBytes());
                }
            }

            /** @return the bytes a checked call (iteration 0) and its guard bytes span in each allocation. */
            private long checkedBytes()
            {
                return checker.windowBytes();
            }
        }
    }

    private static double minBusBandwidth()
    {
        final String value = System.getenv("NCCL_TESTS_MIN_BW");
        if (value == null || value.isBlank())
        {
            return -1;
        }
        try
        {
            return Double.parseDouble(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            LOG.warn("NCCL_TESTS_MIN_BW='{}' is not a number; ignored", value);
            return -1;
        }
    }

    private static long maxDirectMemory()
    {
        try
        {
            final HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            final long configured = Long.parseLong(bean.getVMOption("MaxDirectMemorySize").getValue());
            if (configured > 0)
            {
                return configured;
            }
        }
        catch (final RuntimeException ex)
        {
            LOG.debug("MaxDirectMemorySize unknown", ex);
        }
        return Runtime.getRuntime().maxMemory();
    }

    /** @return the host name cut at the first dot, as nccl-tests' {@code getHostName}. */
    static String hostname()
    {
        String name = null;
        try
        {
            name = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        }
        catch (final IOException | RuntimeException ex)
        {
            name = System.getenv("HOSTNAME");
        }
        if (name == null || name.isEmpty())
        {
            try
            {
                name = InetAddress.getLocalHost().getHostName();
            }
            catch (final IOException ex)
            {
                name = "localhost";
            }
        }
        final int dot = name.indexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }
}
