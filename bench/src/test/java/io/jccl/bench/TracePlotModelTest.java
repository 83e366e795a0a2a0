package io.jccl.bench;

import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The trace plot's model from a synthetic {@code --trace} file: a series per task, its converged plan marked. */
class TracePlotModelTest
{
    private static final String SMALL = "allreduce/float/sum/r2/1024..2047/comm1";
    private static final String LARGE = "allreduce/float/sum/r2/65536..131071/comm1";

    private static final String TRACE = String.join("\n",
        "task,call,plan,ns,outcome",
        LARGE + ",0,ring/simple/p2p/c1/t256/k131072,90000,ok",
        SMALL + ",0,ring/simple/p2p/c1/t256/k131072,8000,ok",
        SMALL + ",1,ring/simple/p2p/c1/t256/k131072,6000,ok",
        SMALL + ",2,tree/ll/p2p/c1/t256/k32768,3000,ok",
        SMALL + ",3,ring/ll/p2p/c2/t256/k32768,9000,failed",
        SMALL + ",4,tree/ll/p2p/c1/t256/k32768,2000,ok",
        SMALL + ",5,tree/ll/p2p/c1/t256/k32768,4000,ok",
        LARGE + ",1,ring/simple/p2p/c2/t256/k131072,50000,ok",
        "");

    @Test
    void shouldGroupTrialsByTaskAndMarkTheLastPlanWhenTraceRead()
    {
        final TracePlotModel model = TracePlotModel.build(CsvResults.parse("/tmp/trace.csv", TRACE));

        // by size, though the larger task's trial came first
        assertEquals(2, model.series().size());
        final TracePlotModel.Series small = model.series().get(0);
        assertEquals(SMALL, small.task());
        assertEquals("tree/ll/p2p/c1/t256/k32768", small.finalPlan());
        assertEquals(SMALL + " -> tree/ll/p2p/c1/t256/k32768", small.name());
        // the failed call is left out; the converged plan's calls are marked, their median is the line
        assertEquals(List.of(0L, 1L, 2L, 4L, 5L), small.points().stream().map(TracePlotModel.Point::call).toList());
        assertEquals(List.of(8.0, 6.0, 3.0, 2.0, 4.0),
            small.points().stream().map(TracePlotModel.Point::timeUs).toList());
        assertEquals(List.of(false, false, true, true, true),
            small.points().stream().map(TracePlotModel.Point::converged).toList());
        assertEquals(3.0, small.finalUs());

        final TracePlotModel.Series large = model.series().get(1);
        assertEquals("ring/simple/p2p/c2/t256/k131072", large.finalPlan());
        assertEquals(List.of(false, true), large.points().stream().map(TracePlotModel.Point::converged).toList());
        assertEquals(50.0, large.finalUs());

        assertEquals(2.0, model.minUs());
        assertEquals(90.0, model.maxUs());
        assertEquals("Online tuner trials, trace.csv: 2 tasks", model.title());
        assertTrue(model.note().endsWith("; 1 failed or untimed trial left out"), model.note());
    }

    @Test
    void shouldReadTheSmallestSizeOfATaskFromItsName()
    {
        assertEquals(65536, TracePlotModel.minBytes(LARGE));
        assertEquals(0, TracePlotModel.minBytes("allreduce/float/sum/r2/0..0/comm3"));
        assertEquals(Long.MAX_VALUE, TracePlotModel.minBytes("no-range"));
    }

    @Test
    void shouldDrawALabelledLinePerTaskAtItsConvergedTime()
    {
        final JFreeChart chart = TraceChartWriter.chart(TracePlotModel.build(CsvResults.parse("trace.csv", TRACE)));
        final XYPlot plot = chart.getXYPlot();
        assertEquals(2, plot.getDataset().getSeriesCount());
        assertEquals(5, plot.getDataset().getItemCount(0));
        assertEquals(2, plot.getLegendItems().getItemCount());
        assertEquals(SMALL + " -> tree/ll/p2p/c1/t256/k32768", plot.getLegendItems().get(0).getLabel());
        final List<ValueMarker> markers = plot.getRangeMarkers(org.jfree.chart.ui.Layer.FOREGROUND).stream()
            .map(ValueMarker.class::cast).toList();
        assertEquals(List.of(3.0, 50.0), markers.stream().map(ValueMarker::getValue).toList());
        assertEquals(List.of("tree/ll/p2p/c1/t256/k32768", "ring/simple/p2p/c2/t256/k131072"),
            markers.stream().map(ValueMarker::getLabel).toList());
    }

    @Test
    void shouldRefuseFilesThatAreNotTraces()
    {
        final String results = "tool,ranks,size_bytes\nall_reduce_perf,2,8\n";
        final String noColumn = assertThrows(IllegalArgumentException.class,
            () -> TracePlotModel.build(CsvResults.parse("r.csv", results))).getMessage();
        assertTrue(noColumn.startsWith("r.csv has no column 'task': not a --trace file"), noColumn);

        final String badCall = assertThrows(IllegalArgumentException.class, () -> TracePlotModel.build(
            CsvResults.parse("t.csv", "task,call,plan,ns,outcome\n" + SMALL + ",x,p,1,ok\n"))).getMessage();
        assertEquals("t.csv: task " + SMALL + ": call 'x' is not an integer", badCall);

        final String allFailed = assertThrows(IllegalArgumentException.class, () -> TracePlotModel.build(
            CsvResults.parse("t.csv", "task,call,plan,ns,outcome\n" + SMALL + ",0,p,1,failed\n"))).getMessage();
        assertEquals("t.csv holds no trial with outcome ok and a time above 0", allFailed);
    }
}
