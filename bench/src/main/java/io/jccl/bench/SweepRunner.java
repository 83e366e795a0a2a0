package io.jccl.bench;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A tool run with {@code --sweep}: one pass per combination, in the sweep's order, each creating its own ranks with
 * the combination's pins over the flags and printing nccl-tests' whole output after a line
 * {@code # sweep combination k/N: proto=ll nchannels=2}; then the default pass (no pins from the sweep, the tuner's
 * choice within the flags) after {@code # sweep combination default: ...}; then the {@link SweepSummary}. The
 * default runs last so that it never runs on a colder JIT than the combinations it is compared with. A pass that
 * fails is logged and the sweep goes on. Every pass and row is also told to a {@link RunObserver}: the result
 * files get every combination's rows, each naming its combination.
 */
public final class SweepRunner
{
    private static final Logger LOG = LoggerFactory.getLogger(SweepRunner.class);

    private final BenchTool tool;
    private final BenchOptions options;
    private final BenchSchedule schedule;
    private final CommunicatorFactory factory;
    private final RunObserver observer;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * @param tool     the collective.
     * @param options  validated flags with a {@code --sweep}.
     * @param schedule the loaded {@code --schedule} file, or null.
     * @param factory  where ranks come from, once per pass.
     * @param observer told the run, each pass and every row (result files, progress).
     * @param out      where the tables and the summary go (stdout for the tools).
     * @param err      where the rows a schedule does not apply to are named (stderr for the tools).
     */
    public SweepRunner(final BenchTool tool, final BenchOptions options, final BenchSchedule schedule,
        final CommunicatorFactory factory, final RunObserver observer, final PrintStream out, final PrintStream err)
    {
        this.tool = tool;
        this.options = options;
        this.schedule = schedule;
        this.factory = factory;
        this.observer = observer;
        this.out = out;
        this.err = err;
    }

    /**
     * Runs every pass, then prints the summary.
     *
     * @return {@link BenchRunner#EXIT_OK} when every pass did, else {@link BenchRunner#EXIT_FAILURE}.
     */
    public int run()
    {
        final List<SweepCombination> combinations = options.sweep().combinations();
        final List<List<RowResult>> passes = new ArrayList<>(combinations.size());
        final int passCount = combinations.size() + 1;
        observer.runStarted(passCount, BenchRunner.plannedRowBytes(tool, options));
        int status = BenchRunner.EXIT_OK;
        for (int k = 0; k < combinations.size(); k++)
        {
            final SweepCombination combination = combinations.get(k);
            out.println("# sweep combination " + (k + 1) + "/" + combinations.size() + ": " + combination.label());
            observer.passStarted(k, passCount, combination);
            final List<RowResult> rows = new ArrayList<>();
            status = Math.max(status, runPass(combination, rows));
            passes.add(rows);
        }
        out.println("# sweep combination " + SweepCombination.DEFAULT_LABEL + ": no pins from the sweep (the " +
            "tuner's choice)");
        observer.passStarted(combinations.size(), passCount, SweepCombination.DEFAULT);
        final List<RowResult> defaults = new ArrayList<>();
        status = Math.max(status, runPass(SweepCombination.DEFAULT, defaults));
        for (final String line : new SweepSummary(combinations, passes, defaults).lines())
        {
            out.println(line);
        }
        out.println();
        out.flush();
        return status;
    }

    private int runPass(final SweepCombination combination, final List<RowResult> rows)
    {
        out.flush();
        try
        {
            final Consumer<RowResult> listener = row ->
            {
                rows.add(row);
                observer.row(combination, row);
            };
            return new BenchRunner(tool, options, schedule, factory, combination, listener, out, err).run();
        }
        catch (final RuntimeException | OutOfMemoryError ex)
        {
            out.flush();
            LOG.error("{} sweep combination {} failed: {}", tool.toolName(), combination.label(), ex.toString(), ex);
            return BenchRunner.EXIT_FAILURE;
        }
    }
}
