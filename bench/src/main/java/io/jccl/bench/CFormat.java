package io.jccl.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The few C {@code printf} conversions the nccl-tests table uses, reproduced exactly: glibc rounds the exact binary
 * value of a double half-to-even, where {@link String#format} rounds a decimal approximation half-up, so
 * {@code %.2f} of 0.125 is {@code 0.12} in C and {@code 0.13} in Java. {@code %g} also differs (C strips trailing
 * zeros and switches to exponent form by its own rule).
 */
public final class CFormat
{
    private static final MathContext G_PRECISION = new MathContext(6, RoundingMode.HALF_EVEN);

    private CFormat()
    {
    }

    /**
     * C's {@code %W.Pf}.
     *
     * @param value     the number.
     * @param width     minimum width, right-aligned.
     * @param precision digits after the point.
     * @return the text.
     */
    public static String fixed(final double value, final int width, final int precision)
    {
        final String special = special(value);
        if (special != null)
        {
            return padLeft(special, width);
        }
        String text = new BigDecimal(value).setScale(precision, RoundingMode.HALF_EVEN).toPlainString();
        if (isNegative(value) && text.charAt(0) != '-')
        {
            text = "-" + text;
        }
        return padLeft(text, width);
    }

    /**
     * C's {@code %Wg} (six significant digits, trailing zeros removed, exponent form below 1e-4 and from 1e6).
     *
     * @param value the number.
     * @param width minimum width, right-aligned (0 for none).
     * @return the text.
     */
    public static String general(final double value, final int width)
    {
        final String special = special(value);
        if (special != null)
        {
            return padLeft(special, width);
        }
        final String sign = isNegative(value) ? "-" : "";
        if (value == 0)
        {
            return padLeft(sign + "0", width);
        }
        final BigDecimal rounded = new BigDecimal(Math.abs(value)).round(G_PRECISION);
        final int exponent = rounded.precision() - rounded.scale() - 1;
        final String text;
        if (exponent < -4 || exponent >= G_PRECISION.getPrecision())
        {
            final String mantissa = stripZeros(rounded.movePointLeft(exponent).toPlainString());
            final int magnitude = Math.abs(exponent);
            text = mantissa + "e" + (exponent < 0 ? "-" : "+") + (magnitude < 10 ? "0" : "") + magnitude;
        }
        else
        {
            final int decimals = Math.max(0, G_PRECISION.getPrecision() - 1 - exponent);
            text = stripZeros(rounded.setScale(decimals, RoundingMode.HALF_EVEN).toPlainString());
        }
        return padLeft(sign + text, width);
    }

    /**
     * C's {@code %Ws}.
     *
     * @param text  the text.
     * @param width minimum width, right-aligned.
     * @return the text padded on the left with spaces.
     */
    public static String padLeft(final String text, final int width)
    {
        if (text.length() >= width)
        {
            return text;
        }
        return " ".repeat(width - text.length()) + text;
    }

    private static String special(final double value)
    {
        if (Double.isNaN(value))
        {
            return isNegative(value) ? "-nan" : "nan";
        }
        if (Double.isInfinite(value))
        {
            return value < 0 ? "-inf" : "inf";
        }
        return null;
    }

    private static boolean isNegative(final double value)
    {
        return (Double.doubleToRawLongBits(value) & Long.MIN_VALUE) != 0;
    }

    private static String stripZeros(final String plain)
    {
        if (plain.indexOf('.') < 0)
        {
            return plain;
        }
        int end = plain.length();
        while (plain.charAt(end - 1) == '0')
        {
            end--;
        }
        if (plain.charAt(end - 1) == '.')
        {
            end--;
        }
        return plain.substring(0, end);
    }
}
