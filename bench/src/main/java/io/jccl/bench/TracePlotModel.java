package io.jccl.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code jccl-bench plot --trace FILE} draws, worked out without drawing: the online tuner's trials from a
 * {@code --trace} file (columns {@code task,call,plan,ns,outcome}: rank 0's calls of each task, in order), one series
 * per task, the time of each call against its index in the task, and the task's converged plan: the plan of its last
 * trial, whose calls get a marker and whose median time a labelled horizontal line. {@link TraceChartWriter} draws
 * it. Trials that failed are left out of the series and counted in the note. Immutable.
 *
 * @param title  the title.
 * @param note   what the markers and lines mean, and the trials left out.
 * @param xLabel the call axis label.
 * @param yLabel the time axis label.
 * @param series a series per task, by the smallest size of its range.
 */
public record TracePlotModel(String title, String note, String xLabel, String yLabel, List<Series> series)
{
    /** The call axis label. */
    public static final String X_LABEL = "call of the task (rank 0)";
    /** The time axis label. */
    public static final String Y_LABEL = "time per call (us, log scale)";
    /** The columns a trace file has ({@code OnlineTuning}'s header in jccl-core). */
    public static final List<String> COLUMNS = List.of("task", "call", "plan", "ns", "outcome");
    /** The outcome of a call that completed. */
    public static final String OK = "ok";

    /**
     * One call.
     *
     * @param call      its index in the task, from 0.
     * @param timeUs    its time in microseconds.
     * @param plan      the plan it ran under ({@code io.jccl.Plan#id()}).
     * @param converged whether that is the task's converged plan (it gets a marker).
     */
    public record Point(long call, double timeUs, String plan, boolean converged)
    {
    }

    /**
     * One task.
     *
     * @param task      the task ({@code TaskKey#canonical()}, e.g. {@code allreduce/float/sum/r2/65536..131071/comm1}).
     * @param points    its calls, in the order of the file.
     * @param finalPlan the plan of its last trial: the converged plan once the search is over.
     * @param finalUs   the median time of the calls under that plan, in microseconds.
     */
    public record Series(String task, List<Point> points, String finalPlan, double finalUs)
    {
        /**
         * @param task      the task.
         * @param points    its calls, in the order of the file.
         * @param finalPlan the plan of its last trial.
         * @param finalUs   the median time of the calls under that plan.
         */
        public Series
        {
            points = List.copyOf(points);
        }

        /** @return its legend entry: the task and its converged plan. */
        public String name()
        {
            return task + " -> " + finalPlan;
        }
    }

    /**
     * @param title  the title.
     * @param note   what the markers and lines mean.
     * @param xLabel the call axis label.
     * @param yLabel the time axis label.
     * @param series a series per task, by size.
     */
    public TracePlotModel
    {
        series = List.copyOf(series);
    }

    /**
     * Groups a trace's trials by task.
     *
     * @param trace a {@code --trace} file read by {@link CsvResults#read}.
     * @return the model.
     * @throws IllegalArgumentException if a column is missing, a call index or time is not a number, or no trial
     *                                  completed with a time above 0.
     */
    public static TracePlotModel build(final CsvResults trace)
    {
        for (final String column : COLUMNS)
        {
            if (!trace.hasColumn(column))
            {
                throw new IllegalArgumentException(trace.name() + " has no column '" + column + "': not a --trace " +
                    "file (its columns are " + String.join(",", COLUMNS) + ")");
            }
        }
        final Map<String, List<Point>> byTask = new LinkedHashMap<>();
        final Map<String, String> lastPlan = new LinkedHashMap<>();
        int leftOut = 0;
        for (final Map<String, String> row : trace.rows())
        {
            final String task = row.get("task");
            final long call = parseLong(trace, row, "call");
            final long nanos = parseLong(trace, row, "ns");
            if (!OK.equals(row.get("outcome")) || nanos <= 0)
            {
                leftOut++;
                continue;
            }
            byTask.computeIfAbsent(task, k -> new ArrayList<>()).add(new Point(call, nanos / 1000.0,
                row.get("plan"), false));
            lastPlan.put(task, row.get("plan"));
        }
        if (byTask.isEmpty())
        {
            throw new IllegalArgumentException(trace.name() + " holds no trial with outcome " + OK +
                " and a time above 0");
        }
        final List<Series> series = new ArrayList<>(byTask.size());
        byTask.forEach((task, points) ->
        {
            final String finalPlan = lastPlan.get(task);
            final List<Point> marked = new ArrayList<>(points.size());
            final List<Double> finalTimes = new ArrayList<>();
            for (final Point point : points)
            {
                final boolean converged = point.plan().equals(finalPlan);
                marked.add(new Point(point.call(), point.timeUs(), point.plan(), converged));
                if (converged)
                {
                    finalTimes.add(point.timeUs());
                }
            }
            series.add(new Series(task, marked, finalPlan, median(finalTimes)));
        });
        // by size, so that the legend reads small to large whatever order the run met the sizes in (-w: largest first)
        series.sort(Comparator.comparingLong(s -> minBytes(s.task())));
        final String fileName = Path.of(trace.name()).getFileName().toString();
        final String note = "markers: the calls of each task's last plan (converged once the search is over); " +
            "dashed: its median time" + (leftOut == 0 ? "" : "; " + leftOut + " failed or untimed trial" +
            (leftOut == 1 ? "" : "s") + " left out");
        return new TracePlotModel("Online tuner trials, " + fileName + ": " + series.size() + " task" +
            (series.size() == 1 ? "" : "s"), note, X_LABEL, Y_LABEL, series);
    }

    /** @return the smallest time of any call, in microseconds. */
    public double minUs()
    {
        return series.stream().flatMap(s -> s.points().stream()).mapToDouble(Point::timeUs).min().orElse(1);
    }

    /** @return the largest time of any call, in microseconds. */
    public double maxUs()
    {
        return series.stream().flatMap(s -> s.points().stream()).mapToDouble(Point::timeUs).max().orElse(1);
    }

    /**
     * @param task a task as the trace names it, {@code allreduce/float/sum/r2/65536..131071/comm1}.
     * @return the smallest size of its range, or {@link Long#MAX_VALUE} when the name has none (sorted last).
     */
    static long minBytes(final String task)
    {
        for (final String part : task.split("/"))
        {
            final int dots = part.indexOf("..");
            if (dots > 0)
            {
                try
                {
                    return Long.parseLong(part.substring(0, dots));
                }
                catch (final NumberFormatException ex)
                {
                    return Long.MAX_VALUE;
                }
            }
        }
        return Long.MAX_VALUE;
    }

    private static double median(final List<Double> values)
    {
        final double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        final int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    private static long parseLong(final CsvResults file, final Map<String, String> row, final String column)
    {
        try
        {
            return Long.parseLong(row.get(column));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(file.name() + ": task " + row.get("task") + ": " + column + " '" +
                row.get(column) + "' is not an integer", ex);
        }
    }
}
