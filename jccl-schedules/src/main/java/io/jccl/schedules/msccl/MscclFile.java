package io.jccl.schedules.msccl;

import java.nio.file.Path;
import java.util.List;

/**
 * One MSCCL XML file as every user of schedules sees it: read ({@link MscclReader}), checked
 * ({@link MscclValidator}: structure, queues, deadlock, and with {@code strict} what MSCCL's C executors would refuse)
 * and, once valid, its semantic verdict ({@link MscclSemanticCheck}: does it compute the collective it declares).
 * The communicator's registry, the bench's {@code --schedule}, {@code verify} and {@code export} all go through it, so
 * the same checks apply everywhere; what each does with a wrong verdict is its own policy. Not thread-safe: the
 * verdict is computed on first use.
 */
public final class MscclFile
{
    private final MscclSchedule schedule;
    private final List<MscclProblem> problems;
    private MscclVerdict verdict;

    private MscclFile(final MscclSchedule schedule, final List<MscclProblem> problems)
    {
        this.schedule = schedule;
        this.problems = problems;
    }

    /**
     * @param file   the file.
     * @param strict also report what MSCCL's C executors would refuse (as warnings).
     * @return the file, read and checked.
     * @throws MscclFormatException listing every error, when the file cannot be read or is malformed.
     */
    public static MscclFile read(final Path file, final boolean strict)
    {
        return of(new MscclReader().read(file), strict);
    }

    /**
     * @param xml    the text.
     * @param name   what to call it in messages.
     * @param strict also report what MSCCL's C executors would refuse (as warnings).
     * @return the text, read and checked.
     * @throws MscclFormatException listing every error, when the text is malformed.
     */
    public static MscclFile read(final String xml, final String name, final boolean strict)
    {
        return of(new MscclReader().readString(xml, name), strict);
    }

    private static MscclFile of(final MscclSchedule schedule, final boolean strict)
    {
        return new MscclFile(schedule, List.copyOf(MscclValidator.check(schedule, strict)));
    }

    /** @return the schedule as read. */
    public MscclSchedule schedule()
    {
        return schedule;
    }

    /** @return every problem: errors first in the order found, then warnings and the reader's notes. */
    public List<MscclProblem> problems()
    {
        return problems;
    }

    /** @return the errors alone. */
    public List<MscclProblem> errors()
    {
        return problems.stream().filter(MscclProblem::isError).toList();
    }

    /** @return whether the file has no error, so it can run. */
    public boolean valid()
    {
        return problems.stream().noneMatch(MscclProblem::isError);
    }

    /**
     * @return the schedule of a valid file.
     * @throws MscclFormatException listing every error, when the file is invalid.
     */
    public MscclSchedule requireValid()
    {
        if (!valid())
        {
            throw new MscclFormatException(schedule.source(), errors());
        }
        return schedule;
    }

    /**
     * @return whether the file computes the collective it declares, with the first wrong chunk named when not.
     * @throws IllegalStateException when the file is invalid (its steps cannot be run symbolically).
     */
    public MscclVerdict verdict()
    {
        if (!valid())
        {
            throw new IllegalStateException(schedule.source() + " is invalid: no semantic verdict");
        }
        if (verdict == null)
        {
            verdict = MscclSemanticCheck.check(schedule);
        }
        return verdict;
    }
}
