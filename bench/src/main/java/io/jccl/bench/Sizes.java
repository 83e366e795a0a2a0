package io.jccl.bench;

import io.jccl.Settings;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Numbers on the command line as nccl-tests reads them: byte sizes with an optional {@code K}, {@code M} or
 * {@code G} suffix (binary units, fractions allowed: {@code 1.5M}), integers in C's {@code strtol(s, NULL, 0)}
 * notation ({@code 0x10}, {@code 010}), and the sequence of message sizes a run sweeps.
 */
public final class Sizes
{
    private static final Pattern INTEGER = Pattern.compile("\\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)\\s*");

    private Sizes()
    {
    }

    /**
     * A byte size as a short label, the way sizes are given on the command line: {@code 8B}, {@code 512B},
     * {@code 1K}, {@code 1.5K}, {@code 64M}, {@code 2G} (binary units; at most two decimals, trailing zeros dropped).
     * {@link #parseSize} reads every label back to the size, except where two decimals round.
     *
     * @param bytes a size, not negative.
     * @return the label.
     */
    public static String label(final long bytes)
    {
        final String[] suffixes = {"G", "M", "K"};
        final long[] units = {1L << 30, 1L << 20, 1L << 10};
        for (int i = 0; i < units.length; i++)
        {
            if (bytes >= units[i])
            {
                if (bytes % units[i] == 0)
                {
                    return bytes / units[i] + suffixes[i];
                }
                final String decimal = String.format(Locale.ROOT, "%.2f", (double)bytes / units[i]);
                return decimal.replaceAll("\\.?0+$", "") + suffixes[i];
            }
        }
        return bytes + "B";
    }

    /**
     * Parses a byte size as nccl-tests' {@code parsesize}: a number, optionally followed by {@code K}, {@code M} or
     * {@code G} (any case, powers of 1024, an optional trailing {@code B} or {@code iB} is accepted); the product is
     * truncated to whole bytes.
     *
     * @param text the argument, e.g. {@code 8}, {@code 128M}, {@code 1.5K}.
     * @return the size in bytes.
     * @throws IllegalArgumentException if the text is not a size.
     */
    public static long parseSize(final String text)
    {
        return Settings.parseBytes(text);
    }

    /**
     * Parses an integer as C's {@code strtol(text, NULL, 0)} does (decimal, {@code 0x} hexadecimal, leading-zero
     * octal, optional sign), but strictly: the whole text must be the number.
     *
     * @param text the argument.
     * @return the value.
     * @throws IllegalArgumentException if the text is not an integer.
     */
    public static long parseInteger(final String text)
    {
        final Matcher matcher = text == null ? null : INTEGER.matcher(text);
        if (matcher == null || !matcher.matches())
        {
            throw new IllegalArgumentException("'" + text + "' is not an integer");
        }
        final String digits = matcher.group(2);
        final long magnitude;
        try
        {
            if (digits.length() > 2 && (digits.charAt(1) == 'x' || digits.charAt(1) == 'X'))
            {
                magnitude = Long.parseLong(digits.substring(2), 16);
            }
            else if (digits.length() > 1 && digits.charAt(0) == '0')
            {
                magnitude = Long.parseLong(digits.substring(1), 8);
            }
            else
            {
                magnitude = Long.parseLong(digits);
            }
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("'" + text + "' is out of range");
        }
        return "-".equals(matcher.group(1)) ? -magnitude : magnitude;
    }

    /**
     * The sizes a run sweeps, as nccl-tests' loop
     * {@code for (size = min; size <= max; size = factor > 1 ? size * factor : size + step)}.
     *
     * @param minBytes   first size.
     * @param maxBytes   last size (inclusive), at least minBytes.
     * @param stepBytes  increment when stepFactor is at most 1.
     * @param stepFactor multiplier when greater than 1.
     * @return the sizes in order.
     * @throws IllegalArgumentException if the sequence would never reach maxBytes (a zero step, or a factor applied
     *                                  to zero).
     */
    public static List<Long> sequence(final long minBytes, final long maxBytes, final long stepBytes,
        final long stepFactor)
    {
        if (minBytes < 0 || maxBytes < minBytes)
        {
            throw new IllegalArgumentException("invalid sizes for 'minbytes' and 'maxbytes': " + minBytes + " > " +
                maxBytes);
        }
        final List<Long> sizes = new ArrayList<>();
        long size = minBytes;
        while (size <= maxBytes)
        {
            sizes.add(size);
            final long next;
            if (stepFactor > 1)
            {
                next = size > Long.MAX_VALUE / stepFactor ? Long.MAX_VALUE : size * stepFactor;
            }
            else
            {
                next = size > Long.MAX_VALUE - stepBytes ? Long.MAX_VALUE : size + stepBytes;
            }
            if (next <= size)
            {
                if (size == maxBytes)
                {
                    break;
                }
                throw new IllegalArgumentException(stepFactor > 1 ?
                    "stepfactor " + stepFactor + " never advances from minbytes " + size :
                    "stepbytes " + stepBytes + " never advances from minbytes " + size + " to maxbytes " + maxBytes);
            }
            size = next;
        }
        return sizes;
    }
}
