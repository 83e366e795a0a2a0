package io.jccl.bench;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * The entry point of the tools: {@code jccl-bench <tool> [flags]}, where the tool is one of nccl-tests' binaries
 * ({@code all_reduce_perf}, {@code all_gather_perf}, {@code reduce_scatter_perf}, {@code broadcast_perf},
 * {@code reduce_perf}, {@code alltoall_perf}; the {@code _perf} suffix may be left out) and the flags are
 * nccl-tests' ({@link BenchOptions}); and two commands for MSCCL XML schedules: {@code jccl-bench verify FILE...}
 * ({@link VerifyCommand}) and {@code jccl-bench export --coll C -g N ...} ({@link ExportCommand}); and
 * {@code jccl-bench plot FILE.csv... -o out.png} ({@link PlotCommand}), which draws result files.
 * <p>
 * With {@code --sweep}, a tool runs once per combination of knob values and once without them, then sums up
 * ({@link SweepRunner}). With {@code --csv} and {@code -J/--output_file} it also writes its rows to result files
 * ({@link ResultFiles}); progress goes to stderr ({@link Progress}).
 * <p>
 * Exit status: 0 when every checked result was right, 1 when one was wrong or the run failed, 2 for bad arguments
 * (including a knob value jccl does not take, and a {@code --schedule} file that cannot be loaded, is invalid, or is
 * for another collective or rank count); {@code verify} and {@code export} say their own.
 */
public final class JcclBench
{
    /** Exit status for bad arguments. */
    public static final int EXIT_USAGE = 2;

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
        "       jccl-bench verify [--strict] FILE...",
        "         check MSCCL XML schedules: OK or every error (line, element path), and whether each computes the " +
            "collective it declares; --strict adds what MSCCL's C executors would refuse",
        "       jccl-bench export --coll <collective> [--algo ring|tree] -g <ranks> [--channels C] [--root R] " +
            "[--proto simple|ll|ll128]",
        "         write a built-in algorithm as MSCCL XML on stdout");

    private static final Logger LOG = LoggerFactory.getLogger(JcclBench.class);

    private JcclBench()
    {
    }

    /**
     * Runs a tool and exits with its status.
     *
     * @param args the tool name, then its flags.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs a tool on jccl.
     *
     * @param args the tool name, then its flags.
     * @param out  where the table (and {@code -h} help) goes.
     * @param err  where argument errors go.
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        return run(args, out, err, new JcclCommunicatorFactory());
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
        return run(args, out, err, factory, System::nanoTime);
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
        if (args.length == 0 || "-h".equals(args[0]) || "--help".equals(args[0]))
        {
            final PrintStream to = args.length == 0 ? err : out;
            to.println(USAGE);
            return args.length == 0 ? EXIT_USAGE : BenchRunner.EXIT_OK;
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
        final BenchTool tool;
        try
        {
            tool = BenchTool.fromName(args[0]);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("jccl-bench: " + ex.getMessage() + ", or plot, verify, export (jccl-bench -h)");
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
        try
        {
            options.validate();
        }
        catch (final IllegalArgumentException | ArithmeticException ex)
        {
            err.println(tool.toolName() + ": " + ex.getMessage());
            return EXIT_USAGE;
        }
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
            files = ResultFiles.open(tool, options, RunInfo.current(args));
        }
        catch (final UncheckedIOException ex)
        {
            err.println(tool.toolName() + ": " + ex.getMessage());
            return EXIT_USAGE;
        }
        final RunObserver observer = Progress.wanted(options.progress(), System.console() != null) ?
            RunObserver.both(files, new Progress(tool.toolName(), err, nanoClock, Progress.DEFAULT_INTERVAL_NS)) :
            files;
        int status = BenchRunner.EXIT_FAILURE;
        try
        {
            status = runTool(tool, options, schedule, factory, observer, out, err);
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
