package io.jccl;

import java.util.Locale;

/**
 * Where the online tuner ({@code JCCL_TUNER=auto}) stands on one task: a snapshot of the calls of one collective,
 * element type, operator, rank count and range of sizes, which it tunes together. Times are the search's scores in
 * nanoseconds (a trimmed mean of a plan's timed calls; once a confirmation has ended, the confirmed scores of the
 * baseline and the kept plan, which are comparable with each other).
 *
 * @param collective   the collective.
 * @param type         the element type, or null where the calls do not say.
 * @param op           the reduction operator's family, or null for a collective that does not reduce.
 * @param ranks        the communicator's rank count.
 * @param minBytes     the fewest bytes of the task's calls, inclusive (NCCL's {@code nBytes}).
 * @param maxBytes     the most bytes of the task's calls, inclusive.
 * @param converged    true once the plan is frozen: every call of the task gets {@link #bestPlan()}.
 * @param trials       plans measured so far, failed ones included, over every search of the task.
 * @param searchCalls  calls spent on measuring plans so far, warm-up calls included.
 * @param baselinePlan the plan the latest search measured first (the default tuner's), or null.
 * @param baselineNs   its score in nanoseconds, or NaN when not measured.
 * @param bestPlan     the best plan measured so far (once converged, the plan every call gets), or null.
 * @param bestNs       its score in nanoseconds, or NaN.
 * @param retunes      searches started again after convergence (drift, or the converged plan failing).
 * @param failures     calls reported failed.
 * @param line         the whole report on one line, as {@code JCCL_DEBUG=INFO} logs it.
 */
public record TuningReport(Collective collective, DataType type, ReduceOp.Kind op, int ranks, long minBytes,
    long maxBytes, boolean converged, int trials, long searchCalls, Plan baselinePlan, double baselineNs,
    Plan bestPlan, double bestNs, int retunes, int failures, String line)
{
    /**
     * Checks the fields, naming them.
     *
     * @param collective   the collective.
     * @param type         the element type, or null.
     * @param op           the reduction operator's family, or null.
     * @param ranks        the rank count, at least 1.
     * @param minBytes     the fewest bytes, at least 0.
     * @param maxBytes     the most bytes, at least minBytes.
     * @param converged    whether the plan is frozen.
     * @param trials       plans measured so far, at least 0.
     * @param searchCalls  calls spent on measuring, at least 0.
     * @param baselinePlan the first plan measured, or null.
     * @param baselineNs   its score, or NaN.
     * @param bestPlan     the best plan, or null.
     * @param bestNs       its score, or NaN.
     * @param retunes      searches started again, at least 0.
     * @param failures     calls failed, at least 0.
     * @param line         the report on one line, not null.
     * @throws JcclInvalidArgumentException naming a null collective or line, or a count out of range.
     */
    public TuningReport
    {
        if (collective == null)
        {
            throw new JcclInvalidArgumentException("collective is null");
        }
        if (line == null)
        {
            throw new JcclInvalidArgumentException("line is null");
        }
        if (ranks < 1)
        {
            throw new JcclInvalidArgumentException("ranks=" + ranks + " is not positive");
        }
        if (minBytes < 0 || maxBytes < minBytes)
        {
            throw new JcclInvalidArgumentException("minBytes..maxBytes=" + minBytes + ".." + maxBytes +
                " is invalid");
        }
        if (trials < 0 || searchCalls < 0 || retunes < 0 || failures < 0)
        {
            throw new JcclInvalidArgumentException(String.format(Locale.ROOT,
                "trials=%d, searchCalls=%d, retunes=%d, failures=%d: none may be negative", trials, searchCalls,
                retunes, failures));
        }
    }

    /**
     * @param bytes a call's size, NCCL's {@code nBytes}.
     * @return true when the task's range holds it.
     */
    public boolean covers(final long bytes)
    {
        return minBytes <= bytes && bytes <= maxBytes;
    }

    /** @return the baseline's score over the best's (above 1 when the search found a faster plan), or NaN. */
    public double speedup()
    {
        return baselineNs / bestNs;
    }

    /** @return {@link #line()}. */
    @Override
    public String toString()
    {
        return line;
    }
}
