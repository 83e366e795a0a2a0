package io.jccl.bench;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.TuningReport;
import io.jccl.bench.BenchRunner.Shape;
import io.jccl.bench.ThreadRanks.CallSlices;

import java.util.List;

/**
 * One bench thread's pre-tuning of each size with the online tuner ({@code --tuner auto}): before a size is timed in
 * the first cycle of a {@link BenchRunner} pass, it runs untimed until the tuner's task for it has converged or
 * {@code --tune-iters} calls were made, so that the row times the converged plan; and the tuner's report of the task
 * for the {@link TuningSummary} after the table.
 * <p>
 * Threading: used by its bench thread only; every thread of every process makes the same calls, and thread 0 decides
 * for all when a size's tuning stops.
 */
final class SizeTuner
{
    /** The most calls {@code --tuner auto} queues before it asks whether the size's task converged. */
    private static final int BURST_MAX = 64;

    private final BenchTool tool;
    private final BenchOptions options;
    private final CommunicatorFactory factory;
    private final BenchSync sync;
    private final int nRanks;
    private final int thread;
    private final ThreadRanks threadRanks;
    private final JitWarmUp jitWarmUp;
    /** The time tuned sizes ran on after converging, until the JIT was quiet. */
    private long settleNs;

    /**
     * @param setup       the run's shared setup.
     * @param threadRanks this bench thread's ranks.
     * @param jitWarmUp   this bench thread's JIT warm-up, run after a size's search until the JIT is quiet.
     */
    SizeTuner(final BenchSetup setup, final ThreadRanks threadRanks, final JitWarmUp jitWarmUp)
    {
        this.tool = setup.tool();
        this.options = setup.options();
        this.factory = setup.factory();
        this.sync = setup.sync();
        this.nRanks = setup.options().nRanks();
        this.thread = threadRanks.thread();
        this.threadRanks = threadRanks;
        this.jitWarmUp = jitWarmUp;
    }

    /** @return the time tuned sizes ran on after converging, until the JIT was quiet, in nanoseconds. */
    long settleNs()
    {
        return settleNs;
    }

    /**
     * {@code --tuner auto}: runs the size's collective out of place, untimed and unchecked, in bursts of
     * {@code -n} calls queued before waiting (at most {@value #BURST_MAX}), until the online tuner's task
     * covering it has converged or {@code --tune-iters} calls were made. It stops after the first burst when no
     * task covers the size (the tuner does not decide it). Thread 0 decides when to stop, for every thread, so
     * that every rank makes the same calls (the tuner's rounds go in lock-step). Then, with
     * {@code --jit-warmup-ms}, sizes up to {@value JitWarmUp#CYCLE_MAX_BYTES} bytes run on untimed until the
     * JIT is quiet, as the warm-up does.
     *
     * @param shape the size.
     * @param type  the element type.
     * @param op    the reduction.
     * @param root  the root rank.
     * @return the calls made and their wall time in nanoseconds.
     */
    long[] tune(final Shape shape, final DataType type, final ReduceOp op, final int root)
    {
        final long limit = options.tuneIters();
        // queued as the timed loop queues them: scored one at a time between the bench's own exchanges, 1 us
        // calls read 3-6 us, so the search compared plans in a regime the table never runs
        final int burst = Math.max(1, Math.min(options.iters(), BURST_MAX));
        final CallSlices slices = threadRanks.slices(shape, false, burst);
        sync.barrier();
        final long startNs = System.nanoTime();
        long calls = 0;
        boolean more = limit > 0 && shape.counts().paramCount() > 0;
        while (more)
        {
            final int queued = (int)Math.min(burst, limit - calls);
            for (int iter = 0; iter < queued; iter++)
            {
                threadRanks.startColl(slices, type, op, root, iter);
            }
            threadRanks.completeColl();
            calls += queued;
            double goOn = 0;
            if (thread == 0)
            {
                final TuningReport report = taskReport(shape, type, op);
                goOn = report != null && !report.converged() && calls < limit ? 1 : 0;
            }
            // a half, not 0: the 1 or 0 comes through the bench's double-valued AllReduce
            more = sync.allReduce(thread, goOn, ThreadSync.RANK0) > 0.5;
        }
        final long tuneNs = System.nanoTime() - startNs;
        if (options.jitWarmupMs() > 0 && calls > 1 && shape.totalBytes() <= JitWarmUp.CYCLE_MAX_BYTES)
        {
            // the converged plan's calls, and the tuner's part in them, are compiled only now: the JIT queued
            // them during the search, and on two cores its compiler finished them 300-600 ms after the search,
            // while a -n 20000 row of 1 us calls timed 5-8 us per call (the same plan read 1 us untuned)
            final long settleStartNs = System.nanoTime();
            jitWarmUp.warmUpFor(threadRanks.comms(), List.of(shape), type, op, root, 0, true);
            settleNs += System.nanoTime() - settleStartNs;
        }
        return new long[] {calls, tuneNs};
    }

    /**
     * @param shape the size.
     * @param type  the element type.
     * @param op    the reduction.
     * @return the online tuner's task covering this size's calls, or null when none does.
     */
    TuningReport taskReport(final Shape shape, final DataType type, final ReduceOp op)
    {
        final Collective collective = tool.collective();
        if (collective == null)
        {
            // the tuner keys its tasks by collective: it has none for point-to-point calls
            return null;
        }
        // the tuner keys a call by NCCL's nBytes: the larger of the rank's input and output
        final long bytes = collective.totalCount(shape.counts().paramCount(), nRanks) * shape.elementSize();
        for (final TuningReport report : factory.tuningReports(threadRanks.comms()[0]))
        {
            if (report.collective() == collective && report.type() == type && report.covers(bytes) &&
                (!tool.hasOp() || report.op() == op.kind()))
            {
                return report;
            }
        }
        return null;
    }
}
