package io.jccl.autotune;

import io.jccl.JcclInvalidArgumentException;

import java.util.List;

/**
 * A tuner table is malformed. The message has one {@code file:line: reason} per error found; a parser reports every
 * error of the file at once.
 */
public class TunerConfigException extends JcclInvalidArgumentException
{
    private static final long serialVersionUID = 1L;

    /** The errors, each {@code file:line: reason}. */
    private final List<String> errors;

    /**
     * @param sourceName the file or source the errors are in.
     * @param errors     the errors, each {@code file:line: reason}, at least one.
     */
    public TunerConfigException(final String sourceName, final List<String> errors)
    {
        super(message(sourceName, errors));
        this.errors = List.copyOf(errors);
    }

    /** @return the errors, each {@code file:line: reason}, in line order. */
    public List<String> errors()
    {
        return errors;
    }

    private static String message(final String sourceName, final List<String> errors)
    {
        if (errors.size() == 1)
        {
            return errors.get(0);
        }
        return sourceName + " had " + errors.size() + " errors:" + System.lineSeparator() +
            String.join(System.lineSeparator(), errors);
    }
}
