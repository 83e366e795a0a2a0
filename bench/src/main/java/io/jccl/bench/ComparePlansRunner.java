package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A tool run with {@code --compare-plans}: one set of ranks per plan, all created up front, then per
 * size {@code --rounds} rounds in which each plan in turn runs its measurement ({@code -n} timed calls out of place,
 * as {@link BenchRunner} times them), A B C, B C A, C A B, ..., so that a noisy moment of the machine, and the
 * place in the round, fall on every plan alike; then one {@link CompareTable} row of medians. {@code -w} warm-up calls run per plan and size before the
 * rounds, {@code --jit-warmup-ms} before the first size; with {@code -c} each plan's result is checked once per
 * size after its rounds. Every {@code -d} type runs, with the first {@code -o} operator and root. One thread drives
 * this process's ranks (every rank, or its one rank in a multi-process run), each call a group of their calls; in a
 * multi-process run every process runs the same rounds, and each measurement is combined over the processes through
 * the factory's {@link BenchSync} as {@code -a} says, as {@link BenchRunner} combines its rows.
 */
public final class ComparePlansRunner
{
    private static final Logger LOG = LoggerFactory.getLogger(ComparePlansRunner.class);
    private static final long CHECK_SEED = 7;

    private final BenchTool tool;
    private final BenchOptions options;
    private final CommunicatorFactory factory;
    private final PrintStream out;
    private final List<SweepCombination> plans;
    private final int nRanks;
    /** This process's ranks of each plan: every rank, or one in a multi-process run. */
    private final int localRanks;
    private final List<Work> pending = new ArrayList<>();
    private Communicator[][] comms;
    /** Where the processes agree on each measurement: plan A's ranks. */
    private BenchSync sync;
    private HostBuffer[] sendAllocs;
    private HostBuffer[] recvAllocs;
    private Stream[] streams;
    private long maxBytes;
    /** Where the buffers live: jccl's shared memory unless {@code --plain-memory}. */
    private BenchMemory memory;
    /** The plan text of the first rank's latest completed call. */
    private String lastPlan = RowResult.NO_PLAN;

    /**
     * @param tool    the collective.
     * @param options validated flags with {@code --compare-plans}, every rank in this process.
     * @param factory where each plan's ranks come from.
     * @param out     where the table goes (stdout for the tools).
     */
    public ComparePlansRunner(final BenchTool tool, final BenchOptions options, final CommunicatorFactory factory,
        final PrintStream out)
    {
        this.tool = tool;
        this.options = options;
        this.factory = factory;
        this.out = out;
        this.plans = options.comparePlans();
        this.nRanks = options.nRanks();
        this.localRanks = options.localRanks();
    }

    /**
     * Creates every plan's ranks, measures every size, prints the table and closes the ranks.
     *
     * @return {@link BenchRunner#EXIT_OK}, or {@link BenchRunner#EXIT_FAILURE} when a result was wrong.
     */
    public int run()
    {
        comms = new Communicator[plans.size()][];
        try
        {
            for (int p = 0; p < plans.size(); p++)
            {
                comms[p] = factory.create(options, plans.get(p), nRanks);
            }
            sync = factory.sync(1, comms[0]);
            allocate();
            final CompareTable table = new CompareTable(plans.stream().map(SweepCombination::compactLabel).toList());
            out.println(TableFormatter.parametersLine(options, maxBytes));
            if (options.load() != null)
            {
                out.println(ComputeLoad.headerLine(options.load()));
            }
            table.headerLines(options.rounds(), options.iters()).forEach(out::println);
            out.flush();
            return ComputeLoad.during(options.load(), () -> measureAll(table));
        }
        finally
        {
            closeAll();
        }
    }

    private int measureAll(final CompareTable table)
    {
        final List<Long> sizes = options.minBytes() <= maxBytes ?
            Sizes.sequence(options.minBytes(), maxBytes, options.stepBytes(), options.stepFactor()) : List.of();
        final int root = options.roots(tool).get(0);
        final ReduceOp op = tool.hasOp() ? BenchOptions.op(options.opNames().get(0), nRanks) : ReduceOp.SUM;
        jitWarmUp(options.types().get(0), op, root);
        long errors = 0;
        for (final DataType type : options.types())
        {
            for (final long size : sizes)
            {
                final BenchRunner.Shape shape = BenchRunner.Shape.of(tool, size, type, nRanks);
                final double[][] timesUs = new double[plans.size()][options.rounds()];
                final double[][] busBws = new double[plans.size()][options.rounds()];
                final String[] planTexts = new String[plans.size()];
                for (int p = 0; p < plans.size(); p++)
                {
                    for (int iter = 0; iter < options.warmupIters(); iter++)
                    {
                        startAll(comms[p], shape, type, op, root, iter);
                    }
                    completeAll();
                }
                for (int round = 0; round < options.rounds(); round++)
                {
                    // each round starts with the next plan (A B C, B C A, C A B, ...): running first, after the
                    // previous round's last plan, is a position of its own at latency-bound sizes
                    for (int k = 0; k < plans.size(); k++)
                    {
                        final int p = (round + k) % plans.size();
                        final double seconds = sync.allReduce(0, time(comms[p], shape, type, op, root),
                            options.average());
                        final double algBw = tool.algorithmBandwidth(shape.counts().paramCount(),
                            shape.elementSize(), seconds, nRanks);
                        timesUs[p][round] = seconds * 1.0E6;
                        planTexts[p] = lastPlan;
                        busBws[p][round] = algBw * tool.busBandwidthFactor(nRanks);
                    }
                }
                long wrong = 0;
                for (int p = 0; p < plans.size() && options.check() > 0; p++)
                {
                    final long planWrong = Math.round(sync.allReduce(0, check(comms[p], shape, type, op, root),
                        ThreadSync.SUM));
                    if (planWrong != 0)
                    {
                        LOG.warn("{} {} {} bytes, plan {}: {} wrong elements", tool.toolName(), type.ncclTestsName(),
                            shape.totalBytes(), plans.get(p).compactLabel(), planWrong);
                    }
                    wrong += planWrong;
                }
                errors += wrong;
                out.println(table.row(shape.totalBytes(), shape.counts().paramCount(), type.ncclTestsName(), timesUs,
                    busBws, planTexts, wrong, options.check() > 0));
                out.flush();
            }
        }
        out.println(TableFormatter.outOfBoundsLine(errors));
        out.println();
        out.flush();
        return errors == 0 ? BenchRunner.EXIT_OK : BenchRunner.EXIT_FAILURE;
    }

    /**
     * {@code --jit-warmup-ms}: untimed calls of every plan in turn, on the largest size then the smallest, and on
     * the smallest until no process's JIT is compiling ({@link BenchRunner#warmUpGoesOn}).
     */
    private void jitWarmUp(final DataType type, final ReduceOp op, final int root)
    {
        final long budgetNs = options.jitWarmupMs() * 1_000_000L;
        if (budgetNs <= 0 || options.minBytes() > maxBytes)
        {
            return;
        }
        final JitActivity jit = new JitActivity();
        final long[] sizes = {maxBytes, options.minBytes()};
        for (int s = 0; s < sizes.length; s++)
        {
            final BenchRunner.Shape shape = BenchRunner.Shape.of(tool, sizes[s], type, nRanks);
            final boolean untilJitQuiet = s == sizes.length - 1;
            final long startNs = System.nanoTime();
            boolean more = true;
            while (more)
            {
                for (final Communicator[] planComms : comms)
                {
                    startAll(planComms, shape, type, op, root, 0);
                    completeAll();
                }
                // on the smallest size then on while any process's JIT compiles, as BenchRunner's warm-up: with a
                // CPU per process, a compilation beside a rank made half the launches time 50-500 us calls that took
                // 4-6
                more = BenchRunner.warmUpGoesOn(sync, 0, untilJitQuiet ? jit : null, startNs, budgetNs / 2);
            }
        }
    }

    /** @return seconds per call of {@code -n} calls made back to back, as {@link BenchRunner} times them. */
    private double time(final Communicator[] ranks, final BenchRunner.Shape shape, final DataType type,
        final ReduceOp op, final int root)
    {
        // every process starts its clock together, as BenchRunner's rows do
        sync.barrier();
        final long startNs = System.nanoTime();
        for (int iter = 0; iter < options.iters(); iter++)
        {
            startAll(ranks, shape, type, op, root, iter);
        }
        completeAll();
        return (System.nanoTime() - startNs) / 1e9 / options.iters();
    }

    private long check(final Communicator[] ranks, final BenchRunner.Shape shape, final DataType type,
        final ReduceOp op, final int root)
    {
        final DataPattern pattern = new DataPattern(type, tool.hasOp() ? op.kind() : null, nRanks, CHECK_SEED);
        final ExpectedValues expected = new ExpectedValues(tool, pattern, shape.counts().paramCount(), root,
            op.kind() == ReduceOp.Kind.PREMULSUM ? op.scalar() : 0.0);
        final ResultChecker checker = new ResultChecker(tool, pattern, expected, shape.counts(), root, false);
        final int[] rankIds = new int[localRanks];
        for (int i = 0; i < localRanks; i++)
        {
            rankIds[i] = ranks[i].rank();
            checker.prepare(rankIds[i], sendAllocs[i], recvAllocs[i]);
        }
        startAll(ranks, shape, type, op, root, 0);
        completeAll();
        return checker.verify(rankIds, sendAllocs, recvAllocs);
    }

    /**
     * Starts one call on every rank, as a group. As nccl-tests, iteration i works at offset
     * {@code total x (i % (maxBytes / total))} of the buffers.
     */
    private void startAll(final Communicator[] ranks, final BenchRunner.Shape shape, final DataType type,
        final ReduceOp op, final int root, final int iter)
    {
        final long total = shape.totalBytes();
        final long offset = total == 0 ? 0 : total * (iter % (maxBytes / total));
        factory.groupStart();
        for (int i = 0; i < localRanks; i++)
        {
            final Buffer send = sendAllocs[i].slice(offset, shape.sendBytes());
            final Buffer recv = recvAllocs[i].slice(offset, shape.recvBytes());
            pending.add(tool.start(ranks[i], send, recv, shape.counts().paramCount(), type, op, root, streams[i]));
        }
        factory.groupEnd();
    }

    /** Waits for every started call; {@link #lastPlan} becomes the plan of the first rank's last call. */
    private void completeAll()
    {
        if (!pending.isEmpty())
        {
            final Work last = pending.get(pending.size() - localRanks);
            last.join();
            lastPlan = TableFormatter.planText(last.plan(), last.programName());
        }
        for (final Work work : pending)
        {
            work.join();
        }
        pending.clear();
    }

    private void allocate()
    {
        memory = BenchMemory.of(options, factory);
        maxBytes = Math.min(options.maxBytes(), memory.bytesPerBufferLimit(localRanks, nRanks));
        sendAllocs = new HostBuffer[localRanks];
        recvAllocs = new HostBuffer[localRanks];
        streams = new Stream[localRanks];
        for (int i = 0; i < localRanks; i++)
        {
            sendAllocs[i] = memory.allocate(maxBytes + ResultChecker.GUARD_BYTES);
            recvAllocs[i] = memory.allocate(maxBytes + ResultChecker.GUARD_BYTES);
            streams[i] = options.streamNull() ? Stream.DEFAULT : Stream.create();
        }
    }

    private void closeAll()
    {
        for (final Communicator[] planComms : comms)
        {
            if (planComms == null)
            {
                continue;
            }
            for (final Communicator comm : planComms)
            {
                try
                {
                    comm.close();
                }
                catch (final RuntimeException ex)
                {
                    LOG.warn("closing rank {} failed: {}", comm.rank(), ex.toString());
                }
            }
        }
        if (memory != null)
        {
            memory.freeAll();
        }
    }
}
