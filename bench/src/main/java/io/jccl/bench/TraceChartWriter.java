package io.jccl.bench;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.io.OutputStream;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;

/**
 * Draws a {@link TracePlotModel} as a PNG with JFreeChart: the call index of each task on the x axis, its time on a
 * log y axis, a thin line per task in the shared {@link PlotStyle} colours, a square marker on each call of the
 * task's converged plan, and a dashed horizontal line at that plan's median time, labelled with the plan. Needs no
 * display: the caller runs with {@code java.awt.headless=true}.
 */
public final class TraceChartWriter
{
    private static final float[] DASH = {6f, 4f};
    private static final Color LABEL_BACKGROUND = new Color(255, 255, 255, 210);

    private TraceChartWriter()
    {
    }

    /**
     * @param model  what to draw.
     * @param out    where the PNG goes; left open.
     * @param width  image width in pixels.
     * @param height image height in pixels.
     * @throws IOException if the PNG cannot be written.
     */
    public static void writePng(final TracePlotModel model, final OutputStream out, final int width,
        final int height) throws IOException
    {
        ChartUtils.writeChartAsPNG(out, chart(model), width, height);
    }

    /**
     * @param model what to draw.
     * @return the chart.
     */
    static JFreeChart chart(final TracePlotModel model)
    {
        final XYSeriesCollection dataset = new XYSeriesCollection();
        for (final TracePlotModel.Series series : model.series())
        {
            final XYSeries xy = new XYSeries(series.name(), false, true);
            for (final TracePlotModel.Point point : series.points())
            {
                xy.add(point.call(), point.timeUs());
            }
            dataset.addSeries(xy);
        }
        final NumberAxis xAxis = new NumberAxis(model.xLabel());
        xAxis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        final LogAxis yAxis = new LogAxis(model.yLabel());
        yAxis.setSmallestValue(Math.min(1e-3, model.minUs() / 2));
        yAxis.setRange(model.minUs() / 1.5, model.maxUs() * 1.5);
        // a tick per decade, written as the time (10, 100, 1000) rather than as a power of ten
        yAxis.setTickUnit(new NumberTickUnit(1.0));
        yAxis.setMinorTickCount(9);
        yAxis.setMinorTickMarksVisible(true);
        yAxis.setNumberFormatOverride(new DecimalFormat("#,##0.###", DecimalFormatSymbols.getInstance(Locale.ROOT)));

        final XYPlot plot = new XYPlot(dataset, xAxis, yAxis, new MarkerLineRenderer(model, model.series().size(),
            i -> false, new Rectangle2D.Double(-PlotStyle.MARKER_SIZE / 2, -PlotStyle.MARKER_SIZE / 2,
            PlotStyle.MARKER_SIZE, PlotStyle.MARKER_SIZE),
            (series, item) -> model.series().get(series).points().get(item).converged()));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        final Font labelFont = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
        for (int i = 0; i < model.series().size(); i++)
        {
            final TracePlotModel.Series series = model.series().get(i);
            final ValueMarker marker = new ValueMarker(series.finalUs(), PlotStyle.color(i),
                new BasicStroke(PlotStyle.LINE_WIDTH, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, DASH, 0f));
            marker.setLabel(series.finalPlan());
            marker.setLabelFont(labelFont);
            marker.setLabelPaint(PlotStyle.color(i));
            marker.setLabelBackgroundColor(LABEL_BACKGROUND);
            // at the left: the converged plan's markers crowd the right end, where the search ends
            marker.setLabelAnchor(RectangleAnchor.TOP_LEFT);
            marker.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
            plot.addRangeMarker(marker);
        }

        final JFreeChart chart = new JFreeChart(model.title(), JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        chart.addSubtitle(new TextTitle(model.note(), new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
        return chart;
    }
}
