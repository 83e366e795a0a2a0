package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.bench.BenchRunner.Shape;
import io.jccl.bench.ThreadRanks.CallSlices;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One bench thread of a {@link BenchRunner} run and the ranks it drives, as nccl-tests' {@code threadRunTests},
 * {@code TimeTest} and {@code BenchTime}: the JIT warm-up ({@link JitWarmUp}), then for every type, operator and root
 * the {@code -w} warm-up and every size of every cycle: with the online tuner, the size's tuning first
 * ({@link SizeTuner}); then the out-of-place and the in-place measurement (an untimed call, {@code -n} timed
 * iterations, or with {@code --row-time-ms} as many more as fill that time on the slowest rank, the time per
 * iteration combined over threads by {@code -a}, then the {@code -c} checks,
 * {@link ResultChecks}). Thread 0 prints each row on the table's stream and tells the listener of it.
 * <p>
 * Threading: each runs on its own bench thread (thread 0's on the caller of {@link BenchRunner#run()}); the threads
 * meet at the run's {@link BenchSync} between measurements. Its totals are read once its thread is done.
 */
final class BenchWorker implements Runnable
{
    /** The most calls {@code --row-time-ms} makes a row time. */
    static final int MAX_ROW_CALLS = 100_000;

    private final int thread;
    private final BenchTool tool;
    private final BenchOptions options;
    private final BenchSync sync;
    private final int nRanks;
    private final long maxBytes;
    /** True in the process that runs rank 0, which alone names a schedule's fallback rows. */
    private final boolean lead;
    /** True when the online tuner decides the plans: each size is tuned before it is timed. */
    private final boolean onlineTuning;
    /** Where a schedule's fallback rows are named, or null without {@code --schedule}. */
    private final ScheduleFallbacks fallbacks;
    private final PrintStream out;
    private final Consumer<RowResult> rowListener;
    private final Consumer<Throwable> fail;
    private final ThreadRanks threadRanks;
    /** This thread's ranks of the table, those the timed loop calls on. */
    private final Communicator[] myComms;
    private final ResultChecks checks;
    private final JitWarmUp jitWarmUp;
    private final SizeTuner tuner;
    /** Thread 0 only: a tuning entry per row of the first cycle, for the summary. */
    private final List<TuningSummary.Entry> tuning = new ArrayList<>();
    private long rep;
    /** {@link ResultChecks#errors()} summed over every thread of every process, once the thread is done. */
    private long allErrors;
    private double bwSum;
    private long bwCount;

    /**
     * @param setup       the run's shared setup, its ranks allocated.
     * @param thread      this bench thread's index in its process.
     * @param fallbacks   where thread 0 of the process that runs rank 0 names a schedule's fallback rows, or null
     *                    without {@code --schedule}.
     * @param out         where thread 0 prints the rows.
     * @param rowListener told every row by thread 0, as it is printed.
     * @param fail        told what made this thread fail, on this thread.
     */
    BenchWorker(final BenchSetup setup, final int thread, final ScheduleFallbacks fallbacks, final PrintStream out,
        final Consumer<RowResult> rowListener, final Consumer<Throwable> fail)
    {
        this.thread = thread;
        this.tool = setup.tool();
        this.options = setup.options();
        this.sync = setup.sync();
        this.nRanks = setup.options().nRanks();
        this.maxBytes = setup.maxBytes();
        this.lead = setup.options().processRank() == 0;
        this.onlineTuning = setup.onlineTuning();
        this.fallbacks = fallbacks;
        this.out = out;
        this.rowListener = rowListener;
        this.fail = fail;
        this.threadRanks = new ThreadRanks(setup, thread);
        this.myComms = threadRanks.comms();
        this.checks = new ResultChecks(setup, threadRanks);
        this.jitWarmUp = new JitWarmUp(setup, threadRanks, checks);
        this.tuner = new SizeTuner(setup, threadRanks, jitWarmUp);
    }

    /** @return the wrong results of every thread of every process, once this thread is done. */
    long allErrors()
    {
        return allErrors;
    }

    /** @return the sum of this thread's bus bandwidths, one per measurement. */
    double bwSum()
    {
        return bwSum;
    }

    /** @return this thread's measurements. */
    long bwCount()
    {
        return bwCount;
    }

    /** @return thread 0's tuning entries, one per row of the first cycle with the online tuner; not to be changed. */
    List<TuningSummary.Entry> tuning()
    {
        return tuning;
    }

    /** @return the time this thread's tuned sizes ran on after converging, until the JIT was quiet, in ns. */
    long settleNs()
    {
        return tuner.settleNs();
    }

    @Override
    public void run()
    {
        try
        {
            jitWarmUp.beforeTable();
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
            allErrors = Math.round(sync.allReduce(thread, checks.errors(), ThreadSync.SUM));
        }
        catch (final Throwable ex)
        {
            fail.accept(ex);
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
                if (fallbacks != null && thread == 0 && lead)
                {
                    fallbacks.report(shape, type, false);
                    fallbacks.report(shape, type, true);
                }
                final long[] tuned = onlineTuning && cycle == 0 ? tuner.tune(shape, type, op, root) : null;
                final RowResult.Measurement outOfPlace = benchTime(shape, type, op, root, false, row);
                final RowResult.Measurement inPlace = benchTime(shape, type, op, root, true, row);
                row.append(TableFormatter.rowPlan(outOfPlace.plan(), inPlace.plan()));
                if (thread == 0)
                {
                    if (tuned != null)
                    {
                        tuning.add(new TuningSummary.Entry(shape.totalBytes(), shape.counts().paramCount(),
                            shape.elementSize(), type.ncclTestsName(), opName, root,
                            tuner.taskReport(shape, type, op), tuned[0], tuned[1]));
                    }
                    out.println(row);
                    out.flush();
                    rowListener.accept(new RowResult(shape.totalBytes(), shape.counts().paramCount(),
                        type.ncclTestsName(), opName, root, outOfPlace, inPlace));
                }
            }
        }
    }

    private void warmUp(final Shape shape, final DataType type, final ReduceOp op, final int root)
    {
        final CallSlices slices = threadRanks.slices(shape, false, options.warmupIters());
        for (int iter = 0; iter < options.warmupIters(); iter++)
        {
            threadRanks.startColl(slices, type, op, root, iter);
        }
        threadRanks.completeColl();
    }

    /** @return the measurement: time, bandwidths, wrong elements, and the plan of its last call. */
    private RowResult.Measurement benchTime(final Shape shape, final DataType type, final ReduceOp op,
        final int root, final boolean inPlace, final StringBuilder row)
    {
        if (options.check() > 0)
        {
            checks.prepare(shape, type, op, root, inPlace, ResultChecks.WARMUP_SEED);
        }
        final int agg = options.aggIters();
        final long rowNs = options.rowTimeMs() * 1_000_000L;
        final CallSlices slices = threadRanks.slices(shape, inPlace,
            rowNs > 0 ? MAX_ROW_CALLS : options.iters() * agg);
        threadRanks.startColl(slices, type, op, root, 0);
        threadRanks.completeColl();
        sync.barrier();

        int iters = options.iters();
        long startNs = System.nanoTime();
        threadRanks.issueCalls(myComms, slices, type, op, root, 0, iters);
        long issuedNs = System.nanoTime();
        threadRanks.completeColl();
        long endNs = System.nanoTime();
        if (rowNs > 0)
        {
            // every rank gets the same slowest time, so every rank makes the same number of calls
            final double slowestNs = sync.allReduce(thread, endNs - startNs, ThreadSync.MAX);
            if (slowestNs < rowNs)
            {
                iters = (int)Math.min(MAX_ROW_CALLS / agg, Math.ceil(rowNs * (double)iters / slowestNs));
                sync.barrier();
                startNs = System.nanoTime();
                threadRanks.issueCalls(myComms, slices, type, op, root, 0, iters);
                issuedNs = System.nanoTime();
                threadRanks.completeColl();
                endNs = System.nanoTime();
            }
        }
        final int calls = iters * agg;
        final double cpuSeconds = (issuedNs - startNs) / 1e9 / calls;
        final double localSeconds = (endNs - startNs) / 1e9 / calls;
        final double seconds = sync.allReduce(thread, localSeconds, options.average());

        final long paramCount = shape.counts().paramCount();
        final double algBw = tool.algorithmBandwidth(paramCount, shape.elementSize(), seconds, nRanks);
        final double busBw = algBw * tool.busBandwidthFactor(nRanks);
        sync.barrier();

        long wrong = 0;
        rep++;
        final boolean checked = options.check() > 0 && (!inPlace || tool.checksInPlace(options.p2p()));
        for (int c = 0; checked && c < options.check(); c++)
        {
            final long localWrong = checks.checkedCall(slices, type, op, root, rep, true);
            wrong = Math.round(sync.allReduce(thread, localWrong, ThreadSync.SUM));
            if (wrong != 0)
            {
                break;
            }
        }

        final double timeUs = (options.reportCputime() ? cpuSeconds : seconds) * 1.0E6;
        row.append(TableFormatter.rowResult(timeUs, algBw, busBw, wrong, checked));
        bwSum += busBw;
        bwCount++;
        return new RowResult.Measurement(timeUs, algBw, busBw, checked ? wrong : RowResult.NOT_CHECKED,
            threadRanks.lastPlan(), threadRanks.lastTransport());
    }
}
