package io.jccl.schedules.msccl;

import io.jccl.JcclInvalidArgumentException;

import java.util.List;

/**
 * An MSCCL XML schedule is malformed, structurally invalid or does not compute what it declares. Thrown once per
 * file, after every error was collected: the message lists them all ("had N errors"), each with its line and
 * element path, and {@link #errors()} holds them.
 */
public class MscclFormatException extends JcclInvalidArgumentException
{
    private static final long serialVersionUID = 1L;
    /** The message lists at most this many errors; {@link #errors()} holds all of them. */
    static final int MAX_LISTED = 200;

    /** The file or source name the errors were found in (part of the serialized form). */
    private final String source;
    private final transient List<MscclProblem> errors;

    /**
     * @param source the file or source name.
     * @param errors the errors found, at least one.
     */
    public MscclFormatException(final String source, final List<MscclProblem> errors)
    {
        super(message(source, errors));
        this.source = source;
        this.errors = List.copyOf(errors);
    }

    /** @return the file or source name. */
    public String source()
    {
        return source;
    }

    /** @return every error, in document order within each check. */
    public List<MscclProblem> errors()
    {
        return errors;
    }

    private static String message(final String source, final List<MscclProblem> errors)
    {
        final StringBuilder sb = new StringBuilder(source).append(" had ").append(errors.size())
            .append(errors.size() == 1 ? " error:" : " errors:");
        for (int i = 0; i < errors.size() && i < MAX_LISTED; i++)
        {
            sb.append("\n  ").append(errors.get(i));
        }
        if (errors.size() > MAX_LISTED)
        {
            sb.append("\n  ... and ").append(errors.size() - MAX_LISTED).append(" more (see errors())");
        }
        return sb.toString();
    }
}
