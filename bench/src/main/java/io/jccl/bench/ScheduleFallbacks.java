package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.bench.BenchRunner.Shape;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of a {@link BenchRunner} run that its {@code --schedule} file does not apply to, where jccl runs its
 * built-in algorithm instead: each (type, size, placement) is named on the error stream with the reason, once per run,
 * and {@link #line()} lists them all in one {@code #} line after the table.
 * <p>
 * Threading: written by bench thread 0 of the process that runs rank 0 only; read by the thread that runs
 * {@link BenchRunner#run()} once the bench threads are done.
 */
final class ScheduleFallbacks
{
    private final BenchTool tool;
    private final BenchSchedule schedule;
    private final int nRanks;
    private final PrintStream err;
    /** "type size" to the placements that ran the built-in instead of the schedule. */
    private final Map<String, List<String>> fallbacks = new LinkedHashMap<>();

    /**
     * @param tool     the collective.
     * @param schedule the loaded {@code --schedule} file.
     * @param nRanks   the ranks of the whole run.
     * @param err      where the rows the schedule does not apply to are named.
     */
    ScheduleFallbacks(final BenchTool tool, final BenchSchedule schedule, final int nRanks, final PrintStream err)
    {
        this.tool = tool;
        this.schedule = schedule;
        this.nRanks = nRanks;
        this.err = err;
    }

    /**
     * Names a row's placement that runs the built-in instead of the schedule, once per run.
     *
     * @param shape   the row's size.
     * @param type    the row's element type.
     * @param inPlace true for the in-place call, false for the out-of-place one.
     */
    void report(final Shape shape, final DataType type, final boolean inPlace)
    {
        final String placement = inPlace ? "in-place" : "out-of-place";
        final String reason = schedule.whyNot(tool, nRanks, inPlace, shape.totalBytes(), shape.elementSize());
        if (reason == null)
        {
            return;
        }
        final List<String> placements = fallbacks.computeIfAbsent(type.ncclTestsName() + " " + shape.totalBytes(),
            k -> new ArrayList<>(2));
        if (placements.contains(placement))
        {
            return;
        }
        placements.add(placement);
        err.println(tool.toolName() + ": size " + shape.totalBytes() + " (" + type.ncclTestsName() + ", " +
            placement + ") runs the built-in: schedule " + schedule.schedule().name() + " does not apply: " + reason);
        err.flush();
    }

    /**
     * @return {@code # Built-in ran where schedule <name> does not apply: float 1024 (out-of-place, in-place), ...},
     *         or {@code # Schedule <name> ran every row}.
     */
    String line()
    {
        final String name = schedule.schedule().name();
        if (fallbacks.isEmpty())
        {
            return "# Schedule " + name + " ran every row";
        }
        final StringBuilder sb = new StringBuilder("# Built-in ran where schedule ").append(name)
            .append(" does not apply:");
        String separator = " ";
        for (final Map.Entry<String, List<String>> entry : fallbacks.entrySet())
        {
            sb.append(separator).append(entry.getKey()).append(" (").append(String.join(", ", entry.getValue()))
                .append(')');
            separator = ", ";
        }
        return sb.toString();
    }
}
