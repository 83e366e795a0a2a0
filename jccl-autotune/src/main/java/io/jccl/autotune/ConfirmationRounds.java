package io.jccl.autotune;

import io.jccl.Plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The confirmation of one search before its task freezes: {@code confirmRounds} rounds each hold the contenders in
 * turn for {@code warmupCalls + holdCalls} calls, in an order rotated every round (so a trend over time favours
 * none): the search's best unless it is the baseline, its challenger ({@link Search#challenger}: the best-scored plan
 * of another algorithm or protocol) when there is one, and the baseline. Each hold is scored as a candidate is, and
 * each plan by the median of its holds. The fastest contender other than the baseline is frozen only if the
 * baseline's median exceeds its own by {@code confirmMargin} and it beat the baseline in every round, else the
 * baseline is: the search's scores were taken minutes apart, and on a busy machine (JIT, neighbours) they are not
 * comparable. With nothing but the baseline to hold there is no confirmation. These rounds are published like any
 * other, from recorded results alone, and their calls are spent on top of the budget, at most
 * {@code 3 x confirmRounds x (warmupCalls + holdCalls)}.
 * <p>
 * This decides what the rounds hold and what their times show; the {@link TaskTuning} publishes them, gathers their
 * samples and freezes the verdict, calling it under the task's lock. Not thread-safe on its own.
 */
final class ConfirmationRounds
{
    private final OnlineTunerConfig config;
    /** The search's best. */
    private final Plan best;
    /** The confirmation's plans: the search's best (unless it is the baseline), its challenger, the baseline last. */
    private final Plan[] contenders;
    /** Each contender's score per confirmation round. */
    private final double[][] contenderNs;
    private int done;

    /**
     * What a confirmation decided, finished or abandoned.
     *
     * @param confirmation {@link TaskState.Confirmation#KEPT} or {@link TaskState.Confirmation#FELL_BACK}.
     * @param plan         the plan to freeze.
     * @param planNs       its score in ns (its confirmed score when the confirmation finished), or NaN.
     * @param baselineNs   the baseline's score in ns (its confirmed score when the confirmation finished), or NaN.
     * @param speedup      the baseline's confirmed score over the fastest other contender's; NaN when a plan failed
     *                     during the confirmation.
     */
    record Verdict(TaskState.Confirmation confirmation, Plan plan, double planNs, double baselineNs, double speedup)
    {
    }

    private ConfirmationRounds(final OnlineTunerConfig config, final Plan best, final Plan[] contenders)
    {
        this.config = config;
        this.best = best;
        this.contenders = contenders;
        this.contenderNs = new double[contenders.length][config.confirmRounds()];
    }

    /**
     * @param config     the settings.
     * @param best       the search's best.
     * @param challenger the search's challenger, or null.
     * @param baseline   the plan the search measured first, or null.
     * @param failed     the plans that failed.
     * @return the confirmation, or null when there is none: turned off, no baseline, the baseline failed, or neither
     *         the search's best nor a challenger may run beside it.
     */
    static ConfirmationRounds of(final OnlineTunerConfig config, final Plan best, final Plan challenger,
        final Plan baseline, final Set<Plan> failed)
    {
        final boolean bestRuns = !best.equals(baseline) && !failed.contains(best);
        if (!(config.confirmEnabled() && baseline != null && !failed.contains(baseline) &&
            (bestRuns || challenger != null)))
        {
            return null;
        }
        final List<Plan> plans = new ArrayList<>(3);
        if (bestRuns)
        {
            plans.add(best);
        }
        if (challenger != null)
        {
            plans.add(challenger);
        }
        plans.add(baseline);
        return new ConfirmationRounds(config, best, plans.toArray(new Plan[0]));
    }

    /** @return the plans each round holds. */
    int size()
    {
        return contenders.length;
    }

    /**
     * @return the next round's holds: every contender in turn, the order rotated each round (best, baseline; then
     *         baseline, best; with a challenger best, challenger, baseline; then challenger, baseline, best ...), so
     *         that a trend over time favours none.
     */
    List<TuningRound.Hold> holds()
    {
        final int length = config.callsPerCandidate();
        final List<TuningRound.Hold> holds = new ArrayList<>(contenders.length);
        for (int position = 0; position < contenders.length; position++)
        {
            holds.add(new TuningRound.Hold(contenders[contenderAt(done, position)], length));
        }
        return holds;
    }

    /**
     * Scores the holds of the round {@link #holds()} gave.
     *
     * @param samples the round's times by call offset.
     * @return true when that was the last round: {@link #verdict()} decides.
     */
    boolean score(final long[] samples)
    {
        final int length = config.callsPerCandidate();
        for (int position = 0; position < contenders.length; position++)
        {
            contenderNs[contenderAt(done, position)][done] = TaskTuning.trimmedMean(
                Arrays.copyOfRange(samples, position * length, (position + 1) * length), config.warmupCalls());
        }
        done++;
        return done >= config.confirmRounds();
    }

    /**
     * @return after the last round, the fastest contender other than the baseline if the baseline's median exceeds
     *         its own by the margin and it won every round, else the baseline; both with their confirmed scores.
     */
    Verdict verdict()
    {
        final int baseline = contenders.length - 1;
        int chosen = 0;
        for (int c = 1; c < baseline; c++)
        {
            if (median(contenderNs[c]) < median(contenderNs[chosen]))
            {
                chosen = c;
            }
        }
        final double chosenMedianNs = median(contenderNs[chosen]);
        final double baselineMedianNs = median(contenderNs[baseline]);
        final double speedup = baselineMedianNs / chosenMedianNs;
        if (baselineMedianNs > config.confirmMargin() * chosenMedianNs && winsEveryRound(chosen, baseline))
        {
            return new Verdict(TaskState.Confirmation.KEPT, contenders[chosen], chosenMedianNs, baselineMedianNs,
                speedup);
        }
        return new Verdict(TaskState.Confirmation.FELL_BACK, contenders[baseline], baselineMedianNs,
            baselineMedianNs, speedup);
    }

    /**
     * A plan failed during the confirmation (it is in {@code failed} now): the search's best is frozen with its
     * search score unless it failed, else the baseline, else (the baseline was the best) the challenger.
     *
     * @param failed     the plans that failed, the one that just did included.
     * @param bestNs     the search's score of its best.
     * @param baselineNs the search's score of the baseline.
     * @return the verdict, the baseline's score unchanged and no speedup.
     */
    Verdict abandon(final Set<Plan> failed, final double bestNs, final double baselineNs)
    {
        final Plan baseline = contenders[contenders.length - 1];
        Plan plan = best;
        double planNs = bestNs;
        if (failed.contains(best))
        {
            final boolean baselineFailed = failed.contains(baseline);
            plan = baselineFailed ? contenders[contenders.length - 2] : baseline;
            planNs = baselineFailed ? Double.NaN : baselineNs;
        }
        final TaskState.Confirmation confirmation = plan.equals(baseline) ? TaskState.Confirmation.FELL_BACK :
            TaskState.Confirmation.KEPT;
        return new Verdict(confirmation, plan, planNs, baselineNs, Double.NaN);
    }

    /**
     * @param values the scores, not empty.
     * @return their median (the mean of the middle two for an even count).
     */
    static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int middle = sorted.length >>> 1;
        return (sorted.length & 1) == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2.0;
    }

    /** @return the contender that round {@code round} holds at {@code position}: the order rotates every round. */
    private int contenderAt(final int round, final int position)
    {
        return (position + round) % contenders.length;
    }

    /**
     * @return true when the contender scored below the baseline in every interleaved round: the rounds share the
     *         conditions of their moment (a noisy neighbour, a cold JIT, the other process's scheduling), so a plan
     *         that is really faster beats the baseline in each, while one that only drew quieter moments does not.
     *         With the medians alone, 8-byte calls between two processes, whose samples scatter over more than the
     *         plans differ, kept plans 1.2-6x slower than the baseline in most runs.
     */
    private boolean winsEveryRound(final int contender, final int baseline)
    {
        for (int round = 0; round < contenderNs[contender].length; round++)
        {
            if (!(contenderNs[contender][round] < contenderNs[baseline][round]))
            {
                return false;
            }
        }
        return true;
    }
}
