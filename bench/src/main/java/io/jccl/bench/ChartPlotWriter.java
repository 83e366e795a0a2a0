package io.jccl.bench;

import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Ellipse2D;
import java.io.IOException;
import java.io.OutputStream;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.List;

/**
 * Draws a {@link PlotModel} as a PNG with JFreeChart: sizes on the x axis at log2 positions, counted from the
 * smallest exponent so that the ticks fall on the measured sizes, labelled {@code 8B}, {@code 1K}, {@code 1M}; bus
 * bandwidth on the y axis from 0. Needs no display: the caller runs with {@code java.awt.headless=true}.
 */
public final class ChartPlotWriter
{
    private static final double X_MARGIN = 0.3;

    private ChartPlotWriter()
    {
    }

    /**
     * @param model  what to draw.
     * @param out    where the PNG goes; left open.
     * @param width  image width in pixels.
     * @param height image height in pixels.
     * @throws IOException if the PNG cannot be written.
     */
    public static void writePng(final PlotModel model, final OutputStream out, final int width, final int height)
        throws IOException
    {
        ChartUtils.writeChartAsPNG(out, chart(model), width, height);
    }

    /**
     * @param model what to draw.
     * @return the chart.
     */
    static JFreeChart chart(final PlotModel model)
    {
        final int minExponent = model.minExponent();
        final int maxExponent = Math.max(model.maxExponent(), minExponent);
        final XYSeriesCollection dataset = new XYSeriesCollection();
        for (final PlotModel.Series series : model.series())
        {
            final XYSeries xy = new XYSeries(series.name(), false, true);
            for (final PlotModel.Point point : series.points())
            {
                xy.add(point.x() - minExponent, point.busBw());
            }
            dataset.addSeries(xy);
        }

        final NumberAxis xAxis = new NumberAxis(model.xLabel());
        final List<Integer> ticks = PlotModel.xTickExponents(minExponent, maxExponent);
        final int step = ticks.size() > 1 ? ticks.get(1) - ticks.get(0) : 1;
        xAxis.setTickUnit(new NumberTickUnit(step, new SizeFormat(minExponent)));
        xAxis.setRange(-X_MARGIN, maxExponent - minExponent + X_MARGIN);
        final NumberAxis yAxis = new NumberAxis(model.yLabel());
        yAxis.setAutoRangeIncludesZero(true);

        final XYPlot plot = new XYPlot(dataset, xAxis, yAxis, new MarkerLineRenderer(model, model.series().size(),
            i -> model.series().get(i).emphasized(), circle(PlotStyle.MARKER_SIZE),
            (series, item) -> model.series().get(series).points().get(item).marked()));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);

        final JFreeChart chart = new JFreeChart(model.title(), JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        final Font small = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        for (final String line : new String[] {model.subtitle(), model.note()})
        {
            if (!line.isEmpty())
            {
                // a text title sits at the top, under the title; the legend stays at the bottom
                chart.addSubtitle(new TextTitle(line, small));
            }
        }
        return chart;
    }

    private static Ellipse2D circle(final double size)
    {
        return new Ellipse2D.Double(-size / 2, -size / 2, size, size);
    }

    /** Writes an x position (log2 of the size less the smallest exponent) as the size: 8B, 1K, 1M. */
    private static final class SizeFormat extends NumberFormat
    {
        private static final long serialVersionUID = 1L;
        private final int minExponent;

        SizeFormat(final int minExponent)
        {
            this.minExponent = minExponent;
        }

        @Override
        public StringBuffer format(final double number, final StringBuffer toAppendTo, final FieldPosition pos)
        {
            return toAppendTo.append(PlotStyle.sizeLabel((int)Math.round(number) + minExponent));
        }

        @Override
        public StringBuffer format(final long number, final StringBuffer toAppendTo, final FieldPosition pos)
        {
            return format((double)number, toAppendTo, pos);
        }

        @Override
        public Number parse(final String source, final ParsePosition parsePosition)
        {
            throw new UnsupportedOperationException("size labels are written, never read");
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof SizeFormat format && format.minExponent == minExponent;
        }

        @Override
        public int hashCode()
        {
            return minExponent;
        }
    }
}
