package io.jccl.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The table of {@code --compare-plans}: per size, each plan's median time and median bus bandwidth over its rounds,
 * each plan's median bus bandwidth over the first plan's, and the plan each one ran. Plans are lettered A, B, C...
 * in the header lines, which also give their pins. Stateless apart from the plan labels.
 */
public final class CompareTable
{
    private final List<String> labels;

    /**
     * @param labels the plans' labels, in the order given ({@link SweepCombination#compactLabel()}).
     */
    public CompareTable(final List<String> labels)
    {
        this.labels = List.copyOf(labels);
    }

    /**
     * @param rounds the rounds per size.
     * @param iters  the timed calls per round ({@code -n}).
     * @return the lines before the rows: one per plan with its pins, then the column headers.
     */
    public List<String> headerLines(final int rounds, final int iters)
    {
        final List<String> lines = new ArrayList<>();
        for (int p = 0; p < labels.size(); p++)
        {
            lines.add("# plan " + letter(p) + ": " + labels.get(p));
        }
        lines.add("# out-of-place; medians over " + rounds + " rounds of " + iters + " calls, the plans " +
            "interleaved in each round; ratio: median busbw over plan A's");
        final StringBuilder names = new StringBuilder(String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s",
            "size", "count", "type", "#wrong"));
        final StringBuilder units = new StringBuilder(String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s",
            "(B)", "(elements)", "", ""));
        for (int p = 0; p < labels.size(); p++)
        {
            names.append(String.format(Locale.ROOT, "  %7s  %6s", letter(p) + ":time", letter(p) + ":bus"));
            units.append(String.format(Locale.ROOT, "  %7s  %6s", "(us)", "(GB/s)"));
        }
        for (int p = 0; p < labels.size(); p++)
        {
            names.append(String.format(Locale.ROOT, "  %6s", letter(p) + "/A"));
        }
        names.append("  plans");
        lines.add(names.toString());
        lines.add(units.toString());
        return lines;
    }

    /**
     * @param bytes      the size column.
     * @param count      the count column.
     * @param typeName   the type as nccl-tests names it.
     * @param timesUs    per plan, the time of one call in each round, in microseconds.
     * @param busBws     per plan, the bus bandwidth of each round, in GB/s.
     * @param planTexts  per plan, what its calls ran ({@link TableFormatter#planText}).
     * @param wrong      wrong elements summed over the plans' checks.
     * @param checked    false with {@code -c 0}.
     * @return the row.
     */
    public String row(final long bytes, final long count, final String typeName, final double[][] timesUs,
        final double[][] busBws, final String[] planTexts, final long wrong, final boolean checked)
    {
        final StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%12d  %12d  %8s  %6s", bytes, count,
            typeName, checked ? CFormat.general(wrong, 6) : "N/A"));
        final double[] medianBusBws = new double[labels.size()];
        for (int p = 0; p < labels.size(); p++)
        {
            medianBusBws[p] = median(busBws[p]);
            row.append("  ").append(TableFormatter.timeString(median(timesUs[p]))).append("  ")
                .append(CFormat.fixed(medianBusBws[p], 6, 2));
        }
        for (int p = 0; p < labels.size(); p++)
        {
            final double ratio = medianBusBws[0] > 0 ? medianBusBws[p] / medianBusBws[0] : Double.NaN;
            row.append("  ").append(CFormat.fixed(ratio, 6, 2));
        }
        row.append("  ").append(String.join("  ", planTexts));
        return row.toString();
    }

    /**
     * @param values at least one value.
     * @return the middle value, or the mean of the two middle ones for an even count.
     */
    public static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /**
     * @param plan the plan's index, from 0.
     * @return its letter: A, B, C...
     */
    static String letter(final int plan)
    {
        return plan < 26 ? String.valueOf((char)('A' + plan)) : "P" + (plan + 1);
    }
}
