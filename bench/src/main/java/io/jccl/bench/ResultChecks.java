package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.bench.BenchRunner.Shape;
import io.jccl.bench.ThreadRanks.CallSlices;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bench thread's checks of results, as nccl-tests' {@code -c}: fills the buffers of the thread's ranks (and their
 * device twins) from the {@link DataPattern} of a seed, runs one call, brings the results back and verifies them with
 * a {@link ResultChecker}; counts the checks that found wrong elements.
 * <p>
 * Threading: used by its bench thread only.
 */
final class ResultChecks
{
    /** BenchRunner's: log lines keep the name docs/troubleshooting.md shows. */
    private static final Logger LOG = LoggerFactory.getLogger(BenchRunner.class);
    /**
     * The seed of the pattern the table's timed calls run on (the checked calls after them take one per row), and the
     * JIT warm-up's checked calls.
     */
    static final long WARMUP_SEED = 99;

    private final BenchTool tool;
    private final int nRanks;
    private final int thread;
    private final int nGpus;
    private final ThreadRanks threadRanks;
    /** The ranks in the whole run: those of the pattern, the checks and the in-place offsets. */
    private final int[] ranks;
    private final HostBuffer[] sendAllocs;
    private final HostBuffer[] recvAllocs;
    /** Device twins of the allocations when the ranks run on CUDA ({@code --device}), else null. */
    private final DeviceMirror mirror;
    /** The checks of this thread that found wrong elements. */
    private long errors;

    /**
     * @param setup       the run's shared setup.
     * @param threadRanks this bench thread's ranks.
     */
    ResultChecks(final BenchSetup setup, final ThreadRanks threadRanks)
    {
        this.tool = setup.tool();
        this.nRanks = setup.options().nRanks();
        this.thread = threadRanks.thread();
        this.nGpus = setup.options().nGpus();
        this.threadRanks = threadRanks;
        this.ranks = threadRanks.ranks();
        this.sendAllocs = threadRanks.sendAllocs();
        this.recvAllocs = threadRanks.recvAllocs();
        this.mirror = threadRanks.mirror();
    }

    /** @return the checks of this thread that found wrong elements. */
    long errors()
    {
        return errors;
    }

    /**
     * Fills the buffers of this thread's ranks from the pattern of {@code seed}, as a checked call would.
     *
     * @param shape   the size.
     * @param type    the element type.
     * @param op      the reduction.
     * @param root    the root rank.
     * @param inPlace true for the in-place call.
     * @param seed    the pattern's seed.
     */
    void prepare(final Shape shape, final DataType type, final ReduceOp op, final int root, final boolean inPlace,
        final long seed)
    {
        checker(shape, type, op, root, inPlace, seed).prepareAll();
    }

    /**
     * One checked call of iteration 0 on this thread's ranks: fills the buffers from the pattern of {@code seed},
     * runs the call, verifies; with {@code report}, wrong elements are logged and counted in the errors (the JIT
     * warm-up's checked calls only train the JIT: the table's own checks report).
     *
     * @param slices the buffers of the call.
     * @param type   the element type.
     * @param op     the reduction.
     * @param root   the root rank.
     * @param seed   the pattern's seed.
     * @param report true to log and count wrong elements.
     * @return the wrong elements on this thread.
     */
    long checkedCall(final CallSlices slices, final DataType type, final ReduceOp op, final int root,
        final long seed, final boolean report)
    {
        final Shape shape = slices.shape();
        final Checked checked = checker(shape, type, op, root, slices.inPlace(), seed);
        checked.prepareAll();
        threadRanks.startColl(slices, type, op, root, 0);
        threadRanks.completeColl();
        checked.download();
        final long localWrong = checked.checker.verify(ranks, sendAllocs, recvAllocs);
        if (localWrong != 0 && report)
        {
            errors++;
            LOG.warn("{} {} {} {} bytes {}: {} wrong elements on thread {}; first: {}", tool.toolName(),
                type.ncclTestsName(), tool.hasOp() ? op.ncclTestsName() : BenchTool.NO_OP_NAME,
                shape.totalBytes(), slices.inPlace() ? "in-place" : "out-of-place", localWrong, thread,
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
                checker.prepare(ranks[i], sendAllocs[i], recvAllocs[i]);
                if (mirror != null)
                {
                    mirror.upload(thread * nGpus + i, sendAllocs[i], recvAllocs[i], checkedBytes());
                }
            }
        }

        /** Brings the device twins' results back to the host buffers the checker reads. */
        void download()
        {
            for (int i = 0; mirror != null && i < nGpus; i++)
            {
                mirror.download(thread * nGpus + i, sendAllocs[i], recvAllocs[i], checkedBytes());
            }
        }

        /** @return the bytes a checked call (iteration 0) and its guard bytes span in each allocation. */
        private long checkedBytes()
        {
            return checker.windowBytes();
        }
    }
}
