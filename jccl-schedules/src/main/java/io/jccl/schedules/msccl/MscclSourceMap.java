package io.jccl.schedules.msccl;

import io.jccl.schedules.BufferKind;
import io.jccl.schedules.ChunkLayout;
import io.jccl.schedules.Program;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;

import java.util.List;

/**
 * Where each part of a {@link Program} came from in its MSCCL XML file: lines, element paths, the chunk counts each
 * {@code <gpu>} declared, the {@code hasdep} flags, and which worker (if any) holds the applied TACCL
 * {@code <copy>} precopies. A schedule made from a Program has a synthetic map: no lines, the Program's own chunk
 * counts, and {@code hasdep} set exactly on the steps something depends on.
 */
public final class MscclSourceMap
{
    private final int algoLine;
    private final int[] gpuLines;
    private final int[][] declaredChunks;
    private final int[][] tbLines;
    private final int[][][] stepLines;
    private final boolean[][][] hasDep;
    private final int[] precopyWorker;
    private final int[][] copyIndex;

    /**
     * @param algoLine       line of {@code <algo>}.
     * @param gpuLines       per rank, the line of its {@code <gpu>}.
     * @param declaredChunks per rank, the declared chunk counts indexed by {@link BufferKind} ordinal.
     * @param tbLines        per rank and worker, the line of its {@code <tb>} (or first {@code <copy>}).
     * @param stepLines      per rank, worker and step, the line of its {@code <step>} (or {@code <copy>}).
     * @param hasDep         per rank, worker and step, the {@code hasdep} flag.
     * @param precopyWorker  per rank, the worker holding the applied {@code <copy>} elements, or -1.
     * @param copyIndex      per rank, for each step of the precopy worker, the 1-based position of its
     *                       {@code <copy>} element among its {@code <gpu>}'s copies (null where there is none).
     */
    MscclSourceMap(final int algoLine, final int[] gpuLines, final int[][] declaredChunks, final int[][] tbLines,
        final int[][][] stepLines, final boolean[][][] hasDep, final int[] precopyWorker, final int[][] copyIndex)
    {
        this.algoLine = algoLine;
        this.gpuLines = gpuLines;
        this.declaredChunks = declaredChunks;
        this.tbLines = tbLines;
        this.stepLines = stepLines;
        this.hasDep = hasDep;
        this.precopyWorker = precopyWorker;
        this.copyIndex = copyIndex;
    }

    /**
     * A map for a Program that did not come from a file.
     *
     * @param program the program.
     * @return no lines, the layouts' chunk counts as declared counts, {@code hasdep} on every step depended on.
     */
    public static MscclSourceMap synthetic(final Program program)
    {
        final int n = program.ranks();
        final int[][] declared = new int[n][3];
        final int[][] tbLines = new int[n][];
        final int[][][] stepLines = new int[n][][];
        final boolean[][][] hasDep = new boolean[n][][];
        final int[] precopy = new int[n];
        for (int r = 0; r < n; r++)
        {
            for (final BufferKind kind : BufferKind.values())
            {
                final ChunkLayout layout = program.layout(kind);
                declared[r][kind.ordinal()] = layout == null ? 0 : layout.chunks();
            }
            final List<Worker> workers = program.workers(r);
            tbLines[r] = new int[workers.size()];
            stepLines[r] = new int[workers.size()][];
            hasDep[r] = dependedOn(workers);
            for (int w = 0; w < workers.size(); w++)
            {
                stepLines[r][w] = new int[workers.get(w).stepCount()];
            }
            precopy[r] = -1;
        }
        return new MscclSourceMap(0, new int[n], declared, tbLines, stepLines, hasDep, precopy, new int[n][]);
    }

    /**
     * @param workers the workers of one rank.
     * @return per worker and step, true when a step of any worker of the rank depends on it.
     */
    static boolean[][] dependedOn(final List<Worker> workers)
    {
        final boolean[][] flags = new boolean[workers.size()][];
        for (int w = 0; w < workers.size(); w++)
        {
            flags[w] = new boolean[workers.get(w).stepCount()];
        }
        for (final Worker worker : workers)
        {
            for (int s = 0; s < worker.stepCount(); s++)
            {
                final int dw = worker.field(s, StepDescriptor.DEP_WORKER);
                final int ds = worker.field(s, StepDescriptor.DEP_STEP);
                if (dw >= 0 && dw < flags.length && ds >= 0 && ds < flags[dw].length)
                {
                    flags[dw][ds] = true;
                }
            }
        }
        return flags;
    }

    /** @return the line of {@code <algo>}, 0 when unknown. */
    public int algoLine()
    {
        return algoLine;
    }

    /**
     * @param rank a rank of the schedule.
     * @return the line of a rank's {@code <gpu>}, 0 when unknown.
     */
    public int gpuLine(final int rank)
    {
        return gpuLines[rank];
    }

    /**
     * @param rank   a rank of the schedule.
     * @param worker a worker of that rank.
     * @return the line of a worker's {@code <tb>}, 0 when unknown.
     */
    public int workerLine(final int rank, final int worker)
    {
        return tbLines[rank][worker];
    }

    /**
     * @param rank   a rank of the schedule.
     * @param worker a worker of that rank.
     * @param step   a step of that worker.
     * @return the line of a step's {@code <step>}, 0 when unknown.
     */
    public int stepLine(final int rank, final int worker, final int step)
    {
        return stepLines[rank][worker][step];
    }

    /**
     * @param rank rank.
     * @param kind buffer.
     * @return the chunk count the rank's {@code <gpu>} declared for that buffer ({@code i_chunks}, ...).
     */
    public int declaredChunks(final int rank, final BufferKind kind)
    {
        return declaredChunks[rank][kind.ordinal()];
    }

    /**
     * @param rank   a rank of the schedule.
     * @param worker a worker of that rank.
     * @param step   a step of that worker.
     * @return the step's {@code hasdep} flag: whether MSCCL's C executor publishes its completion.
     */
    public boolean hasDep(final int rank, final int worker, final int step)
    {
        return hasDep[rank][worker][step];
    }

    /**
     * @param rank a rank of the schedule.
     * @return the worker that holds the rank's applied {@code <copy>} precopies, or -1.
     */
    public int precopyWorker(final int rank)
    {
        return precopyWorker[rank];
    }

    /**
     * @param rank a rank of the schedule.
     * @return the element path of the rank's {@code <gpu>}.
     */
    public String path(final int rank)
    {
        return "algo/gpu[id=" + rank + "]";
    }

    /**
     * @param rank   a rank of the schedule.
     * @param worker a worker of that rank.
     * @return the element path of a worker: its {@code <tb>}, or the rank's {@code <copy>} elements.
     */
    public String path(final int rank, final int worker)
    {
        return path(rank) + (worker == precopyWorker[rank] ? "/copy" : "/tb[id=" + worker + "]");
    }

    /**
     * @param rank   a rank of the schedule.
     * @param worker a worker of that rank.
     * @param step   a step of that worker.
     * @return the element path of a step: its {@code <step>}, or the {@code <copy>} it came from.
     */
    public String path(final int rank, final int worker, final int step)
    {
        if (worker == precopyWorker[rank])
        {
            return path(rank) + "/copy[" + copyIndex[rank][step] + "]";
        }
        return path(rank, worker) + "/step[s=" + step + "]";
    }

    /** @return "rank r tb t step s (line l)" for messages that point at another step. */
    String describe(final int rank, final int worker, final int step)
    {
        final int line = stepLine(rank, worker, step);
        final String what = worker == precopyWorker[rank] ? "rank " + rank + " copy " + copyIndex[rank][step] :
            "rank " + rank + " tb " + worker + " step " + step;
        return line > 0 ? what + " (line " + line + ")" : what;
    }

    /** @return "rank r tb t" for messages that point at another worker. */
    String describe(final int rank, final int worker)
    {
        return worker == precopyWorker[rank] ? "rank " + rank + " copies" : "rank " + rank + " tb " + worker;
    }
}
