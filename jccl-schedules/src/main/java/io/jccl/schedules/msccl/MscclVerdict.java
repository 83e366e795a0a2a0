package io.jccl.schedules.msccl;

import java.util.List;

/**
 * What {@link MscclSemanticCheck} concluded about a schedule.
 *
 * @param correct  true when the schedule computes its declared collective in every declared mode (in place, out of
 *                 place), finishes, leaves no message behind and has no race.
 * @param summary  one line: "OK: ..." or "WRONG ...", naming the first wrong output chunk, its rank, what it holds
 *                 and what it should hold.
 * @param problems every error (wrong chunks, races, deadlocks, structural errors when the schedule could not be
 *                 evaluated) and warning (reads of never-written chunks), each with line and path.
 */
public record MscclVerdict(boolean correct, String summary, List<MscclProblem> problems)
{
    /**
     * Copies the problems.
     *
     * @param correct  true when the schedule computes its declared collective in every declared mode.
     * @param summary  one line: "OK: ..." or "WRONG ...".
     * @param problems every error and warning, each with line and path; copied.
     */
    public MscclVerdict
    {
        problems = List.copyOf(problems);
    }

    /** @return the errors among the problems. */
    public List<MscclProblem> errors()
    {
        return problems.stream().filter(MscclProblem::isError).toList();
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder(summary);
        for (final MscclProblem problem : problems)
        {
            sb.append("\n  ").append(problem);
        }
        return sb.toString();
    }
}
