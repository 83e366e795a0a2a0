package io.jccl.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@code jccl-bench plot} draws, worked out without drawing: the series (one per file, plan or sweep combination),
 * their points (bus bandwidth against size, on a log-2 size axis), which points get a marker, which series is drawn
 * thicker, the titles and the axis ticks. {@link ChartPlotWriter} (PNG) and {@link SvgPlotWriter} (SVG) draw it.
 * Immutable.
 * <p>
 * Grouped by combination (a sweep's files), the default pass is drawn thicker and, at each size, the combination with
 * the highest bus bandwidth gets a marker, so that the best pin per size reads off the chart; grouped otherwise,
 * every measured point gets a marker. Points of size 0 (a log axis has no place for them) and unmeasured ones are
 * left out; several records of one series at one size (cycles, or plans that several combinations share) are
 * averaged.
 *
 * @param title    the title: tools, ranks, placement.
 * @param subtitle the machines the files were measured on ({@link RunInfo}), or empty.
 * @param note     what the markers mean, or empty.
 * @param xLabel   the size axis label.
 * @param yLabel   the bandwidth axis label.
 * @param series   the series, in legend order.
 */
public record PlotModel(String title, String subtitle, String note, String xLabel, String yLabel,
    List<Series> series)
{
    /** The size axis label. */
    public static final String X_LABEL = "message size (bytes, log2 scale)";
    /** The bandwidth axis label. */
    public static final String Y_LABEL = "busbw (GB/s)";
    /** The most size ticks the axis gets. */
    static final int MAX_X_TICKS = 13;

    /** How records are grouped into series: {@code --by}. */
    public enum GroupBy
    {
        /** A series per file. */
        FILE,
        /** A series per plan text. */
        PLAN,
        /** A series per sweep combination. */
        COMBINATION;

        /** @return the name on the command line. */
        public String lowerName()
        {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * @param name {@code file}, {@code plan} or {@code combination}.
         * @return the grouping.
         * @throws IllegalArgumentException naming the valid ones.
         */
        public static GroupBy fromName(final String name)
        {
            for (final GroupBy by : values())
            {
                if (by.lowerName().equals(name))
                {
                    return by;
                }
            }
            throw new IllegalArgumentException("--by '" + name + "' is not one of file, plan, combination");
        }
    }

    /**
     * One point.
     *
     * @param bytes  the size.
     * @param busBw  the bus bandwidth in GB/s.
     * @param marked whether it gets a marker.
     */
    public record Point(long bytes, double busBw, boolean marked)
    {
        /** @return the position on the size axis: log2 of the size. */
        public double x()
        {
            return Math.log(bytes) / Math.log(2);
        }
    }

    /**
     * One line.
     *
     * @param name       its legend entry.
     * @param points     its points, by size.
     * @param emphasized whether it is drawn thicker (a sweep's default pass).
     */
    public record Series(String name, List<Point> points, boolean emphasized)
    {
        /**
         * @param name       its legend entry.
         * @param points     its points, by size.
         * @param emphasized whether it is drawn thicker (a sweep's default pass).
         */
        public Series
        {
            points = List.copyOf(points);
        }
    }

    /**
     * @param title    the title.
     * @param subtitle the machines, or empty.
     * @param note     what the markers mean, or empty.
     * @param xLabel   the size axis label.
     * @param yLabel   the bandwidth axis label.
     * @param series   the series, in legend order.
     */
    public PlotModel
    {
        series = List.copyOf(series);
    }

    /**
     * Groups the records of result files into series.
     *
     * @param files     the files, in legend order.
     * @param by        the grouping, or null for combination when a file has that column, else file.
     * @param placement {@value ResultRecord#OUT_OF_PLACE} or {@value ResultRecord#IN_PLACE}: whose bandwidth.
     * @return the model.
     * @throws IllegalArgumentException if a record's size or bandwidth is not a number, a file lacks a column the
     *                                  grouping needs, or no file has a point to draw.
     */
    public static PlotModel build(final List<CsvResults> files, final GroupBy by, final String placement)
    {
        final GroupBy grouping = by != null ? by :
            files.stream().anyMatch(f -> f.hasColumn(ResultRecord.COMBINATION)) ? GroupBy.COMBINATION : GroupBy.FILE;
        final List<String> fileNames = fileNames(files);
        final Set<String> variants = new LinkedHashSet<>();
        for (final CsvResults file : files)
        {
            for (final Map<String, String> row : file.rows())
            {
                variants.add(variant(row));
            }
        }
        // series -> size -> sum and count of the bandwidths there
        final Map<Key, TreeMap<Long, double[]>> sums = new LinkedHashMap<>();
        final Set<String> tools = new LinkedHashSet<>();
        final Set<String> ranks = new LinkedHashSet<>();
        for (int f = 0; f < files.size(); f++)
        {
            final CsvResults file = files.get(f);
            for (final String column : List.of("tool", "ranks", "type", "op", "root", "placement", "plan",
                ResultRecord.SIZE_BYTES, ResultRecord.BUS_BW))
            {
                require(file, column);
            }
            if (grouping == GroupBy.COMBINATION)
            {
                require(file, ResultRecord.COMBINATION);
            }
            for (final Map<String, String> row : file.rows())
            {
                if (!placement.equals(row.get("placement")))
                {
                    continue;
                }
                final long bytes = parseLong(file, row, ResultRecord.SIZE_BYTES);
                final double busBw = parseDouble(file, row, ResultRecord.BUS_BW);
                tools.add(row.get("tool"));
                ranks.add(row.get("ranks"));
                if (bytes <= 0 || Double.isNaN(busBw))
                {
                    continue;
                }
                final String group = switch (grouping)
                {
                    case FILE -> "";
                    case PLAN -> row.get("plan");
                    case COMBINATION -> row.get(ResultRecord.COMBINATION);
                };
                final Key key = new Key(grouping == GroupBy.FILE || files.size() > 1 ? fileNames.get(f) : "", group,
                    variants.size() > 1 ? variant(row) : "");
                final double[] sum = sums.computeIfAbsent(key, k -> new TreeMap<>())
                    .computeIfAbsent(bytes, k -> new double[2]);
                sum[0] += busBw;
                sum[1]++;
            }
        }
        if (sums.isEmpty())
        {
            throw new IllegalArgumentException("no " + placement + " record with a size above 0 and a bandwidth in " +
                fileNames);
        }
        final List<Series> series = series(sums, grouping == GroupBy.COMBINATION);
        final String title = String.join(", ", tools) + " bus bandwidth, " + String.join("/", ranks) + " ranks, " +
            placement;
        final String note = grouping == GroupBy.COMBINATION ? "thick: " + SweepCombination.DEFAULT_LABEL +
            " (the tuner's choice); markers: the best combination at each size" : "";
        return new PlotModel(title, machines(files), note, X_LABEL, Y_LABEL, series);
    }

    /**
     * A series: its file (empty when one file and not grouped by file), its group (plan or combination, empty when
     * grouped by file) and its variant (type, operator, root; empty when the files hold one).
     */
    private record Key(String file, String group, String variant)
    {
        String name()
        {
            final StringBuilder sb = new StringBuilder(file);
            if (!group.isEmpty())
            {
                sb.append(sb.length() > 0 ? ": " : "").append(group);
            }
            if (!variant.isEmpty())
            {
                sb.append(sb.length() > 0 ? " " : "").append(variant);
            }
            return sb.toString();
        }

        boolean isDefault()
        {
            return group.equals(SweepCombination.DEFAULT_LABEL);
        }

        /** @return what competes at a size for best: the combinations of one file and variant. */
        String arena(final long bytes)
        {
            return file + '\0' + variant + '\0' + bytes;
        }
    }

    /** @param sweep grouped by combination: the default is emphasized and the best per size marked. */
    private static List<Series> series(final Map<Key, TreeMap<Long, double[]>> sums, final boolean sweep)
    {
        final Map<String, Double> best = new LinkedHashMap<>();
        if (sweep)
        {
            sums.forEach((key, points) -> points.forEach((bytes, sum) ->
            {
                if (!key.isDefault())
                {
                    best.merge(key.arena(bytes), sum[0] / sum[1], Math::max);
                }
            }));
        }
        final List<Series> series = new ArrayList<>(sums.size());
        sums.forEach((key, points) ->
        {
            final List<Point> line = new ArrayList<>(points.size());
            points.forEach((bytes, sum) ->
            {
                final double busBw = sum[0] / sum[1];
                final boolean marked = !sweep || !key.isDefault() && busBw == best.get(key.arena(bytes));
                line.add(new Point(bytes, busBw, marked));
            });
            series.add(new Series(key.name(), line, sweep && key.isDefault()));
        });
        return series;
    }

    /**
     * @param from  the first exponent of 2 of the axis.
     * @param to    the last exponent of 2.
     * @return the exponents that get a tick: from {@code from}, every step, with at most {@link #MAX_X_TICKS}.
     */
    public static List<Integer> xTickExponents(final int from, final int to)
    {
        final int span = Math.max(0, to - from);
        final int step = Math.max(1, (span + MAX_X_TICKS - 1) / MAX_X_TICKS);
        final List<Integer> ticks = new ArrayList<>();
        for (int e = from; e <= to; e += step)
        {
            ticks.add(e);
        }
        return ticks;
    }

    /** @return the smallest exponent of 2 at or below every point's size. */
    public int minExponent()
    {
        return (int)Math.floor(series.stream().flatMap(s -> s.points().stream()).mapToDouble(Point::x).min()
            .orElse(0) + 1e-9);
    }

    /** @return the smallest exponent of 2 at or above every point's size. */
    public int maxExponent()
    {
        return (int)Math.ceil(series.stream().flatMap(s -> s.points().stream()).mapToDouble(Point::x).max()
            .orElse(0) - 1e-9);
    }

    /** @return the highest bus bandwidth of any point. */
    public double maxBusBw()
    {
        return series.stream().flatMap(s -> s.points().stream()).mapToDouble(Point::busBw).max().orElse(0);
    }

    private static String variant(final Map<String, String> row)
    {
        return row.get("type") + " " + row.get("op") + ("-1".equals(row.get("root")) ? "" : " root " +
            row.get("root"));
    }

    /** The file's legend name: its name without directory and extension, or its path where two names collide. */
    private static List<String> fileNames(final List<CsvResults> files)
    {
        final List<String> names = new ArrayList<>(files.size());
        for (final CsvResults file : files)
        {
            final String base = Path.of(file.name()).getFileName().toString();
            final int dot = base.lastIndexOf('.');
            names.add(dot > 0 ? base.substring(0, dot) : base);
        }
        for (int i = 0; i < names.size(); i++)
        {
            final String name = names.get(i);
            if (names.indexOf(name) != names.lastIndexOf(name))
            {
                final List<String> paths = new ArrayList<>(names.size());
                for (final CsvResults file : files)
                {
                    paths.add(file.name());
                }
                return paths;
            }
        }
        return names;
    }

    private static String machines(final List<CsvResults> files)
    {
        final Set<String> machines = new LinkedHashSet<>();
        for (final CsvResults file : files)
        {
            final Map<String, String> h = file.header();
            if (h.containsKey("hostname"))
            {
                machines.add(h.get("hostname") + " (" + h.getOrDefault("cores", "?") + " cores, " +
                    h.getOrDefault("os", "?") + "), " + h.getOrDefault("java.vm.name", "Java") + " " +
                    h.getOrDefault("java.version", "?") + ", jccl " + h.getOrDefault("jccl.version", "?"));
            }
        }
        return String.join("; ", machines);
    }

    private static void require(final CsvResults file, final String column)
    {
        if (!file.hasColumn(column))
        {
            throw new IllegalArgumentException(file.name() + " has no column '" + column + "'" +
                (ResultRecord.COMBINATION.equals(column) ? " (not a --sweep file: use --by file or plan)" : ""));
        }
    }

    private static long parseLong(final CsvResults file, final Map<String, String> row, final String column)
    {
        try
        {
            return Long.parseLong(row.get(column));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(file.name() + ": " + column + " '" + row.get(column) +
                "' is not an integer", ex);
        }
    }

    private static double parseDouble(final CsvResults file, final Map<String, String> row, final String column)
    {
        final String text = row.get(column);
        if (CsvResultsWriter.NOT_AVAILABLE.equals(text) || text.isEmpty())
        {
            return Double.NaN;
        }
        try
        {
            return Double.parseDouble(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(file.name() + ": " + column + " '" + text + "' is not a number", ex);
        }
    }
}
