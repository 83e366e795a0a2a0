package io.jccl.bench;

import org.jfree.chart.LegendItem;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;

import java.awt.BasicStroke;
import java.awt.Shape;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Lines in the plots' colours whose points show a marker only where a predicate says (the best combination at a
 * size, a task's converged plan); the legend names the lines and shows no marker.
 */
final class MarkerLineRenderer extends XYLineAndShapeRenderer
{
    private static final long serialVersionUID = 1L;

    /** Which points of a series are marked. */
    interface Marks
    {
        /**
         * @param series the series.
         * @param item   the point.
         * @return true to draw the point's marker.
         */
        boolean marked(int series, int item);
    }

    private final transient Object model;
    private final transient Marks marks;

    /**
     * @param model  the plot model (equality and hash only).
     * @param series how many series.
     * @param thick  which series are drawn thick.
     * @param marker the marker's shape.
     * @param marks  which points are marked.
     */
    MarkerLineRenderer(final Object model, final int series, final IntPredicate thick, final Shape marker,
        final Marks marks)
    {
        super(true, true);
        this.model = model;
        this.marks = marks;
        for (int i = 0; i < series; i++)
        {
            setSeriesPaint(i, PlotStyle.color(i));
            setSeriesStroke(i, new BasicStroke(thick.test(i) ? PlotStyle.THICK_LINE_WIDTH : PlotStyle.LINE_WIDTH,
                BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
            setSeriesShape(i, marker);
        }
    }

    @Override
    public boolean getItemShapeVisible(final int series, final int item)
    {
        return marks.marked(series, item);
    }

    @Override
    public LegendItem getLegendItem(final int datasetIndex, final int series)
    {
        final LegendItem item = super.getLegendItem(datasetIndex, series);
        if (item != null)
        {
            // the legend names the lines; a marker's meaning is the chart's subtitle, not a legend entry
            item.setShapeVisible(false);
        }
        return item;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof MarkerLineRenderer renderer && Objects.equals(renderer.model, model) &&
            super.equals(other);
    }

    @Override
    public int hashCode()
    {
        return Objects.hashCode(model);
    }
}
