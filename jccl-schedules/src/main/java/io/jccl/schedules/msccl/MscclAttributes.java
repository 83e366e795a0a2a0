package io.jccl.schedules.msccl;

import io.jccl.schedules.BufferKind;

import java.util.Set;

/**
 * The attributes of one element of an MSCCL XML document: typed reads (numbers as C's {@code strtol} reads them,
 * flags, buffer names) that report every problem at the element, into the read's {@link MscclProblems}.
 */
final class MscclAttributes
{
    private final MscclProblems problems;
    private final MscclElement element;
    private final Set<String> known;

    /**
     * @param problems where to report problems.
     * @param element  the element.
     * @param known    the attribute names it may have; {@link #reportUnknown()} warns about the others.
     */
    MscclAttributes(final MscclProblems problems, final MscclElement element, final Set<String> known)
    {
        this.problems = problems;
        this.element = element;
        this.known = known;
    }

    /**
     * @param name an attribute name.
     * @return whether the element has it.
     */
    boolean has(final String name)
    {
        return element.attrs.containsKey(name);
    }

    /**
     * Reports an error at the element.
     *
     * @param message what is wrong.
     */
    void error(final String message)
    {
        problems.error(element.line, element.path, message);
    }

    /**
     * Reports a warning at the element.
     *
     * @param message what is suspicious.
     */
    void warning(final String message)
    {
        problems.warning(element.line, element.path, message);
    }

    /**
     * Reports at the element what MSCCL's C executors would refuse or mis-run.
     *
     * @param message what MSCCL's C executors would refuse or mis-run.
     */
    void cExecutor(final String message)
    {
        problems.cExecutor(element.line, element.path, message);
    }

    /** Warns about every attribute the element may not have. */
    void reportUnknown()
    {
        for (final String name : element.attrs.keySet())
        {
            if (!known.contains(name))
            {
                warning("attribute " + name + " ignored");
            }
        }
    }

    /**
     * @param name     an attribute name.
     * @param required whether its absence is an error.
     * @return its value, or null when absent.
     */
    String string(final String name, final boolean required)
    {
        final String value = element.attrs.get(name);
        if (value == null && required)
        {
            error("missing attribute " + name);
        }
        return value;
    }

    /**
     * @param name     an attribute name.
     * @param required whether its absence is an error.
     * @param min      the least value allowed.
     * @param max      the largest value allowed.
     * @return its value, or null when absent or wrong (reported).
     */
    Integer integer(final String name, final boolean required, final long min, final long max)
    {
        final Long value = int64(name, required);
        if (value == null)
        {
            return null;
        }
        if (value < min || value > max)
        {
            error(name + "=" + element.attrs.get(name).strip() + " is out of range [" + min + ", " + max +
                "]");
            return null;
        }
        return value.intValue();
    }

    /**
     * @param name     an attribute name.
     * @param required whether its absence is an error.
     * @return its value, 0 or 1 (any other number is read as 1, with a warning), or null when absent or wrong.
     */
    Integer flag(final String name, final boolean required)
    {
        final Integer value = integer(name, required, Integer.MIN_VALUE, Integer.MAX_VALUE);
        if (value != null && value != 0 && value != 1)
        {
            warning(name + "=" + value + " read as 1 (expected 0 or 1)");
            return 1;
        }
        return value;
    }

    /**
     * @param name     an attribute name.
     * @param required whether its absence is an error.
     * @return its value, or null when absent or not a number (reported).
     */
    Long int64(final String name, final boolean required)
    {
        final String raw = string(name, required);
        if (raw == null)
        {
            return null;
        }
        final long[] parsed = MscclReader.parseC(raw);
        if (parsed == null)
        {
            error(name + "=\"" + MscclReader.shorten(raw) + "\" is not an integer");
            return null;
        }
        if (parsed[1] != 10)
        {
            warning(name + "=\"" + raw.strip() + "\" read as " + (parsed[1] == 16 ? "hexadecimal" :
                "octal") + " " + parsed[0] + ", as MSCCL's C parser (strtol base 0) reads it");
        }
        return parsed[0];
    }

    /**
     * @param name     an attribute name.
     * @param required whether its absence is an error.
     * @return the buffer it names ({@code i}, {@code o} or {@code s}), or null when absent or wrong (reported).
     */
    BufferKind buffer(final String name, final boolean required)
    {
        final String raw = string(name, required);
        if (raw == null)
        {
            return null;
        }
        return switch (raw)
        {
            case "i" -> BufferKind.INPUT;
            case "o" -> BufferKind.OUTPUT;
            case "s" -> BufferKind.SCRATCH;
            default ->
            {
                error(name + "=\"" + MscclReader.shorten(raw) + "\" is not a buffer (i, o or s)");
                yield null;
            }
        };
    }
}
