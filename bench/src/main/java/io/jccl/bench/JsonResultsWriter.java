package io.jccl.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.util.Map;

/**
 * A result file as JSON ({@code -J/--output_file}, nccl-tests' flag, or {@code --json}): one object with a
 * {@code header} object ({@link RunInfo#entries()}, {@code cores} a number) and a {@code rows} array of one object
 * per record ({@link ResultRecord#fields()}: numbers as numbers, a value not measured as {@code null}), one record per
 * line. Written as the rows come: an interrupted run leaves the array unterminated. Hand-written, as nccl-tests'
 * own, to keep a JSON library out of the tools; strings are escaped as RFC 8259 requires.
 */
public final class JsonResultsWriter implements ResultsWriter
{
    private final Writer out;
    private boolean firstRecord = true;

    /**
     * @param out where the file goes; closed by {@link #close()}.
     */
    public JsonResultsWriter(final Writer out)
    {
        this.out = out;
    }

    @Override
    public void header(final RunInfo info)
    {
        final StringBuilder sb = new StringBuilder("{\n  \"header\": {");
        String separator = "\n    ";
        for (final Map.Entry<String, String> entry : info.entries().entrySet())
        {
            sb.append(separator).append(string(entry.getKey())).append(": ");
            sb.append("cores".equals(entry.getKey()) ? entry.getValue() : string(entry.getValue()));
            separator = ",\n    ";
        }
        sb.append("\n  },\n  \"rows\": [");
        write(sb.toString());
    }

    @Override
    public void record(final ResultRecord record)
    {
        final StringBuilder sb = new StringBuilder(firstRecord ? "\n    {" : ",\n    {");
        firstRecord = false;
        String separator = "";
        for (final Map.Entry<String, Object> field : record.fields().entrySet())
        {
            sb.append(separator).append(string(field.getKey())).append(": ").append(value(field.getValue()));
            separator = ", ";
        }
        write(sb.append('}').toString());
    }

    @Override
    public void close()
    {
        try
        {
            out.write(firstRecord ? "]\n}\n" : "\n  ]\n}\n");
            out.close();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static String value(final Object value)
    {
        if (value == null)
        {
            return "null";
        }
        if (value instanceof BigDecimal decimal)
        {
            return decimal.toPlainString();
        }
        return value instanceof Long ? value.toString() : string(value.toString());
    }

    /**
     * @param text any text.
     * @return it as a JSON string: in quotes, with quote, backslash and every control character escaped.
     */
    static String string(final String text)
    {
        final StringBuilder sb = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default ->
                {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029')
                    {
                        // U+2028 and U+2029 are valid JSON but end a line in JavaScript: escape them as well
                        sb.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    private void write(final String text)
    {
        ResultsWriter.writeFlushed(out, text);
    }
}
