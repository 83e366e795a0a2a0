package io.jccl.autotune;

import io.jccl.Plan;

/**
 * AutoCCL's coordinate descent inside one {@link Subspace} (its Algorithm 2), on the index ladders of the resource
 * knobs: from a start point, move one knob by a step and compare.
 * <ul>
 *     <li>After a gain the point moves there, and the step (in ladder positions) grows with the relative gain:
 *     {@code step x (1 + 0.8 x gain)}, gain being {@code old / new - 1}.</li>
 *     <li>After a loss the step falls back to the nearest candidate (1 position); a loss at the nearest candidate
 *     reverses the direction once; a loss after that turns to the next knob.</li>
 *     <li>The descent ends when every movable knob has been turned to without a gain since the last gain.</li>
 * </ul>
 * Known results are looked up, not measured again, so the same state always proposes the same next point: the
 * descent keeps no pending point, it recomputes it. Not thread-safe; a task's lock guards it.
 */
final class Descent
{
    /** How much of the relative gain the next step grows by. */
    static final double STEP_GAIN = 0.8;

    /** Scores known so far: NaN when a plan has not been measured, +infinity when it failed. */
    interface Scores
    {
        /**
         * @param plan a plan.
         * @return its score in ns, NaN if unknown, +infinity if it failed.
         */
        double of(Plan plan);
    }

    private final Subspace subspace;
    private final int[] point;
    private double pointNs;
    private int knob;
    private int direction = 1;
    private double step = 1.0;
    private boolean reversed;
    private int knobsWithoutGain;

    /**
     * @param subspace where the descent runs.
     * @param start    the start point (copied).
     */
    Descent(final Subspace subspace, final int[] start)
    {
        this.subspace = subspace;
        this.point = start.clone();
        this.pointNs = Double.NaN;
        this.knob = nextMovable(-1);
    }

    /** @return the subspace. */
    Subspace subspace()
    {
        return subspace;
    }

    /**
     * @param scores the known scores.
     * @return the next plan to measure, or null when the descent has ended.
     */
    Plan next(final Scores scores)
    {
        if (Double.isNaN(pointNs))
        {
            final Plan start = subspace.plan(point);
            final double startNs = scores.of(start);
            if (Double.isNaN(startNs))
            {
                return start;
            }
            if (startNs == Double.POSITIVE_INFINITY)
            {
                return null;
            }
            pointNs = startNs;
        }
        while (knob >= 0 && knobsWithoutGain < subspace.movableKnobs())
        {
            final int move = (int)Math.max(1, Math.min(subspace.size(knob), Math.round(step)));
            final int target = Math.max(0, Math.min(subspace.size(knob) - 1, point[knob] + direction * move));
            final int moved = Math.abs(target - point[knob]);
            if (moved == 0)
            {
                loss(0);
                continue;
            }
            final int[] candidate = point.clone();
            candidate[knob] = target;
            final Plan plan = subspace.plan(candidate);
            final double candidateNs = scores.of(plan);
            if (Double.isNaN(candidateNs))
            {
                return plan;
            }
            if (candidateNs < pointNs)
            {
                step *= 1.0 + STEP_GAIN * (pointNs / candidateNs - 1.0);
                System.arraycopy(candidate, 0, point, 0, point.length);
                pointNs = candidateNs;
                reversed = false;
                knobsWithoutGain = 0;
            }
            else
            {
                loss(moved);
            }
        }
        return null;
    }

    private void loss(final int moved)
    {
        if (moved > 1)
        {
            step = 1.0;
        }
        else if (!reversed)
        {
            direction = -direction;
            reversed = true;
            step = 1.0;
        }
        else
        {
            knob = nextMovable(knob);
            direction = 1;
            reversed = false;
            step = 1.0;
            knobsWithoutGain++;
        }
    }

    private int nextMovable(final int after)
    {
        for (int i = 1; i <= Subspace.KNOBS; i++)
        {
            final int candidate = (after + i + Subspace.KNOBS) % Subspace.KNOBS;
            if (subspace.size(candidate) > 1)
            {
                return candidate;
            }
        }
        return -1;
    }
}
