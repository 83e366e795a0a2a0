package io.jccl.bench;

import io.jccl.Communicator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;

/**
 * What a {@link BenchRunner} run says before its table: nccl-tests' header (the parameters, a line per rank with the
 * process and device that runs it, then the schedule, the load, the online tuning and any reduction of {@code -e} to
 * what memory holds), a warning on the error stream when the schedule does not compute what it declares, and log
 * warnings for the nccl-tests flags jccl takes but does not act on.
 * <p>
 * Threading: used by the thread that runs {@link BenchRunner#run()}, before the bench threads start.
 */
final class BenchPreamble
{
    /** BenchRunner's: log lines keep the name docs/troubleshooting.md shows. */
    private static final Logger LOG = LoggerFactory.getLogger(BenchRunner.class);

    private final BenchTool tool;
    private final BenchOptions options;
    private final BenchSchedule schedule;
    private final PrintStream out;
    private final PrintStream err;
    private final int nRanks;
    /** This process's ranks: all of them, or one in a multi-process run. */
    private final int localRanks;
    /** True in the process that runs rank 0, which alone reports what every process would report alike. */
    private final boolean lead;

    /**
     * @param tool     the collective.
     * @param options  validated flags.
     * @param schedule the loaded {@code --schedule} file, or null.
     * @param out      where the header goes.
     * @param err      where a schedule that does not compute what it declares is named.
     */
    BenchPreamble(final BenchTool tool, final BenchOptions options, final BenchSchedule schedule,
        final PrintStream out, final PrintStream err)
    {
        this.tool = tool;
        this.options = options;
        this.schedule = schedule;
        this.out = out;
        this.err = err;
        this.nRanks = options.nRanks();
        this.localRanks = options.localRanks();
        this.lead = options.processRank() == 0;
    }

    /**
     * nccl-tests' header: the parameters, then a line per rank with the process that runs it, then the schedule and
     * any reduction of {@code -e} to what memory holds (the smallest of every process's, so that all run the same
     * sizes). The processes of a multi-process run exchange their pids and limits first.
     *
     * @param ranks        this process's ranks, open.
     * @param sync         where the processes exchange what they know of their ranks.
     * @param maxBytes     {@code -e} in bytes.
     * @param onlineTuning true when the online tuner decides the plans.
     * @return the largest size the table runs: {@code maxBytes}, or less when memory holds less.
     */
    long print(final BenchRanks ranks, final BenchSync sync, final long maxBytes, final boolean onlineTuning)
    {
        final double[] known = new double[3 * nRanks];
        final long pid = ProcessHandle.current().pid();
        final long ownLimit = ranks.memory().bytesPerBufferLimit(localRanks, nRanks);
        final boolean cudaRanks = ranks.onCuda();
        for (final Communicator comm : ranks.comms())
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
        final String hostname = BenchRunner.hostname();
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
        long runBytes = maxBytes;
        if (runBytes > limit)
        {
            runBytes = limit;
            out.println("#");
            out.println(TableFormatter.reducingMaxBytesLine(runBytes));
        }
        out.println("#");
        out.flush();
        return runBytes;
    }

    /**
     * Logs, in the process that runs rank 0, the flags jccl takes as nccl-tests does but does not act on, and an
     * {@code --algo} that jccl has not for the collective.
     *
     * @param combination the pins of this pass of a {@code --sweep}, or {@link SweepCombination#DEFAULT}.
     */
    void warnAboutCompatibilityFlags(final SweepCombination combination)
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
        if (tool.collective() == null)
        {
            // point-to-point calls, Gather and Scatter have no algorithm to choose
            return;
        }
        final java.util.Set<io.jccl.Algorithm> allowed = JcclCommunicatorFactory.context(options, combination)
            .algorithms(tool.collective());
        if (!allowed.contains(io.jccl.Algorithm.RING) && allowed.stream().allMatch(algorithm ->
            io.jccl.schedules.Generators.effective(algorithm, tool.collective()) == io.jccl.Algorithm.RING))
        {
            LOG.warn("--algo/JCCL_ALGO allows only {}, which jccl has not for {} (tree: AllReduce, Broadcast and " +
                "Reduce; direct: AllReduce, AllGather and ReduceScatter): it runs ring (the plan column says so)",
                allowed.stream().map(io.jccl.Algorithm::lowerName).collect(java.util.stream.Collectors.joining(",")),
                tool.toolName());
        }
    }
}
