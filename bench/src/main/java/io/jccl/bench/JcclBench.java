package io.jccl.bench;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Settings;
import io.jccl.UniqueId;
import io.jccl.core.LaunchInfo;
import io.jccl.launch.ChildCommand;
import io.jccl.launch.CpuBinding;
import io.jccl.launch.LineOutputStream;
import io.jccl.launch.ProcessLauncher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.Charset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The entry point of the tools: {@code jccl-bench <tool> [flags]}, where the tool is one of nccl-tests' binaries
 * ({@code all_reduce_perf}, {@code all_gather_perf}, {@code reduce_scatter_perf}, {@code broadcast_perf},
 * {@code reduce_perf}, {@code alltoall_perf}, {@code sendrecv_perf}, {@code hypercube_perf}, {@code gather_perf},
 * {@code scatter_perf}; the {@code _perf} suffix may be left out) and the flags are
 * nccl-tests' ({@link BenchOptions}); and two commands for MSCCL XML schedules: {@code jccl-bench verify FILE...}
 * ({@link VerifyCommand}) and {@code jccl-bench export --coll C -g N ...} ({@link ExportCommand}); and
 * {@code jccl-bench plot FILE.csv... -o out.png} ({@link PlotCommand}), which draws result files; and
 * {@code jccl-bench gpu-check} ({@link GpuCheckCommand}), the GPU machine's one-call check; and
 * {@code jccl-bench floor} ({@link FloorCommand}), the least a small AllReduce costs here.
 * <p>
 * With {@code --sweep}, a tool runs once per combination of knob values and once without them, then sums up
 * ({@link SweepRunner}). With {@code --csv} and {@code -J/--output_file} it also writes its rows to result files
 * ({@link ResultFiles}); progress goes to stderr ({@link Progress}).
 * <p>
 * <b>Several processes.</b> {@code jccl-bench --nprocs N <tool> [flags]} (the flag before or after the tool name)
 * starts N JVMs of one rank each (jccl-launch's {@link ProcessLauncher}, {@link BenchJavaCommand}). A tool started by
 * a launcher ({@code --nprocs}, {@code bin/jccl-run}, {@code mpirun}, {@code srun}, {@code torchrun}:
 * {@link LaunchInfo#detect}) as one of several
 * processes runs one rank ({@code -t 1 -g 1}) joined to the others with {@code Jccl.connect}
 * ({@link ProcessCommunicatorFactory}); the ranks agree on times, wrong counts and barriers with AllReduces on jccl
 * ({@link CommunicatorSync}). Rank 0 prints the table and writes the result files; the other ranks print nothing on
 * stdout, and what they print on stderr (as rank 0 does) is prefixed {@code [rank k]}.
 * <p>
 * Exit status: 0 when every checked result was right, 1 when one was wrong or the run failed (in any process), 2 for
 * bad arguments (including a knob value jccl does not take, a {@code --schedule} file that cannot be loaded, is
 * invalid, or is for another collective or rank count, and a launcher environment jccl cannot meet the other ranks
 * with); {@code verify} and {@code export} say their own; {@code --nprocs} the worst of its processes.
 */
public final class JcclBench
{
    /** Exit status for bad arguments. */
    public static final int EXIT_USAGE = 2;
    /**
     * How long the other processes of {@code --nprocs} may run on after one failed, when neither
     * {@code --timeout-ms} nor {@code -T} is given, in ms: long enough for them to report the failure themselves.
     */
    static final long DEFAULT_GRACE_MS = 60_000;

    /** The top-level usage, on {@code -h} and when no tool is given. */
    static final String USAGE = String.join(System.lineSeparator(),
        "usage: jccl-bench <tool> [nccl-tests flags] [jccl knobs] [--sweep key=v1,v2,...] [--schedule FILE]",
        "         run a benchmark as nccl-tests does; tool one of " + BenchTool.names() + "; <tool> -h lists the " +
            "flags; jccl's knobs (--algo, --proto, --transport, --nchannels, --chunk, ...) set JCCL_* variables; " +
            "--sweep runs a table per combination of knob values and sums them up; --schedule runs an MSCCL XML " +
            "file wherever it applies",
        "       jccl-bench <tool> ... --csv FILE [-J FILE.json]",
        "         also write every row (both placements, every sweep combination) with a header naming the machine, " +
            "JVM, jccl version and command line",
        "       jccl-bench plot FILE.csv... -o out.png|out.svg [--by plan|combination|file]",
        "         draw busbw against size from --csv files, a line per file, plan or sweep combination",
        "       jccl-bench plot --trace trace.csv -o trials.png",
        "         draw the online tuner's trials (--tuner auto --trace FILE): time per call, a line per task, its " +
            "converged plan marked",
        "       jccl-bench --nprocs N <tool> [flags]",
        "         run the tool as N processes of one rank each on this host (-t 1 -g 1), like torchrun " +
            "--nproc-per-node N; the flag goes before or after the tool name; rank 0's table on stdout, every " +
            "rank's errors on stderr prefixed [rank k]",
        "       mpirun -np N -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=29500 -x JCCL_SECRET=<s> jccl-bench <tool> ...",
        "         the same under a launcher: a process is one rank of several when JCCL_RANK/JCCL_WORLD_SIZE, " +
            "RANK/WORLD_SIZE (torchrun), OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK or SLURM_PROCID (srun) says so; " +
            "the ranks meet at JCCL_COMM_ID, MASTER_ADDR/MASTER_PORT or JCCL_MASTER_ADDR/JCCL_PORT, which the " +
            "launcher must export",
        "       jccl-bench verify [--strict] FILE...",
        "         check MSCCL XML schedules: OK or every error (line, element path), and whether each computes the " +
            "collective it declares; --strict adds what MSCCL's C executors would refuse",
        "       jccl-bench export --coll <collective> [--algo ring|tree|direct] -g <ranks> [--channels C] [--root R] " +
            "[--proto simple|ll|ll128]",
        "         write a built-in algorithm as MSCCL XML on stdout",
        "       jccl-bench gpu-check [--emulated] [--quick]",
        "         on a GPU (bench/gpu-check.sh): driver and device, copy and sum kernel bandwidth on 1 GiB, every " +
            "collective x type x op on 1, 2 and 4 ranks sharing the GPU compared with the host backend bit for " +
            "bit; --emulated runs it on the device double",
        "       jccl-bench floor [--procs] [-n CALLS] [--rounds R]",
        "         the least an 8-byte AllReduce between two ranks costs here in Java: one flag exchange and the sum " +
            "per call, no library; two threads, or with --procs two processes bound to CPUs",
        "       jccl-bench settings",
        "         every JCCL_* setting jccl reads, with its -Djccl.* property, values, default and effect");

    private static final Logger LOG = LoggerFactory.getLogger(JcclBench.class);

    private JcclBench()
    {
    }

    /**
     * Runs a tool and exits with its status; as one rank of several processes when a launcher says so, and then
     * with every line of standard error prefixed {@code [rank k]}.
     *
     * @param args the tool name, then its flags.
     */
    public static void main(final String[] args)
    {
        final Map<String, String> env = System.getenv();
        final int rank = NprocsFlags.given(args) ? -1 : LaunchInfo.rankOf(env);
        if (rank >= 0)
        {
            System.setErr(new PrintStream(new LineOutputStream(System.err, "[rank " + rank + "] "), true,
                Charset.defaultCharset()));
        }
        System.exit(run(args, System.out, System.err, env));
    }

    /**
     * Runs a tool on jccl with every rank in this process, whatever launcher variables the environment holds
     * (tests, embedding); {@code --nprocs} still starts processes.
     *
     * @param args the tool name, then its flags.
     * @param out  where the table (and {@code -h} help) goes.
     * @param err  where argument errors go.
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        return run(args, out, err, Map.of());
    }

    /**
     * Runs a tool on jccl as {@link #main} does: as one rank of several processes when the environment's launcher
     * variables say so ({@link LaunchInfo}), else with every rank in this process.
     *
     * @param args the tool name, then its flags.
     * @param out  where the table (and {@code -h} help) goes; rank 0's only.
     * @param err  where argument errors go.
     * @param env  the environment: launcher variables, and {@value BenchJavaCommand#JAVA_OPTS_ENV_NAME} for the
     *             processes of {@code --nprocs}.
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err,
        final Map<String, String> env)
    {
        return run(args, out, err, null, System::nanoTime, env);
    }

    /**
     * Runs a tool on the given ranks.
     *
     * @param args    the tool name, then its flags.
     * @param out     where the table (and {@code -h} help) goes.
     * @param err     where argument errors go.
     * @param factory where ranks come from.
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err,
        final CommunicatorFactory factory)
    {
        return run(args, out, err, factory, System::nanoTime, Map.of());
    }

    /**
     * Runs a tool on the given ranks, with the given clock for the progress lines.
     *
     * @param args      the tool name, then its flags.
     * @param out       where the table (and {@code -h} help) goes.
     * @param err       where argument errors and progress go.
     * @param factory   where ranks come from.
     * @param nanoClock the time in nanoseconds, for the progress lines.
     * @return the exit status.
     */
    static int run(final String[] args, final PrintStream out, final PrintStream err,
        final CommunicatorFactory factory, final LongSupplier nanoClock)
    {
        return run(args, out, err, factory, nanoClock, Map.of());
    }

    /**
     * @param factory   where ranks come from; null for jccl, in this process or as the environment's launcher says.
     * @param nanoClock the time in nanoseconds, for the progress lines.
     * @param env       the environment.
     */
    private static int run(final String[] args, final PrintStream out, final PrintStream err,
        final CommunicatorFactory factory, final LongSupplier nanoClock, final Map<String, String> env)
    {
        if (args.length == 0 || "-h".equals(args[0]) || "--help".equals(args[0]))
        {
            final PrintStream to = args.length == 0 ? err : out;
            to.println(USAGE);
            return args.length == 0 ? EXIT_USAGE : BenchRunner.EXIT_OK;
        }
        if (NprocsFlags.given(args))
        {
            return launch(args, out, err, env);
        }
        final String[] rest = Arrays.copyOfRange(args, 1, args.length);
        if ("verify".equals(args[0]))
        {
            return VerifyCommand.run(rest, out, err);
        }
        if ("export".equals(args[0]))
        {
            return ExportCommand.run(rest, out, err);
        }
        if ("plot".equals(args[0]))
        {
            return PlotCommand.run(rest, out, err);
        }
        if ("gpu-check".equals(args[0]))
        {
            return GpuCheckCommand.run(rest, out, err);
        }
        if ("floor".equals(args[0]))
        {
            return FloorCommand.run(rest, out, err);
        }
        if ("settings".equals(args[0]))
        {
            return SettingsCommand.run(rest, out, err);
        }
        final BenchTool tool;
        try
        {
            tool = BenchTool.fromName(args[0]);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("jccl-bench: " + ex.getMessage() + ", or plot, verify, export, gpu-check, floor, " +
                "settings (jccl-bench -h)");
            return EXIT_USAGE;
        }
        final BenchOptions options = new BenchOptions();
        final CommandLine commandLine = new CommandLine(options).setCommandName(tool.toolName());
        try
        {
            commandLine.parseArgs(rest);
        }
        catch (final CommandLine.ParameterException ex)
        {
            err.println(tool.toolName() + ": " + ex.getMessage());
            commandLine.usage(err);
            return EXIT_USAGE;
        }
        if (options.helpRequested())
        {
            commandLine.usage(out);
            return BenchRunner.EXIT_OK;
        }
        final LaunchInfo launch;
        try
        {
            launch = factory == null ? LaunchInfo.detect(env) : null;
            if (launch != null)
            {
                options.processes(launch.rank(), launch.size());
            }
            options.validate();
            tool.checkRun(options.nRanks(), options.p2p(), options.comparePlans() != null);
        }
        catch (final IllegalArgumentException | ArithmeticException | JcclInvalidArgumentException ex)
        {
            err.println(tool.toolName() + ": " + ex.getMessage());
            return EXIT_USAGE;
        }
        final boolean lead = options.processRank() == 0;
        final CommunicatorFactory ranks = factory != null ? factory :
            launch != null ? new ProcessCommunicatorFactory(launch) : new JcclCommunicatorFactory();
        // the other ranks of a multi-process run print the same table: rank 0's alone reaches stdout
        final PrintStream tableOut = lead ? out : new PrintStream(OutputStream.nullOutputStream(), false,
            Charset.defaultCharset());
        final BenchSchedule schedule;
        try
        {
            schedule = options.schedule() == null ? null : BenchSchedule.load(options.schedule(), tool,
                options.nRanks());
        }
        catch (final IllegalArgumentException ex)
        {
            err.println(tool.toolName() + ": " + ex.getMessage());
            return EXIT_USAGE;
        }
        final ResultFiles files;
        try
        {
            files = lead ? ResultFiles.open(tool, options, RunInfo.current(args)) :
                new ResultFiles(tool, options.nRanks(), options.sweep() != null, List.of());
        }
        catch (final UncheckedIOException ex)
        {
            err.println(tool.toolName() + ": " + ex.getMessage());
            return EXIT_USAGE;
        }
        final RunObserver observer = lead && Progress.wanted(options.progress(), System.console() != null) ?
            RunObserver.both(files, new Progress(tool.toolName(), err, nanoClock, Progress.DEFAULT_INTERVAL_NS)) :
            files;
        int status = BenchRunner.EXIT_FAILURE;
        try
        {
            status = runTool(tool, options, schedule, ranks, observer, tableOut, err);
        }
        finally
        {
            status = close(files, tool.toolName(), err, status);
        }
        return status;
    }

    private static int runTool(final BenchTool tool, final BenchOptions options, final BenchSchedule schedule,
        final CommunicatorFactory factory, final RunObserver observer, final PrintStream out, final PrintStream err)
    {
        try
        {
            if (options.comparePlans() != null)
            {
                return new ComparePlansRunner(tool, options, factory, out).run();
            }
            if (options.sweep() != null)
            {
                return new SweepRunner(tool, options, schedule, factory, observer, out, err).run();
            }
            observer.runStarted(1, BenchRunner.plannedRowBytes(tool, options));
            observer.passStarted(0, 1, SweepCombination.DEFAULT);
            return new BenchRunner(tool, options, schedule, factory, SweepCombination.DEFAULT,
                row -> observer.row(SweepCombination.DEFAULT, row), out, err).run();
        }
        catch (final RuntimeException | OutOfMemoryError ex)
        {
            out.flush();
            LOG.error("{} failed: {}", tool.toolName(), ex.toString(), ex);
            return BenchRunner.EXIT_FAILURE;
        }
    }

    /**
     * {@code --nprocs N}: checks the tool and its flags as each process would (so that a mistake is reported once,
     * before any process starts), then starts the processes and waits for them.
     */
    private static int launch(final String[] args, final PrintStream out, final PrintStream err,
        final Map<String, String> env)
    {
        final NprocsFlags.Split split;
        try
        {
            split = NprocsFlags.split(args);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("jccl-bench: " + ex.getMessage());
            return EXIT_USAGE;
        }
        // JCuda unpacks its native library into java.io.tmpdir on first use and never checks it again: unpack it
        // here, once, so that children starting together cannot load a half-written file (../shared/GPU.md)
        io.jccl.kernels.cuda.CudaProbe.availability();
        final List<String> toolArgs = split.rest();
        final BenchTool tool;
        try
        {
            tool = BenchTool.fromName(toolArgs.isEmpty() ? "" : toolArgs.get(0));
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("jccl-bench: " + NprocsFlags.NPROCS_FLAG + " runs a tool: " + ex.getMessage());
            return EXIT_USAGE;
        }
        final BenchOptions options = new BenchOptions();
        final CommandLine commandLine = new CommandLine(options).setCommandName(tool.toolName());
        try
        {
            commandLine.parseArgs(toolArgs.subList(1, toolArgs.size()).toArray(new String[0]));
            if (options.helpRequested())
            {
                commandLine.usage(out);
                return BenchRunner.EXIT_OK;
            }
            options.processes(0, split.nprocs()).validate();
            tool.checkRun(options.nRanks(), options.p2p(), options.comparePlans() != null);
            if (options.schedule() != null)
            {
                BenchSchedule.load(options.schedule(), tool, options.nRanks());
            }
        }
        catch (final CommandLine.ParameterException ex)
        {
            err.println(tool.toolName() + ": " + ex.getMessage());
            commandLine.usage(err);
            return EXIT_USAGE;
        }
        catch (final IllegalArgumentException | ArithmeticException ex)
        {
            err.println(tool.toolName() + ": " + ex.getMessage());
            return EXIT_USAGE;
        }
        final List<Integer> cpus = CpuBinding.allowedCpus();
        final CpuBinding binding;
        try
        {
            binding = CpuBinding.resolve(split.bindTo(), split.nprocs(), cpus, CpuBinding.findTaskset(env));
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("jccl-bench: " + ex.getMessage());
            return EXIT_USAGE;
        }
        err.println("jccl-bench: " + split.nprocs() + " processes, " + binding.describe());
        if (env.get(Settings.COMM_ID) != null)
        {
            err.println("jccl-bench: " + Settings.COMM_ID + " from the environment is replaced by this " +
                "launch's own");
        }
        final String crowding = crowdingNote(split.nprocs(), cpus.size());
        if (crowding != null)
        {
            err.println("jccl-bench: " + crowding);
        }
        final ChildCommand command = new ChildCommand(BenchJavaCommand.command(BenchJavaCommand.javaExecutable(),
            binding, BenchJavaCommand.jvmOptions(env), BenchJavaCommand.currentEntry(), toolArgs),
            ChildCommand.World.oneHost(split.nprocs(), UniqueId.create(
            InetAddress.getLoopbackAddress().getHostAddress(), ProcessLauncher.freePort())), binding);
        final Long timeoutMs = options.timeoutMs();
        return new ProcessLauncher("jccl-bench", command, ProcessLauncher.Output.FIRST_STDOUT,
            timeoutMs != null ? timeoutMs : DEFAULT_GRACE_MS, out, err).run();
    }

    /**
     * Measured with 4 processes on this 2-core machine, 8-128 byte AllReduce: rows of {@code -n 20} (nccl-tests'
     * default) read 11 us to 2 ms from one launch to the next, as any row short enough to fit in a scheduler slice
     * meets a peer waiting for the CPU or not; {@code -n 20000} read 12-23 us (Open MPI's bench, timing 0.2 s a size,
     * read 5-8 us), and its first row 48-56 us unless {@code -w 20000} warms it.
     *
     * @param nprocs the children.
     * @param cpus   the CPUs they may run on ({@link CpuBinding#allowedCpus()}); 0 when unknown.
     * @return a note for the launcher's log when the children outnumber the CPUs, else null.
     */
    static String crowdingNote(final int nprocs, final int cpus)
    {
        return cpus <= 0 || nprocs <= cpus ? null : "note: " + nprocs + " processes share " + cpus + " CPUs, so each " +
            "call waits for the scheduler to run its peers and a row of few calls reads the luck of a scheduler " +
            "slice (up to milliseconds); -n 20000 -w 20000 or more steadies the small sizes";
    }


    /** Ends the result files; a file that cannot be ended fails a run that did not fail already. */
    private static int close(final ResultFiles files, final String toolName, final PrintStream err, final int status)
    {
        try
        {
            files.close();
            return status;
        }
        catch (final UncheckedIOException ex)
        {
            err.println(toolName + ": writing the result files failed: " + ex.getMessage());
            return BenchRunner.EXIT_FAILURE;
        }
    }
}
