package io.jccl.autotune;

import io.jccl.Plan;

/**
 * Where the {@link OnlineTuner} stands on one task: a snapshot, for tests, {@code JCCL_DEBUG=INFO} and the bench
 * summary. Times are the scores of the search: the mean of the fastest three quarters of a candidate's timed calls.
 *
 * @param status           searching or converged.
 * @param trials           candidates measured so far, failed ones included, over every search of the task.
 * @param searchCalls      calls spent on candidates so far, warm-up calls included, over every search.
 * @param baselinePlan     the plan the latest search measured first (the default tuner's plan; on a re-tune the
 *                         converged plan, or the default plan if so configured); null for a task loaded converged
 *                         and never re-tuned.
 * @param baselineNs       its score in ns, or NaN when not measured (yet, or it failed).
 * @param bestPlan         the best plan measured so far; once converged, the plan every call gets; null before any
 *                         candidate has been scored.
 * @param bestNs           its score in ns, or NaN.
 * @param retunes          searches started again after convergence (drift, or the converged plan failing).
 * @param failures         calls reported failed, in any state.
 * @param subspaces        the algorithm x protocol x transport subspaces of the task's search space.
 * @param droppedSubspaces subspaces the latest search dropped, their best being over 1.5 times the best.
 * @param restarts         descents started from a random point, over every search.
 * @param lastFailure      the plan and reason of the latest failure, or null.
 */
public record TaskState(Status status, int trials, long searchCalls, Plan baselinePlan, double baselineNs,
    Plan bestPlan, double bestNs, int retunes, int failures, int subspaces, int droppedSubspaces, int restarts,
    String lastFailure)
{
    /** The phase of a task. */
    public enum Status
    {
        /** Candidates are being measured: every call of a round waits until the leader has published it. */
        SEARCHING,
        /** The best plan is frozen: every call gets it (drift or failure may start a search again). */
        CONVERGED
    }

    /** @return true when converged. */
    public boolean converged()
    {
        return status == Status.CONVERGED;
    }

    /** @return the baseline's score over the best's (above 1 when the search found a faster plan), or NaN. */
    public double speedup()
    {
        return baselineNs / bestNs;
    }
}
