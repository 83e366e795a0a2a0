package io.jccl.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws a {@link PlotModel} as SVG text, laid out as {@link ChartPlotWriter}'s PNG (title, subtitles, axes with the
 * same size ticks, lines in the shared {@link PlotStyle}, legend below). Written here rather than with a
 * {@code Graphics2D}-to-SVG library: the one JFreeChart pairs with, JFreeSVG, is GPL, which the bench's runnable jar
 * must not carry; a chart of lines and text needs little SVG.
 */
public final class SvgPlotWriter
{
    private static final int LEFT = 80;
    private static final int RIGHT = 30;
    private static final int TOP = 16;
    private static final int TITLE_LINE = 24;
    private static final int SUBTITLE_LINE = 18;
    private static final int LEGEND_LINE = 20;
    private static final int SWATCH = 24;
    /** A rough width of a 12-pixel sans-serif character, to wrap the legend. */
    private static final double CHAR_WIDTH = 7;
    private static final double X_MARGIN = 0.3;
    private static final int Y_TICKS = 6;
    /** Enough digits for any nice step, few enough to drop the noise of its arithmetic. */
    private static final MathContext STEP_DIGITS = new MathContext(9);

    private SvgPlotWriter()
    {
    }

    /**
     * @param model  what to draw.
     * @param width  image width in pixels.
     * @param height image height in pixels.
     * @return the SVG document.
     */
    public static String svg(final PlotModel model, final int width, final int height)
    {
        final List<List<Integer>> legendRows = legendRows(model, width - LEFT - RIGHT);
        int y = TOP + TITLE_LINE;
        final StringBuilder sb = new StringBuilder(4096);
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" " +
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">%n", width, height, width, height));
        sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        text(sb, width / 2.0, y, "middle", 18, "bold", model.title());
        for (final String line : new String[] {model.subtitle(), model.note()})
        {
            if (!line.isEmpty())
            {
                y += SUBTITLE_LINE;
                text(sb, width / 2.0, y, "middle", 12, "normal", line);
            }
        }
        final double plotTop = y + 20;
        final double plotBottom = height - 50 - legendRows.size() * LEGEND_LINE;
        final double plotLeft = LEFT;
        final double plotRight = width - RIGHT;

        final int minExponent = model.minExponent();
        final int maxExponent = Math.max(model.maxExponent(), minExponent);
        final double xMin = minExponent - X_MARGIN;
        final double xMax = maxExponent + X_MARGIN;
        final double yStep = niceStep(model.maxBusBw() / (Y_TICKS - 1));
        final double yMax = yStep * Math.max(1, Math.ceil(model.maxBusBw() / yStep * 1.02));
        final Scale scale = new Scale(plotLeft, plotRight, plotTop, plotBottom, xMin, xMax, yMax);

        sb.append("<g stroke=\"#d3d3d3\" stroke-width=\"1\">\n");
        for (final int e : PlotModel.xTickExponents(minExponent, maxExponent))
        {
            line(sb, scale.x(e), plotTop, scale.x(e), plotBottom);
        }
        for (double v = 0; v <= yMax + yStep / 2; v += yStep)
        {
            line(sb, plotLeft, scale.y(v), plotRight, scale.y(v));
        }
        sb.append("</g>\n");
        sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" " +
            "fill=\"none\" stroke=\"black\"/>%n", plotLeft, plotTop, plotRight - plotLeft, plotBottom - plotTop));
        for (final int e : PlotModel.xTickExponents(minExponent, maxExponent))
        {
            text(sb, scale.x(e), plotBottom + 16, "middle", 11, "normal", PlotStyle.sizeLabel(e));
        }
        for (double v = 0; v <= yMax + yStep / 2; v += yStep)
        {
            text(sb, plotLeft - 6, scale.y(v) + 4, "end", 11, "normal", number(v, yStep));
        }
        text(sb, (plotLeft + plotRight) / 2, plotBottom + 36, "middle", 12, "normal", model.xLabel());
        sb.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"0\" transform=\"translate(%.1f,%.1f) rotate(-90)\" " +
            "text-anchor=\"middle\" font-size=\"12\">%s</text>%n", LEFT - 50.0, (plotTop + plotBottom) / 2,
            escape(model.yLabel())));

        for (int i = 0; i < model.series().size(); i++)
        {
            series(sb, model.series().get(i), i, scale);
        }
        legend(sb, model, legendRows, plotBottom + 50);
        sb.append("</svg>\n");
        return sb.toString();
    }

    /** From data to pixels. */
    private record Scale(double left, double right, double top, double bottom, double xMin, double xMax,
        double yMax)
    {
        double x(final double value)
        {
            return left + (value - xMin) / (xMax - xMin) * (right - left);
        }

        double y(final double value)
        {
            return bottom - value / yMax * (bottom - top);
        }
    }

    private static void series(final StringBuilder sb, final PlotModel.Series series, final int index,
        final Scale scale)
    {
        final String color = PlotStyle.hex(PlotStyle.color(index));
        final float width = series.emphasized() ? PlotStyle.THICK_LINE_WIDTH : PlotStyle.LINE_WIDTH;
        sb.append("<g>\n<title>").append(escape(series.name())).append("</title>\n");
        sb.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" " +
            "stroke-linejoin=\"round\" stroke-linecap=\"round\" points=\"", color, width));
        String separator = "";
        for (final PlotModel.Point point : series.points())
        {
            sb.append(separator).append(String.format(Locale.ROOT, "%.1f,%.1f", scale.x(point.x()),
                scale.y(point.busBw())));
            separator = " ";
        }
        sb.append("\"/>\n");
        for (final PlotModel.Point point : series.points())
        {
            if (point.marked())
            {
                sb.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>%n",
                    scale.x(point.x()), scale.y(point.busBw()), PlotStyle.MARKER_SIZE / 2, color));
            }
        }
        sb.append("</g>\n");
    }

    /** @return the series indexes of each legend row, filled left to right within the width. */
    private static List<List<Integer>> legendRows(final PlotModel model, final double width)
    {
        final List<List<Integer>> rows = new ArrayList<>();
        List<Integer> row = new ArrayList<>();
        double used = 0;
        for (int i = 0; i < model.series().size(); i++)
        {
            final double entry = entryWidth(model.series().get(i));
            if (!row.isEmpty() && used + entry > width)
            {
                rows.add(row);
                row = new ArrayList<>();
                used = 0;
            }
            row.add(i);
            used += entry;
        }
        if (!row.isEmpty())
        {
            rows.add(row);
        }
        return rows;
    }

    private static double entryWidth(final PlotModel.Series series)
    {
        return SWATCH + 6 + series.name().length() * CHAR_WIDTH + 20;
    }

    private static void legend(final StringBuilder sb, final PlotModel model, final List<List<Integer>> rows,
        final double top)
    {
        double y = top;
        for (final List<Integer> row : rows)
        {
            double x = LEFT;
            for (final int i : row)
            {
                final PlotModel.Series series = model.series().get(i);
                sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" " +
                    "stroke=\"%s\" stroke-width=\"%.1f\"/>%n", x, y - 4, x + SWATCH, y - 4,
                    PlotStyle.hex(PlotStyle.color(i)),
                    series.emphasized() ? PlotStyle.THICK_LINE_WIDTH : PlotStyle.LINE_WIDTH));
                text(sb, x + SWATCH + 6, y, "start", 12, "normal", series.name());
                x += entryWidth(series);
            }
            y += LEGEND_LINE;
        }
    }

    /**
     * @param rough a step about the size wanted.
     * @return the step of 1, 2, 2.5 or 5 times a power of ten at or above it (1 for 0 or less).
     */
    static double niceStep(final double rough)
    {
        if (!(rough > 0))
        {
            return 1;
        }
        final double power = Math.pow(10, Math.floor(Math.log10(rough)));
        for (final double factor : new double[] {1, 2, 2.5, 5, 10})
        {
            if (factor * power >= rough * (1 - 1e-9))
            {
                return factor * power;
            }
        }
        return 10 * power;
    }

    /** A tick value with as many decimals as the step has (2.5 -> one, 0.25 -> two). */
    private static String number(final double value, final double step)
    {
        final int decimals = Math.max(0, new BigDecimal(step).round(STEP_DIGITS).stripTrailingZeros().scale());
        return String.format(Locale.ROOT, "%." + Math.min(decimals, 9) + "f", value);
    }

    private static void line(final StringBuilder sb, final double x1, final double y1, final double x2,
        final double y2)
    {
        sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>%n", x1, y1,
            x2, y2));
    }

    private static void text(final StringBuilder sb, final double x, final double y, final String anchor,
        final int size, final String weight, final String text)
    {
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\" " +
            "font-weight=\"%s\">%s</text>%n", x, y, anchor, size, weight, escape(text)));
    }

    /**
     * @param text any text.
     * @return it safe in XML content and attribute values: {@code & < > " '} as entities, and control characters
     *         that XML 1.0 forbids dropped.
     */
    static String escape(final String text)
    {
        final StringBuilder sb = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&apos;");
                default ->
                {
                    if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r')
                    {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
