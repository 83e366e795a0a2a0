package io.jccl.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The end of a {@code --sweep}: for every row of nccl-tests' table (size, count, type, operator, root), the
 * combination with the highest out-of-place bus bandwidth, that bandwidth, the default pass's plan column and
 * bandwidth, and their ratio (best / default: above 1 where a pin beat the tuner). The default pass is not a
 * candidate for best. Rows of the passes are matched by position, as every pass prints the same rows in the same
 * order; a row a pass lacks (it failed) or that measured another call is left out of that pass's candidates.
 * Immutable; pure arithmetic on the results, so it is tested without ranks.
 */
public final class SweepSummary
{
    private static final String MISSING = "-";
    private static final String NOT_AVAILABLE = "N/A";
    private static final String BEST_HEADING = "best";
    private static final String BEST_UNIT = "(combination)";
    private static final String DEFAULT_HEADING = "default";
    private static final String DEFAULT_UNIT = "(plan)";

    private final int combinationCount;
    private final List<Row> rows;

    /**
     * One row of the summary.
     *
     * @param call         the call measured (the default pass's row, else the first pass's that has it).
     * @param best         the best combination's compact label ({@link SweepCombination#compactLabel()}), or null
     *                     when no combination measured the call.
     * @param bestBusBw    the best combination's out-of-place bus bandwidth in GB/s, NaN without one.
     * @param defaultPlan  the default pass's plan column, or null when it did not measure the call.
     * @param defaultBusBw the default pass's out-of-place bus bandwidth in GB/s, NaN when it did not measure it.
     */
    public record Row(RowResult call, String best, double bestBusBw, String defaultPlan, double defaultBusBw)
    {
        /** @return best / default bus bandwidth, or NaN when either is missing or the default's is not positive. */
        public double ratio()
        {
            if (best == null || defaultPlan == null || !(defaultBusBw > 0) || Double.isNaN(bestBusBw))
            {
                return Double.NaN;
            }
            return bestBusBw / defaultBusBw;
        }
    }

    /**
     * @param combinations the sweep's combinations, in the order they ran.
     * @param passes       each combination's rows, in the order printed; same size as combinations.
     * @param defaults     the default pass's rows, in the order printed.
     * @throws IllegalArgumentException if passes and combinations differ in number.
     */
    public SweepSummary(final List<SweepCombination> combinations, final List<List<RowResult>> passes,
        final List<RowResult> defaults)
    {
        if (combinations.size() != passes.size())
        {
            throw new IllegalArgumentException(combinations.size() + " combinations but " + passes.size() +
                " passes of results");
        }
        this.combinationCount = combinations.size();
        int rowCount = defaults.size();
        for (final List<RowResult> pass : passes)
        {
            rowCount = Math.max(rowCount, pass.size());
        }
        final List<Row> summary = new ArrayList<>(rowCount);
        for (int i = 0; i < rowCount; i++)
        {
            summary.add(row(i, combinations, passes, defaults));
        }
        this.rows = List.copyOf(summary);
    }

    private static Row row(final int index, final List<SweepCombination> combinations,
        final List<List<RowResult>> passes, final List<RowResult> defaults)
    {
        RowResult call = index < defaults.size() ? defaults.get(index) : null;
        for (int c = 0; call == null && c < passes.size(); c++)
        {
            call = index < passes.get(c).size() ? passes.get(c).get(index) : null;
        }
        String best = null;
        double bestBusBw = Double.NaN;
        for (int c = 0; c < passes.size(); c++)
        {
            final RowResult candidate = index < passes.get(c).size() ? passes.get(c).get(index) : null;
            if (candidate == null || !candidate.sameCall(call) || Double.isNaN(candidate.outOfPlaceBusBw()))
            {
                continue;
            }
            // strictly greater: on a tie the earlier combination stays best
            if (best == null || candidate.outOfPlaceBusBw() > bestBusBw)
            {
                best = combinations.get(c).compactLabel();
                bestBusBw = candidate.outOfPlaceBusBw();
            }
        }
        final RowResult fallback = index < defaults.size() ? defaults.get(index) : null;
        final boolean hasDefault = fallback != null && fallback.sameCall(call);
        return new Row(call, best, bestBusBw, hasDefault ? fallback.plan() : null,
            hasDefault ? fallback.outOfPlaceBusBw() : Double.NaN);
    }

    /** @return a row per row of the passes' tables, in their order. */
    public List<Row> rows()
    {
        return rows;
    }

    /**
     * The summary as printed after the passes: {@code #} lines naming the columns, then one line per row that starts
     * as a row of nccl-tests' table ({@link TableFormatter#rowParameters}) and goes on with the best combination, its
     * bus bandwidth, the default's plan, its bus bandwidth, and the ratio; the two text columns are as wide as their
     * longest entry, so every column lines up and none holds a blank.
     *
     * @return the lines.
     */
    public List<String> lines()
    {
        int bestWidth = Math.max(BEST_HEADING.length(), BEST_UNIT.length());
        int planWidth = Math.max(DEFAULT_HEADING.length(), DEFAULT_UNIT.length());
        for (final Row row : rows)
        {
            bestWidth = Math.max(bestWidth, text(row.best()).length());
            planWidth = Math.max(planWidth, text(row.defaultPlan()).length());
        }
        final List<String> lines = new ArrayList<>(rows.size() + 5);
        lines.add("# Sweep summary: the best of " + combinationCount + " combinations against the default (no sweep " +
            "pins), by out-of-place busbw; ratio = best / default");
        lines.add(String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s", "size", "count", "type",
            "redop", "root") + columns(bestWidth, BEST_HEADING, "busbw", planWidth, DEFAULT_HEADING, "busbw",
            "ratio").stripTrailing());
        lines.add(String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s", "(B)", "(elements)", "", "",
            "") + columns(bestWidth, BEST_UNIT, "(GB/s)", planWidth, DEFAULT_UNIT, "(GB/s)", "").stripTrailing());
        for (final Row row : rows)
        {
            final RowResult call = row.call();
            lines.add(TableFormatter.rowParameters(call.bytes(), call.count(), call.typeName(), call.opName(),
                call.root()) + columns(bestWidth, text(row.best()), decimal(row.bestBusBw()), planWidth,
                text(row.defaultPlan()), decimal(row.defaultBusBw()), decimal(row.ratio())));
        }
        lines.add("#");
        return lines;
    }

    private static String columns(final int bestWidth, final String best, final String bestBusBw,
        final int planWidth, final String plan, final String defaultBusBw, final String ratio)
    {
        return "  " + padRight(best, bestWidth) + "  " + CFormat.padLeft(bestBusBw, 6) + "  " +
            padRight(plan, planWidth) + "  " + CFormat.padLeft(defaultBusBw, 6) + "  " + CFormat.padLeft(ratio, 6);
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

    private static String padRight(final String text, final int width)
    {
        return text.length() >= width ? text : text + " ".repeat(width - text.length());
    }

}
