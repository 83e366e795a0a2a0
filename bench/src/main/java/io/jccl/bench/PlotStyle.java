package io.jccl.bench;

import java.awt.Color;
import java.util.List;
import java.util.Locale;

/**
 * What the PNG ({@link ChartPlotWriter}) and the SVG ({@link SvgPlotWriter}) of a plot share, so that they look
 * alike: the series colours (a colour-blind-safe palette, Tableau's ten), line widths, marker size, image size.
 */
public final class PlotStyle
{
    /** The series colours, in series order, repeating after the last. */
    public static final List<Color> PALETTE = List.of(new Color(0x1f77b4), new Color(0xff7f0e),
        new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2),
        new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf));
    /** The width of a line, in pixels. */
    public static final float LINE_WIDTH = 1.5f;
    /** The width of an emphasized line (a sweep's default), in pixels. */
    public static final float THICK_LINE_WIDTH = 4f;
    /** The diameter of a marker, in pixels. */
    public static final double MARKER_SIZE = 7;
    /** The default image width, in pixels. */
    public static final int DEFAULT_WIDTH = 1000;
    /** The default image height, in pixels. */
    public static final int DEFAULT_HEIGHT = 640;

    private PlotStyle()
    {
    }

    /**
     * @param series a series' index.
     * @return its colour.
     */
    public static Color color(final int series)
    {
        return PALETTE.get(series % PALETTE.size());
    }

    /**
     * @param color a colour.
     * @return it as {@code #rrggbb}.
     */
    public static String hex(final Color color)
    {
        return String.format(Locale.ROOT, "#%06x", color.getRGB() & 0xffffff);
    }

    /**
     * @param exponent an exponent of 2.
     * @return the size label of 2 to that power: {@code 8B}, {@code 1K}, {@code 64M} ({@link Sizes#label}).
     */
    public static String sizeLabel(final int exponent)
    {
        return exponent < 0 ? "2^" + exponent : Sizes.label(1L << Math.min(exponent, 62));
    }
}
