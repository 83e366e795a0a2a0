package io.jccl.bench;

import io.jccl.Plan;
import io.jccl.TuningReport;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The end of a run with {@code --tuner auto}: for every size of the table, the plan the online tuner started from
 * (the default tuner's, {@link TuningReport#baselinePlan()}) and the one it converged to
 * ({@link TuningReport#bestPlan()}), each with the bus bandwidth of its score in the search
 * ({@link TuningReport#baselineNs()}, {@link TuningReport#bestNs()}: the trimmed mean of rank 0's timed calls,
 * turned into busbw by the tool's own {@link BenchTool#algorithmBandwidth} and
 * {@link BenchTool#busBandwidthFactor}, as the rows are), their ratio
 * (tuned / default: above 1 where the search found a faster plan), the trials and calls the search spent, and the
 * untimed calls and wall time the bench spent tuning that size before timing it. Sizes of one power-of-two bucket
 * share a task, so they show the same plans. Immutable; pure arithmetic on the reports, so it is tested without
 * ranks.
 */
public final class TuningSummary
{
    private static final String MISSING = "-";
    private static final String NOT_AVAILABLE = "N/A";
    private static final String SEARCHING_MARK = "*";
    private static final String DEFAULT_HEADING = "default";
    private static final String TUNED_HEADING = "tuned";
    private static final String PLAN_UNIT = "(plan)";

    private final List<Row> rows;

    /**
     * What the runner knows of one size once its row is printed.
     *
     * @param bytes       the size column: bytes.
     * @param count       the count column: elements.
     * @param elementSize bytes per element.
     * @param typeName    the type as nccl-tests names it.
     * @param opName      the operator, {@code none} for copies.
     * @param root        the root, -1 for collectives without one.
     * @param report      the online tuner's task covering this size, or null when it does not decide the call
     *                    (count 0, a pinned algorithm, a schedule, a table line, or ranks other than jccl's).
     * @param tuneCalls   untimed calls the bench made on this size before timing it.
     * @param tuneNs      their wall time in nanoseconds.
     */
    public record Entry(long bytes, long count, int elementSize, String typeName, String opName, int root,
        TuningReport report, long tuneCalls, long tuneNs)
    {
    }

    /**
     * One row of the summary.
     *
     * @param entry        what it sums up.
     * @param defaultPlan  the default plan's compact text ({@link TableFormatter#planText}), or null.
     * @param defaultBusBw its bus bandwidth in GB/s, NaN when not measured.
     * @param tunedPlan    the tuned plan's compact text, or null.
     * @param tunedBusBw   its bus bandwidth in GB/s, NaN when not measured.
     * @param converged    whether the task had converged when the row was timed.
     */
    public record Row(Entry entry, String defaultPlan, double defaultBusBw, String tunedPlan, double tunedBusBw,
        boolean converged)
    {
        /** @return tuned / default bus bandwidth, or NaN when either is missing or the default's is not positive. */
        public double ratio()
        {
            if (!(defaultBusBw > 0) || Double.isNaN(tunedBusBw))
            {
                return Double.NaN;
            }
            return tunedBusBw / defaultBusBw;
        }
    }

    /**
     * @param tool    the collective: its bandwidth functions.
     * @param nRanks  the rank count.
     * @param entries a size per row of the table, in the order printed.
     */
    public TuningSummary(final BenchTool tool, final int nRanks, final List<Entry> entries)
    {
        final List<Row> summary = new ArrayList<>(entries.size());
        for (final Entry entry : entries)
        {
            final TuningReport report = entry.report();
            if (report == null)
            {
                summary.add(new Row(entry, null, Double.NaN, null, Double.NaN, false));
                continue;
            }
            summary.add(new Row(entry, planText(report.baselinePlan()),
                busBw(tool, nRanks, entry.count(), entry.elementSize(), report.baselineNs()),
                planText(report.bestPlan()), busBw(tool, nRanks, entry.count(), entry.elementSize(), report.bestNs()),
                report.converged()));
        }
        this.rows = List.copyOf(summary);
    }

    /**
     * The bus bandwidth of one call of a size that took the given time, as a row of the table computes it.
     *
     * @param tool        the collective.
     * @param nRanks      the rank count.
     * @param count       the count column: elements.
     * @param elementSize bytes per element.
     * @param nanos       the time of one call in nanoseconds.
     * @return GB/s, or NaN when the time is not a positive number.
     */
    public static double busBw(final BenchTool tool, final int nRanks, final long count, final int elementSize,
        final double nanos)
    {
        if (!(nanos > 0) || Double.isInfinite(nanos))
        {
            return Double.NaN;
        }
        return tool.algorithmBandwidth(count, elementSize, nanos / 1.0E9, nRanks) * tool.busBandwidthFactor(nRanks);
    }

    /** @return a row per size, in the order printed. */
    public List<Row> rows()
    {
        return rows;
    }

    /**
     * The summary as printed after the table: {@code #} lines naming the columns, then one line per size that starts
     * as a row of nccl-tests' table ({@link TableFormatter#rowParameters}) and goes on with the default plan and its
     * busbw, the tuned plan and its busbw, the ratio, the search's trials and calls, and the bench's tuning calls and
     * milliseconds; the plan columns are as wide as their longest entry, so every column lines up and none holds a
     * blank. A tuned plan still searching is marked {@code *}; both lead to a {@code #} note after the rows.
     *
     * @return the lines.
     */
    public List<String> lines()
    {
        int defaultWidth = Math.max(DEFAULT_HEADING.length(), PLAN_UNIT.length());
        int tunedWidth = Math.max(TUNED_HEADING.length(), PLAN_UNIT.length());
        boolean searching = false;
        boolean untuned = false;
        long tuneCalls = 0;
        long tuneNs = 0;
        for (final Row row : rows)
        {
            defaultWidth = Math.max(defaultWidth, text(row.defaultPlan()).length());
            tunedWidth = Math.max(tunedWidth, tunedText(row).length());
            searching |= row.entry().report() != null && !row.converged();
            untuned |= row.entry().report() == null;
            tuneCalls += row.entry().tuneCalls();
            tuneNs += row.entry().tuneNs();
        }
        final List<String> lines = new ArrayList<>(rows.size() + 8);
        lines.add("# Online tuning summary: the default plan (the tuner's first) against the tuned plan, busbw from " +
            "the search's scores; ratio = tuned / default");
        lines.add(String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s", "size", "count", "type", "redop",
            "root") + columns(defaultWidth, DEFAULT_HEADING, "busbw", tunedWidth, TUNED_HEADING, "busbw", "ratio",
            "trials", "search", "tune", "tune").stripTrailing());
        lines.add(String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s", "(B)", "(elements)", "", "", "") +
            columns(defaultWidth, PLAN_UNIT, "(GB/s)", tunedWidth, PLAN_UNIT, "(GB/s)", "", "", "(calls)", "(calls)",
            "(ms)").stripTrailing());
        for (final Row row : rows)
        {
            final Entry entry = row.entry();
            final TuningReport report = entry.report();
            lines.add(TableFormatter.rowParameters(entry.bytes(), entry.count(), entry.typeName(), entry.opName(),
                entry.root()) + columns(defaultWidth, text(row.defaultPlan()), decimal(row.defaultBusBw()),
                tunedWidth, tunedText(row), decimal(row.tunedBusBw()), decimal(row.ratio()),
                report == null ? MISSING : Integer.toString(report.trials()),
                report == null ? MISSING : Long.toString(report.searchCalls()),
                Long.toString(entry.tuneCalls()), millis(entry.tuneNs())));
        }
        if (searching)
        {
            lines.add("# " + SEARCHING_MARK + " still searching when the row was timed: its best plan so far; give " +
                "more --tune-iters");
        }
        if (untuned)
        {
            lines.add("# " + MISSING + " the online tuner does not decide this call (count 0, a pinned algorithm, a " +
                "schedule or a table line)");
        }
        lines.add("# Tuning: " + tuneCalls + " untimed calls in " + millis(tuneNs) + " ms before the timed rows");
        lines.add("#");
        return lines;
    }

    private static String columns(final int defaultWidth, final String defaultPlan, final String defaultBusBw,
        final int tunedWidth, final String tunedPlan, final String tunedBusBw, final String ratio, final String trials,
        final String searchCalls, final String tuneCalls, final String tuneMs)
    {
        return "  " + padRight(defaultPlan, defaultWidth) + "  " + CFormat.padLeft(defaultBusBw, 6) + "  " +
            padRight(tunedPlan, tunedWidth) + "  " + CFormat.padLeft(tunedBusBw, 6) + "  " +
            CFormat.padLeft(ratio, 6) + "  " + CFormat.padLeft(trials, 6) + "  " + CFormat.padLeft(searchCalls, 7) +
            "  " + CFormat.padLeft(tuneCalls, 7) + "  " + CFormat.padLeft(tuneMs, 8);
    }

    private static String tunedText(final Row row)
    {
        if (row.tunedPlan() == null)
        {
            return MISSING;
        }
        return row.converged() ? row.tunedPlan() : row.tunedPlan() + SEARCHING_MARK;
    }

    private static String planText(final Plan plan)
    {
        return plan == null ? null : TableFormatter.planText(plan, null);
    }

    private static String text(final String value)
    {
        return value == null ? MISSING : value;
    }

    /** nccl-tests' {@code %6.2f}, or N/A for a value not measured. */
    private static String decimal(final double value)
    {
        return Double.isNaN(value) ? NOT_AVAILABLE : CFormat.fixed(value, 6, 2);
    }

    private static String millis(final long nanos)
    {
        return CFormat.fixed(nanos / 1.0E6, 8, 1).strip();
    }

    private static String padRight(final String text, final int width)
    {
        return text.length() >= width ? text : text + " ".repeat(width - text.length());
    }
}
