package io.jccl.autotune;

import io.jccl.Plan;

/**
 * Where the {@link OnlineTuner} stands on one task: a snapshot, for tests, {@code JCCL_DEBUG=INFO} and the bench
 * summary. Times are the scores of the search: the mean of the fastest three quarters of a candidate's timed calls;
 * once a confirmation has ended, the baseline's and the frozen plan's confirmed scores instead (the median of their
 * interleaved holds' scores), which are comparable with each other where scores measured minutes apart are not.
 *
 * @param status           searching or converged.
 * @param trials           candidates measured so far, failed ones included, over every search of the task.
 * @param searchCalls      calls spent on candidates so far, warm-up calls included, over every search.
 * @param baselinePlan     the plan the latest search measured first (the default tuner's plan; on a re-tune the
 *                         converged plan, or the default plan if so configured); null for a task loaded converged
 *                         and never re-tuned.
 * @param baselineNs       its score in ns (its confirmed score once confirmed), or NaN when not measured (yet, or
 *                         it failed).
 * @param bestPlan         the best plan measured so far; once converged, the plan every call gets (the baseline
 *                         when the confirmation fell back to it); null before any candidate has been scored.
 * @param bestNs           its score in ns (its confirmed score once confirmed), or NaN.
 * @param retunes          searches started again after convergence (drift, or the converged plan failing).
 * @param failures         calls reported failed, in any state.
 * @param subspaces        the algorithm x protocol x transport subspaces of the task's search space.
 * @param droppedSubspaces subspaces the latest search dropped, their best being over 1.5 times the best.
 * @param restarts         descents started from a random point, over every search.
 * @param lastFailure      the plan and reason of the latest failure, or null.
 * @param confirmation     where the latest search's confirmation of its best against its baseline stands.
 * @param confirmedSpeedup the baseline's confirmed score over the search's best's, from the interleaved rounds (a
 *                         ratio below the margin made the task fall back to the baseline); NaN when the latest search
 *                         was not confirmed, or not yet, or a plan failed during the confirmation.
 * @param confirmCalls     calls spent on confirmation rounds so far, warm-up calls included, over every search; not
 *                         part of {@code searchCalls} nor of the budget.
 */
public record TaskState(Status status, int trials, long searchCalls, Plan baselinePlan, double baselineNs,
    Plan bestPlan, double bestNs, int retunes, int failures, int subspaces, int droppedSubspaces, int restarts,
    String lastFailure, Confirmation confirmation, double confirmedSpeedup, long confirmCalls)
{
    /**
     * A state without a confirmation ({@link Confirmation#NONE}, no confirmed speedup, no confirmation calls).
     *
     * @param status           searching or converged.
     * @param trials           candidates measured so far.
     * @param searchCalls      calls spent on candidates so far.
     * @param baselinePlan     the plan the latest search measured first, or null.
     * @param baselineNs       its score in ns, or NaN.
     * @param bestPlan         the best plan measured so far, or null.
     * @param bestNs           its score in ns, or NaN.
     * @param retunes          searches started again after convergence.
     * @param failures         calls reported failed.
     * @param subspaces        the subspaces of the task's search space.
     * @param droppedSubspaces subspaces the latest search dropped.
     * @param restarts         descents started from a random point.
     * @param lastFailure      the plan and reason of the latest failure, or null.
     */
    public TaskState(final Status status, final int trials, final long searchCalls, final Plan baselinePlan,
        final double baselineNs, final Plan bestPlan, final double bestNs, final int retunes, final int failures,
        final int subspaces, final int droppedSubspaces, final int restarts, final String lastFailure)
    {
        this(status, trials, searchCalls, baselinePlan, baselineNs, bestPlan, bestNs, retunes, failures, subspaces,
            droppedSubspaces, restarts, lastFailure, Confirmation.NONE, Double.NaN, 0);
    }

    /**
     * The outcome of the rounds that interleave a search's best and its baseline before the task freezes: scores
     * measured minutes apart on a busy machine (JIT, neighbours) are not comparable, interleaved ones are.
     */
    public enum Confirmation
    {
        /** No confirmation: turned off, the best is the baseline itself, the baseline failed, or a remembered plan. */
        NONE,
        /** The confirmation rounds are being measured: the task is still searching. */
        RUNNING,
        /** The best beat the baseline by the margin (or the baseline failed in the confirmation): it is frozen. */
        KEPT,
        /** The best did not beat the baseline by the margin (or it failed in the confirmation): the baseline is. */
        FELL_BACK
    }

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

    /**
     * @return the baseline's score over the best's (above 1 when the search found a faster plan; 1 once the
     *         confirmation fell back to the baseline), or NaN.
     */
    public double speedup()
    {
        return baselineNs / bestNs;
    }
}
