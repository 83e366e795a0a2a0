package io.jccl.bench;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for the tests (RFC 8259: objects, arrays, strings with every escape, numbers, true, false,
 * null; nothing after the value but white space), so that the result files are checked by a parser that did not
 * write them. Objects become {@link LinkedHashMap}s, arrays {@link List}s, numbers {@link BigDecimal}s.
 */
final class MiniJson
{
    private final String text;
    private int at;

    private MiniJson(final String text)
    {
        this.text = text;
    }

    /**
     * @param text a JSON document.
     * @return its value.
     * @throws IllegalArgumentException at the first character that is not JSON.
     */
    static Object parse(final String text)
    {
        final MiniJson parser = new MiniJson(text);
        final Object value = parser.value();
        parser.skipSpace();
        if (parser.at != text.length())
        {
            throw parser.error("text after the value");
        }
        return value;
    }

    private Object value()
    {
        skipSpace();
        if (at >= text.length())
        {
            throw error("end of text");
        }
        final char c = text.charAt(at);
        return switch (c)
        {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> object = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (peek() == '}')
        {
            at++;
            return object;
        }
        while (true)
        {
            skipSpace();
            final String key = string();
            skipSpace();
            expect(':');
            if (object.put(key, value()) != null)
            {
                throw error("key " + key + " twice");
            }
            skipSpace();
            if (peek() == ',')
            {
                at++;
                continue;
            }
            expect('}');
            return object;
        }
    }

    private List<Object> array()
    {
        final List<Object> array = new ArrayList<>();
        at++;
        skipSpace();
        if (peek() == ']')
        {
            at++;
            return array;
        }
        while (true)
        {
            array.add(value());
            skipSpace();
            if (peek() == ',')
            {
                at++;
                continue;
            }
            expect(']');
            return array;
        }
    }

    private String string()
    {
        expect('"');
        final StringBuilder sb = new StringBuilder();
        while (true)
        {
            if (at >= text.length())
            {
                throw error("unterminated string");
            }
            final char c = text.charAt(at++);
            if (c == '"')
            {
                return sb.toString();
            }
            if (c < 0x20)
            {
                throw error("control character in a string");
            }
            if (c != '\\')
            {
                sb.append(c);
                continue;
            }
            final char e = text.charAt(at++);
            switch (e)
            {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' ->
                {
                    sb.append((char)Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> throw error("bad escape \\" + e);
            }
        }
    }

    private BigDecimal number()
    {
        final int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0)
        {
            at++;
        }
        final String number = text.substring(start, at);
        if (!number.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?"))
        {
            throw error("not a number: '" + number + "'");
        }
        return new BigDecimal(number);
    }

    private Object literal(final String word, final Object value)
    {
        if (!text.startsWith(word, at))
        {
            throw error("expected " + word);
        }
        at += word.length();
        return value;
    }

    private void expect(final char c)
    {
        if (peek() != c)
        {
            throw error("expected '" + c + "'");
        }
        at++;
    }

    private char peek()
    {
        return at < text.length() ? text.charAt(at) : '\0';
    }

    private void skipSpace()
    {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0)
        {
            at++;
        }
    }

    private IllegalArgumentException error(final String what)
    {
        return new IllegalArgumentException(what + " at offset " + at);
    }
}
