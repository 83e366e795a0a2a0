package io.jccl.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A result file read back ({@link CsvResultsWriter} wrote it): the {@code # key=value} header lines, the column
 * names, and each record as column name to text. Fields follow RFC 4180 (quoted fields may hold commas, doubled
 * quotes and line breaks); lines that start with {@code #} outside a quoted field are comments, and those of the form
 * {@code # key=value} are the header. Immutable.
 */
public final class CsvResults
{
    private final String name;
    private final Map<String, String> header;
    private final List<String> columns;
    private final List<Map<String, String>> rows;

    private CsvResults(final String name, final Map<String, String> header, final List<String> columns,
        final List<Map<String, String>> rows)
    {
        this.name = name;
        this.header = Collections.unmodifiableMap(header);
        this.columns = List.copyOf(columns);
        this.rows = List.copyOf(rows);
    }

    /**
     * @param file a result file.
     * @return its contents.
     * @throws IOException if it cannot be read.
     * @throws IllegalArgumentException listing every malformed line: no column line, a record whose field count
     *                                  differs from the columns', a quote left open.
     */
    public static CsvResults read(final Path file) throws IOException
    {
        return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
    }

    /**
     * @param name what the errors call the text (its file).
     * @param text a result file's text.
     * @return its contents.
     * @throws IllegalArgumentException listing every malformed line, as {@link #read(Path)}.
     */
    public static CsvResults parse(final String name, final String text)
    {
        final Map<String, String> header = new LinkedHashMap<>();
        final List<String> errors = new ArrayList<>();
        List<String> columns = null;
        final List<Map<String, String>> rows = new ArrayList<>();
        int line = 1;
        int at = 0;
        while (at < text.length())
        {
            final int recordLine = line;
            if (text.charAt(at) == '#')
            {
                final int end = lineEnd(text, at);
                comment(text.substring(at + 1, end), header);
                at = skipLineBreak(text, end);
                line++;
                continue;
            }
            final List<String> fields = new ArrayList<>();
            final StringBuilder field = new StringBuilder();
            boolean quoted = false;
            boolean recordEnded = false;
            while (at < text.length() && !recordEnded)
            {
                final char c = text.charAt(at);
                if (quoted)
                {
                    if (c == '"' && at + 1 < text.length() && text.charAt(at + 1) == '"')
                    {
                        field.append('"');
                        at += 2;
                        continue;
                    }
                    if (c == '"')
                    {
                        quoted = false;
                    }
                    else
                    {
                        line += c == '\n' ? 1 : 0;
                        field.append(c);
                    }
                    at++;
                }
                else if (c == '"' && field.length() == 0)
                {
                    quoted = true;
                    at++;
                }
                else if (c == ',')
                {
                    fields.add(field.toString());
                    field.setLength(0);
                    at++;
                }
                else if (c == '\n' || c == '\r')
                {
                    at = skipLineBreak(text, at);
                    line++;
                    recordEnded = true;
                }
                else
                {
                    field.append(c);
                    at++;
                }
            }
            if (quoted)
            {
                errors.add(name + ":" + recordLine + ": a quoted field is not closed");
                break;
            }
            fields.add(field.toString());
            if (fields.size() == 1 && fields.get(0).isEmpty())
            {
                continue;
            }
            if (columns == null)
            {
                columns = fields;
            }
            else if (fields.size() != columns.size())
            {
                errors.add(name + ":" + recordLine + ": " + fields.size() + " fields, but " + columns.size() +
                    " columns");
            }
            else
            {
                final Map<String, String> row = new LinkedHashMap<>();
                for (int i = 0; i < fields.size(); i++)
                {
                    row.put(columns.get(i), fields.get(i));
                }
                rows.add(Collections.unmodifiableMap(row));
            }
        }
        if (columns == null)
        {
            errors.add(name + ": no line of column names");
        }
        if (!errors.isEmpty())
        {
            throw new IllegalArgumentException(name + " had " + errors.size() + " error" +
                (errors.size() == 1 ? "" : "s") + ": " + String.join("; ", errors));
        }
        return new CsvResults(name, header, columns, rows);
    }

    private static void comment(final String body, final Map<String, String> header)
    {
        final int equals = body.indexOf('=');
        final String key = equals < 0 ? "" : body.substring(0, equals).strip();
        if (!key.isEmpty() && key.indexOf(' ') < 0)
        {
            header.put(key, body.substring(equals + 1));
        }
    }

    private static int lineEnd(final String text, final int from)
    {
        int end = from;
        while (end < text.length() && text.charAt(end) != '\n' && text.charAt(end) != '\r')
        {
            end++;
        }
        return end;
    }

    private static int skipLineBreak(final String text, final int at)
    {
        if (at < text.length() && text.charAt(at) == '\r')
        {
            return at + 1 < text.length() && text.charAt(at + 1) == '\n' ? at + 2 : at + 1;
        }
        return at < text.length() ? at + 1 : at;
    }

    /** @return what the file was read from. */
    public String name()
    {
        return name;
    }

    /** @return the {@code # key=value} lines, in file order ({@link RunInfo#entries()}). */
    public Map<String, String> header()
    {
        return header;
    }

    /** @return the column names, in file order. */
    public List<String> columns()
    {
        return columns;
    }

    /**
     * @param column a column name.
     * @return true when the file has it.
     */
    public boolean hasColumn(final String column)
    {
        return columns.contains(column);
    }

    /** @return each record as column name to text, in file order. */
    public List<Map<String, String>> rows()
    {
        return rows;
    }
}
