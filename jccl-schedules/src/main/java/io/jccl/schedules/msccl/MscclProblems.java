package io.jccl.schedules.msccl;

import io.jccl.schedules.msccl.MscclProblem.Severity;

import java.util.ArrayList;
import java.util.List;

/**
 * The problems of one read, collected in the order found: {@link MscclReader}'s parsing and {@link MscclLowering}
 * report into the same lists, so that every error is thrown together, in document order, as one
 * {@link MscclFormatException}, and the warnings go with the schedule.
 */
final class MscclProblems
{
    private final String source;
    private final List<MscclProblem> errors = new ArrayList<>();
    private final List<MscclProblem> notes = new ArrayList<>();

    /**
     * @param source a name for messages (a file name).
     */
    MscclProblems(final String source)
    {
        this.source = source;
    }

    /** @return the name for messages. */
    String source()
    {
        return source;
    }

    /** @return the warnings and C-executor notes found so far (the live list). */
    List<MscclProblem> notes()
    {
        return notes;
    }

    /** @return whether any error was found. */
    boolean hasErrors()
    {
        return !errors.isEmpty();
    }

    /** @return the exception that carries every error found. */
    MscclFormatException failure()
    {
        return new MscclFormatException(source, errors);
    }

    /**
     * @param line    the 1-based line, or 0 when unknown.
     * @param path    the element path.
     * @param message what is wrong.
     */
    void error(final int line, final String path, final String message)
    {
        errors.add(new MscclProblem(Severity.ERROR, line, path, message));
    }

    /**
     * @param line    the 1-based line, or 0 when unknown.
     * @param path    the element path.
     * @param message what is suspicious.
     */
    void warning(final int line, final String path, final String message)
    {
        notes.add(new MscclProblem(Severity.WARNING, line, path, message));
    }

    /**
     * @param line    the 1-based line, or 0 when unknown.
     * @param path    the element path.
     * @param message what MSCCL's C executors would refuse or mis-run.
     */
    void cExecutor(final int line, final String path, final String message)
    {
        notes.add(new MscclProblem(Severity.C_EXECUTOR, line, path, message));
    }
}
