package io.jccl.bench;

import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the plot draws, worked out from result files without drawing. */
class PlotModelTest
{
    private static final RunInfo INFO = new RunInfo("node1", 16, "Linux 6.1 amd64", "17.0.15",
        "OpenJDK 64-Bit Server VM", "0.1.0", "jccl-bench all_reduce_perf", "2025-01-01T00:00:00Z");

    /** A record of all_reduce_perf on 2 ranks with the given size, placement, bandwidth, plan and combination. */
    private static ResultRecord record(final String combination, final String placement, final long bytes,
        final double busBw, final String plan)
    {
        return new ResultRecord("all_reduce_perf", combination, 2, "host", "p2p", "float", "sum", -1, placement,
            bytes, bytes / 4, plan, 1.0, busBw, busBw, 0);
    }

    /** A result file's contents, written and read back as the tools do. */
    static CsvResults file(final String name, final boolean sweep, final List<ResultRecord> records)
    {
        final StringWriter text = new StringWriter();
        try (CsvResultsWriter writer = new CsvResultsWriter(text, sweep))
        {
            writer.header(INFO);
            records.forEach(writer::record);
        }
        return CsvResults.parse(name, text.toString());
    }

    /** Out-of-place and in-place records (in-place 10x lower) of the sizes and out-of-place bandwidths given. */
    static CsvResults run(final String name, final long[] sizes, final double[] busBw)
    {
        final List<ResultRecord> records = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++)
        {
            records.add(record(null, ResultRecord.OUT_OF_PLACE, sizes[i], busBw[i], "ring/ll/p2p/1ch/32K"));
            records.add(record(null, ResultRecord.IN_PLACE, sizes[i], busBw[i] / 10, "ring/ll/p2p/1ch/32K"));
        }
        return file(name, false, records);
    }

    private static List<Double> busBws(final PlotModel.Series series)
    {
        return series.points().stream().map(PlotModel.Point::busBw).toList();
    }

    private static List<Long> sizes(final PlotModel.Series series)
    {
        return series.points().stream().map(PlotModel.Point::bytes).toList();
    }

    @Test
    void shouldDrawLinePerFileWithEveryPointMarkedWhenFilesHaveNoCombination()
    {
        final PlotModel model = PlotModel.build(List.of(
            run("/tmp/p2p.csv", new long[] {0, 8, 1024, 1 << 20}, new double[] {0, 0.5, 2.0, 9.0}),
            run("/tmp/shm.csv", new long[] {8, 1024, 1 << 20}, new double[] {0.25, 1.0, Double.NaN})),
            null, ResultRecord.OUT_OF_PLACE);

        assertEquals(List.of("p2p", "shm"), model.series().stream().map(PlotModel.Series::name).toList());
        // size 0 has no place on a log axis; an unmeasured bandwidth is no point
        assertEquals(List.of(8L, 1024L, 1L << 20), sizes(model.series().get(0)));
        assertEquals(List.of(0.5, 2.0, 9.0), busBws(model.series().get(0)));
        assertEquals(List.of(8L, 1024L), sizes(model.series().get(1)));
        assertTrue(model.series().stream().flatMap(s -> s.points().stream()).allMatch(PlotModel.Point::marked));
        assertTrue(model.series().stream().noneMatch(PlotModel.Series::emphasized));
        assertEquals("all_reduce_perf bus bandwidth, 2 ranks, out-of-place", model.title());
        assertEquals("node1 (16 cores, Linux 6.1 amd64), OpenJDK 64-Bit Server VM 17.0.15, jccl 0.1.0",
            model.subtitle());
        assertEquals("", model.note());
        assertEquals(3, model.minExponent());
        assertEquals(20, model.maxExponent());
        assertEquals(9.0, model.maxBusBw());
        assertEquals(3.0, model.series().get(0).points().get(0).x(), 1e-12);

        final PlotModel inPlace = PlotModel.build(List.of(run("p2p.csv", new long[] {8}, new double[] {0.5})),
            PlotModel.GroupBy.FILE, ResultRecord.IN_PLACE);
        assertEquals(List.of(0.05), busBws(inPlace.series().get(0)));
        assertTrue(inPlace.title().endsWith(", in-place"), inPlace.title());
    }

    @Test
    void shouldMarkBestCombinationPerSizeAndThickenDefaultWhenSweepFile()
    {
        final List<ResultRecord> records = new ArrayList<>();
        final String[] combinations = {"proto=simple", "proto=ll", "default"};
        final double[][] busBw = {{1.0, 8.0}, {3.0, 6.0}, {2.0, 9.0}};
        for (int c = 0; c < combinations.length; c++)
        {
            records.add(record(combinations[c], ResultRecord.OUT_OF_PLACE, 8, busBw[c][0], "plan" + c));
            records.add(record(combinations[c], ResultRecord.IN_PLACE, 8, 0.1, "plan" + c));
            records.add(record(combinations[c], ResultRecord.OUT_OF_PLACE, 1 << 20, busBw[c][1], "plan" + c));
            records.add(record(combinations[c], ResultRecord.IN_PLACE, 1 << 20, 0.1, "plan" + c));
        }
        final CsvResults sweep = file("sweep.csv", true, records);
        final PlotModel model = PlotModel.build(List.of(sweep), null, ResultRecord.OUT_OF_PLACE);

        assertEquals(List.of("proto=simple", "proto=ll", "default"),
            model.series().stream().map(PlotModel.Series::name).toList());
        // ll is best at 8 bytes, simple at 1M; the default (best at 1M overall) is not a candidate
        assertEquals(List.of(false, true), model.series().get(0).points().stream().map(PlotModel.Point::marked)
            .toList());
        assertEquals(List.of(true, false), model.series().get(1).points().stream().map(PlotModel.Point::marked)
            .toList());
        assertEquals(List.of(false, false), model.series().get(2).points().stream().map(PlotModel.Point::marked)
            .toList());
        assertEquals(List.of(false, false, true), model.series().stream().map(PlotModel.Series::emphasized)
            .toList());
        assertTrue(model.note().contains("markers: the best combination at each size"), model.note());

        final PlotModel byPlan = PlotModel.build(List.of(sweep), PlotModel.GroupBy.PLAN, ResultRecord.OUT_OF_PLACE);
        assertEquals(List.of("plan0", "plan1", "plan2"), byPlan.series().stream().map(PlotModel.Series::name)
            .toList());
        assertFalse(byPlan.series().get(2).emphasized());

        final PlotModel twoFiles = PlotModel.build(List.of(sweep, file("other.csv", true, records)), null,
            ResultRecord.OUT_OF_PLACE);
        assertEquals(6, twoFiles.series().size());
        assertEquals("other: proto=ll", twoFiles.series().get(4).name());
        // each file has its own best
        assertEquals(List.of(true, false), twoFiles.series().get(4).points().stream()
            .map(PlotModel.Point::marked).toList());
    }

    @Test
    void shouldAverageRepeatedSizesAndNameVariantsWhenFilesMixTypesOrCycles()
    {
        final List<ResultRecord> records = new ArrayList<>();
        records.add(record(null, ResultRecord.OUT_OF_PLACE, 64, 1.0, "p"));
        records.add(record(null, ResultRecord.OUT_OF_PLACE, 64, 3.0, "p"));
        records.add(new ResultRecord("all_reduce_perf", null, 2, "host", "p2p", "double", "max", -1,
            ResultRecord.OUT_OF_PLACE, 64, 8, "p", 1, 5.0, 5.0, 0));
        final PlotModel model = PlotModel.build(List.of(file("a/run.csv", false, records),
            file("b/run.csv", false, records.subList(0, 1))), null, ResultRecord.OUT_OF_PLACE);
        assertEquals(List.of("a/run.csv float sum", "a/run.csv double max", "b/run.csv float sum"),
            model.series().stream().map(PlotModel.Series::name).toList());
        assertEquals(List.of(2.0), busBws(model.series().get(0)));
    }

    @Test
    void shouldRefuseWhenGroupingNeedsMissingColumnOrNothingToDraw()
    {
        final CsvResults plain = run("plain.csv", new long[] {8}, new double[] {1});
        final IllegalArgumentException noColumn = assertThrows(IllegalArgumentException.class,
            () -> PlotModel.build(List.of(plain), PlotModel.GroupBy.COMBINATION, ResultRecord.OUT_OF_PLACE));
        assertTrue(noColumn.getMessage().contains("plain.csv has no column 'combination' (not a --sweep file"),
            noColumn.getMessage());
        final CsvResults empty = run("zero.csv", new long[] {0}, new double[] {1});
        assertThrows(IllegalArgumentException.class,
            () -> PlotModel.build(List.of(empty), null, ResultRecord.OUT_OF_PLACE));
        assertThrows(IllegalArgumentException.class, () -> PlotModel.GroupBy.fromName("rank"));
        assertEquals(PlotModel.GroupBy.PLAN, PlotModel.GroupBy.fromName("plan"));
    }

    @Test
    void shouldTickEveryExponentOrEveryFewWhenAxisLong()
    {
        assertEquals(List.of(3, 4, 5, 6, 7, 8, 9, 10), PlotModel.xTickExponents(3, 10));
        assertEquals(List.of(3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25), PlotModel.xTickExponents(3, 26));
        assertEquals(List.of(10), PlotModel.xTickExponents(10, 10));
        assertEquals(List.of("8B", "1K", "64M", "2G"), List.of(PlotStyle.sizeLabel(3), PlotStyle.sizeLabel(10),
            PlotStyle.sizeLabel(26), PlotStyle.sizeLabel(31)));
    }
}
