package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.bench.BenchRunner.Shape;
import io.jccl.bench.ThreadRanks.CallSlices;

import java.util.ArrayList;
import java.util.List;

/**
 * One bench thread's {@code --jit-warmup-ms}: untimed, unprinted calls before the first timed size of a
 * {@link BenchRunner} pass, so that the JIT has compiled the call path before the table starts (a JVM matter:
 * nccl-tests has no such step), and the same rounds after the online tuner's search of a size
 * ({@link SizeTuner}). With the online tuner they run on ranks of their own ({@link BenchRanks#warmComms()}), so that
 * no task's trials are timed on a cold JIT.
 * <p>
 * Threading: used by its bench thread only; every thread of every process makes the same calls, and rank 0's clock
 * decides for all when to stop ({@link BenchRunner#warmUpGoesOn}).
 */
final class JitWarmUp
{
    /** The largest size the second half of {@code --jit-warmup-ms} cycles through. */
    static final long CYCLE_MAX_BYTES = 1L << 20;
    /** The calls {@code --jit-warmup-ms} queues before waiting in its first round ({@code -n} if fewer). */
    private static final int BURST = 8;
    /**
     * A round that took less than this share of its half of the budget doubles the next round's burst, up to
     * {@code -n}: the timed loop queues {@code -n} calls before it waits, and a warm-up that never queued as many
     * left the deeper queue's branches (calls bound and run ahead behind many others) to the table. With 4
     * processes on the 2 CPUs and {@code -n 20000}, the first row read 9.4-10.0 us a call with bursts of 8 against
     * 4.4-6.5 with bursts of 2000, most later rows 2-4 (two launches each).
     */
    private static final int ROUNDS_PER_BUDGET = 16;
    /**
     * Calls of the smallest size each rank makes last ({@link #warmUpSmallest}): past C2's thresholds (a method is
     * compiled at tier 4 after about 5,000 invocations, or 15,000 with its loops' iterations).
     */
    static final long SMALLEST_CALLS = 20_000;
    /** The smallest size's calls between two of the largest in {@link #warmUpSmallest}. */
    static final int SMALLEST_GROUP_CALLS = 200;
    /** The largest smallest size {@link #warmUpSmallest} runs on: above it a call's path is not what its time is. */
    private static final long SMALLEST_MAX_BYTES = 64 * 1024;
    /** The pause before the table, longer than the 50 ms at most that jccl's waits hold a busy-CPU mark. */
    private static final long SETTLE_MS = 60;
    /**
     * Rows formatted (not printed) per JIT warm-up round: with one, the formatting code (String.format's regex, the
     * BigDecimal rounding of {@link CFormat}) reached C2's thresholds only in the table, whose first rows then timed
     * the compilation.
     */
    private static final int ROWS_FORMATTED = 16;

    private final BenchTool tool;
    private final BenchOptions options;
    private final BenchSync sync;
    private final BenchRanks process;
    private final int nRanks;
    private final long maxBytes;
    private final int thread;
    private final ThreadRanks threadRanks;
    private final ResultChecks checks;

    /**
     * @param setup       the run's shared setup.
     * @param threadRanks this bench thread's ranks.
     * @param checks      this bench thread's checked calls.
     */
    JitWarmUp(final BenchSetup setup, final ThreadRanks threadRanks, final ResultChecks checks)
    {
        this.tool = setup.tool();
        this.options = setup.options();
        this.sync = setup.sync();
        this.process = setup.ranks();
        this.nRanks = setup.options().nRanks();
        this.maxBytes = setup.maxBytes();
        this.thread = threadRanks.thread();
        this.threadRanks = threadRanks;
        this.checks = checks;
    }

    /**
     * {@code --jit-warmup-ms}: before the first timed size of the pass, the first type, operator and root's
     * collective on the largest size for half the time, then for the other half on the table's sizes up to
     * {@value #CYCLE_MAX_BYTES} bytes in turn (at least the smallest): per round a burst of calls out of place on
     * one size and at once as many in place on the next ({@value #BURST} at first, doubling while rounds are short,
     * up to {@code -n}: {@link #nextBurst}), queued through the timed loop's own method, then
     * the row's exchanges and checked calls (docs/bench.md says which recompilation each prevents); untimed,
     * unprinted. The JIT compiles what a call runs only after many calls, so without this the first sizes of a table
     * time the interpreter (10-50x slower). Sizes change every round so that the compiled code has seen a call
     * unlike the last one: after a warm-up on one size, the table's first new size made the JVM throw away the
     * compiled call path (a branch its profile had never seen taken) and the first rows timed the recompilation.
     * After the budget the second half goes on while the JIT of any process compiled in the last
     * {@value BenchRunner#JIT_QUIET_MS} ms (at most {@value BenchRunner#JIT_QUIET_MAX_EXTRA_MS} ms more): a
     * compilation that runs on into the table takes the CPU from a rank for milliseconds at a time, above all when
     * each process has one CPU ({@code --bind-to core}). Thread 0's clock decides when to stop, for every thread, so
     * that every rank makes the same calls.
     */
    void beforeTable()
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
        final Communicator[] myWarmComms = threadRanks.warmComms();
        final Communicator[] ranksToWarm = myWarmComms != null ? myWarmComms : threadRanks.comms();
        // the largest first, as nccl-tests' -w: the table starts at the smallest, whose path then ran last
        warmUpFor(ranksToWarm, List.of(Shape.of(tool, maxBytes, type, nRanks)), type, op, root, budgetNs / 2,
            false);
        final List<Shape> small = new ArrayList<>();
        for (final long size : Sizes.sequence(options.minBytes(), maxBytes, options.stepBytes(),
            options.stepFactor()))
        {
            if (small.isEmpty() || size <= CYCLE_MAX_BYTES)
            {
                small.add(Shape.of(tool, size, type, nRanks));
            }
        }
        warmUpFor(ranksToWarm, small, type, op, root, budgetNs - budgetNs / 2, true);
        if (threadRanks.mirror() == null && small.get(0).totalBytes() <= SMALLEST_MAX_BYTES)
        {
            warmUpSmallest(ranksToWarm, small, type, op, root);
        }
        sync.barrier();
        if (thread == 0)
        {
            if (myWarmComms != null)
            {
                process.closeWarmComms();
            }
            // the warm-up's garbage would otherwise be collected during the table: a young pause of 5-16 ms
            // (seen every 70-120 ms of warm-up) inside a -n 20 row of 1 us calls read as a 250-350 us row; a young
            // collection, not System.gc(), whose full collection shrank the heap (YoungCollection says what it cost)
            YoungCollection.run();
        }
        sync.barrier();
        settleAfterCollection();
        sync.barrier();
    }

    /**
     * Waits {@value #SETTLE_MS} ms without a call. While other processes collected (a full collection took both
     * CPUs here for 40-50 ms, a young one a few), this process's waits in the barrier yielded to their collector
     * threads for milliseconds at a time, which jccl's waits take for a busy thread on their CPU: for up to 50 ms
     * after, they park for tens of microseconds where they would yield. With 4 processes on the 2 CPUs, the first row
     * then read 4.4-41 us a call at 1 KiB (median 8.3 over 10 launches) against 3.8-11 (6.0) with those parks off; a
     * pause longer than the longest such mark lets it lapse before the table, and the next short yield clears it.
     */
    private void settleAfterCollection()
    {
        try
        {
            Thread.sleep(SETTLE_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The table's smallest size, out of place then in place in bursts of {@code -n} as its first row runs,
     * {@link #smallestCalls} calls per rank at least, the same on every rank. With {@code -e 16M}
     * the halves before spend their time on large calls and make too few for C2: with 4 processes on the 2 CPUs the
     * call path ({@code allReduce}, {@code validate}, {@code bind}, {@code bindAhead}) reached tier 4 within the
     * table's first second, and its first rows read 58-569 us a call against 14-15 from 8 KiB on. With this, the
     * first row (1 KiB) read 3.2-120 us over five launches (median 9.7) against 11-123 (36) without, interleaved.
     * <p>
     * The calls come in groups ({@link #smallestGroupRounds}): one call of the largest size cycled ({@code shapes}'
     * last) out of place, rounds of the smallest's two bursts, one call of the largest in place; so about every
     * {@value #SMALLEST_GROUP_CALLS} calls the layout changes, as the table's does before its first row ({@code -w}
     * on the largest) and at every row, while the largest's calls stay a hundredth of the phase's. Without them C2
     * compiled the call path from this phase's profile alone, in which a call never changed the layout of the last
     * one, so the table's first change deoptimized {@code RankExecution.bind} ({@code DirectReads.bind}'s layout
     * test, an {@code unstable_if} trap) and every process recompiled it at once while the first row ran.
     * <p>
     * After its calls it goes on, a group at a time, as the second half does, while the JIT of any process compiled in
     * the last {@value BenchRunner#JIT_QUIET_MS} ms (at most {@value BenchRunner#JIT_QUIET_MAX_EXTRA_MS} ms more):
     * this phase's own traps (a shape that always matched the last one, {@code BoundShape.matches}) sent methods back
     * to tier 3, and C2 compiled them again ({@code LocalCommunicator.bindAhead}, 26-39 ms in three of four
     * processes) during the first row.
     * <p>
     * With 4 processes on the 2 CPUs (AllGather 1-8 KiB, {@code -n 100}, 6 launches each, interleaved) the first row
     * read 5.3-51.9 us a call out of place and 9.7-277.6 in place before these two, 4.8-9.2 and 6.7-11.7 after,
     * the later rows 7-10 in both; with the quiet wait alone, 6.7-13.5 and 14.5-50.4.
     *
     * @param shapes the sizes cycled, smallest first.
     */
    private void warmUpSmallest(final Communicator[] ranksToWarm, final List<Shape> shapes, final DataType type,
        final ReduceOp op, final int root)
    {
        final Shape shape = shapes.get(0);
        final int burst = smallestBurst(options.iters());
        final int calls = burst * options.aggIters();
        final CallSlices[] both = {threadRanks.slices(shape, false, calls), threadRanks.slices(shape, true, calls)};
        final Shape last = shapes.get(shapes.size() - 1);
        final CallSlices[] largest = shapes.size() > 1 ? new CallSlices[] {threadRanks.slices(last, false,
            options.aggIters()), threadRanks.slices(last, true, options.aggIters())} : null;
        final int rounds = smallestGroupRounds(options.iters());
        final JitActivity jit = new JitActivity();
        final long startNs = System.nanoTime();
        // this phase's start is the mark: a compilation before it does not count
        jit.compiledWithin(startNs, 0);
        for (long made = 0; made < smallestCalls(options.iters()) ||
            BenchRunner.warmUpGoesOn(sync, thread, jit, startNs, 0); made += 2L * burst * rounds)
        {
            // the largest's calls: out of place before the group, in place after it
            if (largest != null)
            {
                threadRanks.issueCalls(ranksToWarm, largest[0], type, op, root, 0, 1);
            }
            for (int r = 0; r < rounds; r++)
            {
                for (final CallSlices slices : both)
                {
                    threadRanks.issueCalls(ranksToWarm, slices, type, op, root, 0, burst);
                }
            }
            if (largest != null)
            {
                threadRanks.issueCalls(ranksToWarm, largest[1], type, op, root, 0, 1);
            }
            threadRanks.completeColl();
        }
    }

    /**
     * @param iters {@code -n}.
     * @return the iterations of each burst of {@link #warmUpSmallest}.
     */
    static int smallestBurst(final int iters)
    {
        return (int)Math.min(iters, SMALLEST_CALLS / 2);
    }

    /**
     * @param iters {@code -n}.
     * @return the rounds of two bursts in each group of {@link #warmUpSmallest}: about
     *         {@value #SMALLEST_GROUP_CALLS} calls of the smallest size.
     */
    static int smallestGroupRounds(final int iters)
    {
        final int round = 2 * smallestBurst(iters);
        return Math.max(1, (SMALLEST_GROUP_CALLS + round / 2) / round);
    }

    /**
     * @param iters {@code -n}.
     * @return the iterations each rank runs in {@link #warmUpSmallest} at least: whole groups, at least
     *         {@value #SMALLEST_CALLS}.
     */
    static long smallestCalls(final int iters)
    {
        final long group = 2L * smallestBurst(iters) * smallestGroupRounds(iters);
        return (SMALLEST_CALLS + group - 1) / group * group;
    }

    /**
     * @param burst    this round's calls per size.
     * @param roundNs  how long this round took on this thread.
     * @param budgetNs the budget of the warm-up's half this round belongs to.
     * @return the next round's: twice as many, up to {@code -n}, while a round took less than a
     *         {@value #ROUNDS_PER_BUDGET}th of the budget; thread 0 of rank 0 decides for every rank, so that all
     *         make the same calls.
     */
    private int nextBurst(final int burst, final long roundNs, final long budgetNs)
    {
        final int grown = roundNs < budgetNs / ROUNDS_PER_BUDGET ? Math.min(options.iters(), burst * 2) : burst;
        return (int)Math.round(sync.allReduce(thread, grown, ThreadSync.RANK0));
    }

    /**
     * Runs rounds of calls on the shapes in turn for the budget; with {@code untilJitQuiet}, then on until no
     * process's JIT has compiled for {@value BenchRunner#JIT_QUIET_MS} ms, at most
     * {@value BenchRunner#JIT_QUIET_MAX_EXTRA_MS} ms more.
     *
     * @param ranksToWarm   this thread's ranks of the table, or of the warm-up's own.
     * @param shapes        the sizes, in turn.
     * @param type          the element type.
     * @param op            the reduction.
     * @param root          the root rank.
     * @param budgetNs      how long, in nanoseconds.
     * @param untilJitQuiet true to go on past the budget while a JIT compiles.
     */
    void warmUpFor(final Communicator[] ranksToWarm, final List<Shape> shapes, final DataType type,
        final ReduceOp op, final int root, final long budgetNs, final boolean untilJitQuiet)
    {
        final JitActivity jit = untilJitQuiet ? new JitActivity() : null;
        final CallSlices[] outOfPlace = new CallSlices[shapes.size()];
        final CallSlices[] inPlace = new CallSlices[shapes.size()];
        final int calls = options.iters() * options.aggIters();
        for (int i = 0; i < shapes.size(); i++)
        {
            outOfPlace[i] = threadRanks.slices(shapes.get(i), false, calls);
            inPlace[i] = threadRanks.slices(shapes.get(i), true, calls);
        }
        // checked calls only where they run on the table's communicators
        final boolean check = untilJitQuiet && options.check() > 0 && ranksToWarm == threadRanks.comms();
        final long startNs = System.nanoTime();
        boolean more = true;
        // as the timed loop: several calls queued before waiting, each on the next slice of the buffer (so a call
        // finds others queued before it, the same shape bound just before, and buffers that moved: branches the
        // compiled code must have seen, or the table's first rows time its recompilation)
        int burst = Math.min(options.iters(), BURST);
        int iter = 0;
        for (int round = 0; more; round = (round + 1) % shapes.size())
        {
            final long roundStartNs = System.nanoTime();
            // out of place on this round's size, then at once in place on the next size: the table's first
            // calls (-w on the largest size, then the smallest) change size from one call to the next, and a
            // warm-up that never did made the JVM recompile the call path in the first row
            final CallSlices[] both = {outOfPlace[round], inPlace[(round + 1) % shapes.size()]};
            for (final CallSlices slices : both)
            {
                threadRanks.issueCalls(ranksToWarm, slices, type, op, root, iter, burst);
            }
            threadRanks.completeColl();
            // the row's own exchanges too: its time averaged as -a asks, its checked calls, their wrong elements
            // summed (the checker's code compiling during the first rows took the CPU from their timed loops)
            sync.allReduce(thread, 0, options.average());
            for (int k = 0; k < ROWS_FORMATTED; k++)
            {
                formatRow(both[k & 1].shape(), type, round * ROWS_FORMATTED + k);
            }
            for (int k = 0; check && k < both.length; k++)
            {
                final long wrong = checks.checkedCall(both[k], type, op, root, ResultChecks.WARMUP_SEED, false);
                sync.allReduce(thread, wrong, ThreadSync.SUM);
            }
            final int next = nextBurst(burst, System.nanoTime() - roundStartNs, budgetNs);
            iter = (iter + burst) % (options.iters() - next + 1);
            burst = next;
            more = BenchRunner.warmUpGoesOn(sync, thread, jit, startNs, budgetNs);
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
        row.append(TableFormatter.rowPlan(threadRanks.lastPlan(), threadRanks.lastPlan()));
    }
}
