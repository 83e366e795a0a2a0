package io.jccl.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
 * that no task's trials are timed on a cold JIT while the searches' code gets compiled. With {@code --load}, a
 * {@link ComputeLoad} runs beside the collectives from before the first size to the end.
 * <p>
 * In a multi-process run ({@link BenchOptions#processes}) this process runs one of the ranks: its buffers are that
 * rank's, its data pattern and checks are for that rank, and the ranks agree on times, wrong-element counts and
 * barriers through the factory's {@link BenchSync} ({@link CommunicatorSync}: AllReduces on jccl itself) as
 * nccl-tests' processes do through MPI. Every process prints the same table; the tools give the processes other
 * than rank 0's a stream that drops it, and only rank 0's names a schedule's fallback rows on the error stream.
 * <p>
 * The runner holds the run together and ends it (the lines after the table, the exit status); its parts do the rest:
 * {@link BenchRanks} (this process's ranks and buffers), {@link BenchPreamble} (the header), {@link BenchWorker}
 * (one bench thread's table: the measurements, the rows) with {@link ThreadRanks} (its calls), {@link ResultChecks},
 * {@link JitWarmUp} and {@link SizeTuner} (the online tuner's pre-tuning), and {@link ScheduleFallbacks}.
 * <p>
 * Threading: {@link #run()} is called once; its thread sets up, becomes bench thread 0, starts the others and waits
 * for them, then closes everything. A bench thread that fails aborts the ranks of every thread.
 */
public final class BenchRunner
{
    /** Exit status of a run whose results were all right. */
    public static final int EXIT_OK = 0;
    /** Exit status of a run with wrong results, a bandwidth under {@code NCCL_TESTS_MIN_BW}, or a failure. */
    public static final int EXIT_FAILURE = 1;
    /** {@code --jit-warmup-ms} goes on past its budget until no JIT compiled for this long, in ms. */
    static final long JIT_QUIET_MS = 300;
    /** ... but for at most this long past the budget, in ms. */
    static final long JIT_QUIET_MAX_EXTRA_MS = 5_000;

    private static final Logger LOG = LoggerFactory.getLogger(BenchRunner.class);
    private static final long DIRECT_MEMORY_RESERVE = 1L << 30;

    private final BenchTool tool;
    private final BenchOptions options;
    private final BenchSchedule schedule;
    private final CommunicatorFactory factory;
    private final SweepCombination combination;
    private final Consumer<RowResult> rowListener;
    private final PrintStream out;
    private final BenchPreamble preamble;
    /** Where thread 0 names the rows a schedule does not apply to; null without {@code --schedule}. */
    private final ScheduleFallbacks fallbacks;
    private final int nThreads;
    private final int nRanks;
    /** This process's ranks: all of them, or one in a multi-process run. */
    private final int localRanks;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** True when the online tuner decides the plans: each size is tuned before it is timed. */
    private final boolean onlineTuning;
    /** This process's ranks, their buffers and streams. */
    private final BenchRanks ranks;
    private long maxBytes;
    private BenchSync sync;

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
        this.nThreads = options.nThreads();
        this.nRanks = options.nRanks();
        this.localRanks = options.localRanks();
        this.maxBytes = options.maxBytes();
        this.onlineTuning = options.onlineTuning();
        this.ranks = new BenchRanks(options, factory, combination);
        this.preamble = new BenchPreamble(tool, options, schedule, out, err);
        this.fallbacks = schedule == null ? null : new ScheduleFallbacks(tool, schedule, nRanks, err);
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
            ranks.open();
        }
        catch (final RuntimeException ex)
        {
            LOG.error("{}: creating {} ranks failed: {}", tool.toolName(), nRanks, ex.toString(), ex);
            return EXIT_FAILURE;
        }
        LOG.info("{}: {} of {} ranks ({} threads x {} ranks) in process {}; {}; {}", tool.toolName(), localRanks,
            nRanks, nThreads, options.nGpus(), ProcessHandle.current().pid(), factory.describe(),
            ranks.memory().describe());
        try
        {
            if (onlineTuning && options.jitWarmupMs() > 0 && options.minBytes() <= maxBytes)
            {
                // the warm-up's calls run on a cold JIT: as trials they would score the tasks' first plans too slow
                ranks.openWarmUp();
            }
            sync = factory.sync(nThreads, ranks.comms());
            maxBytes = preamble.print(ranks, sync, maxBytes, onlineTuning);
            preamble.warnAboutCompatibilityFlags(combination);
            ranks.allocate(maxBytes);
            for (final String line : TableFormatter.columnHeaders(options.reportCputime() ? "cputime" : "time"))
            {
                out.println(line);
            }
            out.flush();
            return finish(ComputeLoad.during(options.load(), this::runWorkers));
        }
        finally
        {
            ranks.closeAll(() -> failure.get() != null);
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
     *
     * @param localRanks the ranks of this process, each with a send and a receive buffer.
     * @return the most bytes one buffer may have in the JVM's direct memory, guard bytes excluded.
     */
    static long bytesPerBufferLimit(final int localRanks)
    {
        final long direct = maxDirectMemory();
        final long usable = direct - Math.min(DIRECT_MEMORY_RESERVE, direct / 4);
        final long perBuffer = usable / (2L * localRanks) - ResultChecker.GUARD_BYTES;
        final long hostBufferMax = Integer.MAX_VALUE - HostBuffer.ALIGNMENT - ResultChecker.GUARD_BYTES;
        return Math.max(0, Math.min(perBuffer, hostBufferMax));
    }

    private BenchWorker[] runWorkers()
    {
        final BenchSetup setup = new BenchSetup(tool, options, factory, sync, ranks, maxBytes, onlineTuning);
        final BenchWorker[] workers = new BenchWorker[nThreads];
        final Thread[] threads = new Thread[nThreads];
        for (int t = 0; t < nThreads; t++)
        {
            workers[t] = new BenchWorker(setup, t, fallbacks, out, rowListener, this::fail);
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

    private int finish(final BenchWorker[] workers)
    {
        final Throwable error = failure.get();
        if (error != null)
        {
            out.flush();
            LOG.error("{} failed: {}", tool.toolName(), error.toString(), error);
            return EXIT_FAILURE;
        }
        final long errors = workers[0].allErrors();
        double bwSum = 0;
        long bwCount = 0;
        for (final BenchWorker worker : workers)
        {
            bwSum += worker.bwSum();
            bwCount += worker.bwCount();
        }
        final double avgBusBw = bwSum / bwCount;
        final double minBusBw = minBusBandwidth();
        if (schedule != null)
        {
            out.println(fallbacks.line());
        }
        out.println(TableFormatter.outOfBoundsLine(errors));
        out.println(TableFormatter.avgBusBandwidthLine(avgBusBw, minBusBw));
        out.println("#");
        if (onlineTuning)
        {
            for (final String line : new TuningSummary(tool, nRanks, workers[0].tuning()).lines())
            {
                out.println(line);
            }
            final long settleNs = workers[0].settleNs();
            if (settleNs > 0)
            {
                out.println("# Then untimed calls of each tuned size up to " + JitWarmUp.CYCLE_MAX_BYTES +
                    " B until the JIT was quiet (--jit-warmup-ms): " + Math.round(settleNs / 1e6) + " ms");
                out.println("#");
            }
        }
        out.println();
        out.flush();
        return errors != 0 || (minBusBw >= 0 && avgBusBw < minBusBw * 0.9) ? EXIT_FAILURE : EXIT_OK;
    }

    private void fail(final Throwable error)
    {
        if (failure.compareAndSet(null, error))
        {
            if (sync != null)
            {
                sync.abort();
            }
            ranks.abort();
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

    /** The counts and byte lengths of one message size, as nccl-tests' {@code setupArgs}. */
    record Shape(CollByteCount counts, int elementSize)
    {
        /**
         * @param tool   the collective.
         * @param size   the size in bytes, as {@code -b}/{@code -e} give it.
         * @param type   the element type.
         * @param nRanks the ranks of the whole run.
         * @return the counts of that size.
         */
        static Shape of(final BenchTool tool, final long size, final DataType type, final int nRanks)
        {
            final int elementSize = type.byteSize();
            return new Shape(tool.byteCount(size / elementSize, elementSize, nRanks), elementSize);
        }

        /** @return the bytes each rank sends. */
        long sendBytes()
        {
            return counts.sendCount() * elementSize;
        }

        /** @return the bytes each rank receives. */
        long recvBytes()
        {
            return counts.recvCount() * elementSize;
        }

        /** @return the larger of the two: the size of the table's row. */
        long totalBytes()
        {
            return Math.max(sendBytes(), recvBytes());
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
