package io.jccl.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.util.Map;

/**
 * A result file as CSV ({@code --csv}): {@code #} comment lines first, the first naming the format and the others
 * {@code # key=value} ({@link RunInfo#entries()}), then a line of column names ({@link ResultRecord#columns}), then
 * one line per record. Fields are quoted as RFC 4180 says where they hold a comma, a quote or a line break; numbers
 * are plain decimals; a value not measured is {@value #NOT_AVAILABLE} (which pandas reads as NaN).
 * {@link CsvResults} reads it back.
 */
public final class CsvResultsWriter implements ResultsWriter
{
    /** The first line of the file. */
    public static final String FORMAT_LINE = "# jccl-bench results: one record per size and placement";
    /** What a field not measured holds. */
    public static final String NOT_AVAILABLE = "N/A";

    private final Writer out;
    private final boolean withCombination;

    /**
     * @param out             where the file goes; closed by {@link #close()}.
     * @param withCombination whether the file has the {@value ResultRecord#COMBINATION} column (a sweep's).
     */
    public CsvResultsWriter(final Writer out, final boolean withCombination)
    {
        this.out = out;
        this.withCombination = withCombination;
    }

    @Override
    public void header(final RunInfo info)
    {
        final StringBuilder sb = new StringBuilder(FORMAT_LINE).append('\n');
        for (final Map.Entry<String, String> entry : info.entries().entrySet())
        {
            // a comment line ends at the line break: keep each value on its line
            sb.append("# ").append(entry.getKey()).append('=')
                .append(entry.getValue().replace('\r', ' ').replace('\n', ' ')).append('\n');
        }
        sb.append(String.join(",", ResultRecord.columns(withCombination))).append('\n');
        write(sb.toString());
    }

    @Override
    public void record(final ResultRecord record)
    {
        final StringBuilder sb = new StringBuilder();
        String separator = "";
        for (final Object value : record.fields().values())
        {
            sb.append(separator).append(field(value));
            separator = ",";
        }
        write(sb.append('\n').toString());
    }

    @Override
    public void close()
    {
        try
        {
            out.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param value a field of {@link ResultRecord#fields()}.
     * @return it as a CSV field.
     */
    static String field(final Object value)
    {
        if (value == null)
        {
            return NOT_AVAILABLE;
        }
        final String text = value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString();
        return quote(text);
    }

    /**
     * @param text a field's text.
     * @return the text, in double quotes (inner quotes doubled) where it holds a comma, a quote, a line break, or
     *         space at either end.
     */
    static String quote(final String text)
    {
        final boolean needsQuotes = text.indexOf(',') >= 0 || text.indexOf('"') >= 0 || text.indexOf('\n') >= 0 ||
            text.indexOf('\r') >= 0 || !text.equals(text.strip());
        return needsQuotes ? '"' + text.replace("\"", "\"\"") + '"' : text;
    }

    private void write(final String text)
    {
        ResultsWriter.writeFlushed(out, text);
    }
}
