package io.jccl.autotune;

import io.jccl.Plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * One search of a task, after AutoCCL's Algorithm 1, as a deterministic proposer: {@link #propose()} names the next
 * plan to measure, {@link #observe} or {@link #fail} reports it, until {@code propose} answers null.
 * <ol>
 *     <li>Survey: the start plan (the baseline), then each subspace's point nearest to it. A subspace whose point
 *     scored over {@link #PRUNE_FACTOR} times the best of the survey is dropped.</li>
 *     <li>Descents: the remaining subspaces one after another, in order of their survey score. Each {@link Descent}
 *     starts at the subspace's point nearest the best plan so far, measured first: if it scores over
 *     {@link #PRUNE_FACTOR} times the best, the subspace is dropped. Both checks compare like with like, the same
 *     resource knobs (channels, chunk, threads) in two subspaces, so a subspace is not judged by a point far from its
 *     optimum against another's optimum.</li>
 *     <li>Restarts: a descent from a random unvisited point of a subspace not dropped, a configured number of
 *     times.</li>
 * </ol>
 * Plans already scored are never measured again, failed ones never tried again. The only randomness is the given
 * {@link Random}, so the same results give the same proposals. Not thread-safe; a task's lock guards it.
 */
final class Search
{
    /** A subspace whose best is over this factor times the best so far is dropped. */
    static final double PRUNE_FACTOR = 1.5;

    private enum Phase
    {
        SURVEY, DESCENT, RESTART, DONE
    }

    private final List<Subspace> subspaces;
    private final PlanRequest request;
    private final Set<Plan> failed;
    private final Random random;
    private final Map<Plan, Double> scores = new HashMap<>();
    private final List<Plan> survey = new ArrayList<>();
    private final int[][] entries;
    private final double[] subspaceBestNs;
    private final boolean[] dropped;
    private final List<Integer> order = new ArrayList<>();
    private final Descent.Scores lookup = this::score;
    private Phase phase = Phase.SURVEY;
    private int surveyNext;
    private int orderNext;
    private Descent descent;
    private Plan descentStart;
    private int restartsLeft;
    private int restartsDone;
    private Plan best;
    private double bestNs = Double.NaN;
    private Plan pending;

    /**
     * @param subspaces the task's subspaces.
     * @param request   the call shape (to place plans in subspaces).
     * @param start     the plan measured first.
     * @param failed    plans that failed before (shared with the task; this search adds to it).
     * @param random    the source of restart points.
     * @param restarts  how many restarts.
     */
    Search(final List<Subspace> subspaces, final PlanRequest request, final Plan start, final Set<Plan> failed,
        final Random random, final int restarts)
    {
        this.subspaces = subspaces;
        this.request = request;
        this.failed = failed;
        this.random = random;
        this.restartsLeft = restarts;
        this.entries = new int[subspaces.size()][];
        this.subspaceBestNs = new double[subspaces.size()];
        this.dropped = new boolean[subspaces.size()];
        Arrays.fill(subspaceBestNs, Double.POSITIVE_INFINITY);
        survey.add(start);
        for (final Subspace subspace : subspaces)
        {
            entries[subspace.index()] = subspace.project(start);
            survey.add(subspace.plan(entries[subspace.index()]));
        }
    }

    /** @return the next plan to measure, the same until it is observed or failed; null when the search is done. */
    Plan propose()
    {
        if (pending == null || !Double.isNaN(score(pending)))
        {
            pending = decide();
        }
        return pending;
    }

    /**
     * @param plan    the plan measured.
     * @param scoreNs its score in ns.
     */
    void observe(final Plan plan, final double scoreNs)
    {
        scores.put(plan, scoreNs);
        if (best == null || scoreNs < bestNs)
        {
            best = plan;
            bestNs = scoreNs;
        }
        final int index = Subspace.indexOf(subspaces, plan, request);
        if (index >= 0 && scoreNs < subspaceBestNs[index])
        {
            subspaceBestNs[index] = scoreNs;
        }
    }

    /** @param plan the plan that failed; never proposed again. */
    void fail(final Plan plan)
    {
        failed.add(plan);
    }

    /** @return the best plan scored, or null. */
    Plan best()
    {
        return best;
    }

    /** @return its score in ns, or NaN. */
    double bestNs()
    {
        return bestNs;
    }

    /**
     * The plan the confirmation puts beside the best and the baseline: a search scores each plan once, minutes
     * apart, so at small sizes, where calls take microseconds and the machine's noise is as large as the
     * differences, a plan of another algorithm or protocol can lose to the best by luck alone (measured here: at
     * 32 B the search kept LL128 while SIMPLE, re-measured interleaved, was 1.4x faster).
     *
     * @param baseline the search's baseline, which the confirmation holds anyway.
     * @return the best-scored plan whose algorithm or protocol differs from both the best's and the baseline's (those
     *         two families are held anyway); else the best-scored one of a subspace neither of them is in; null when
     *         there is none.
     */
    Plan challenger(final Plan baseline)
    {
        if (best == null)
        {
            return null;
        }
        final int bestSubspace = Subspace.indexOf(subspaces, best, request);
        final int baselineSubspace = baseline == null ? -1 : Subspace.indexOf(subspaces, baseline, request);
        Plan otherFamily = null;
        double otherFamilyNs = Double.POSITIVE_INFINITY;
        Plan otherSubspace = null;
        double otherSubspaceNs = Double.POSITIVE_INFINITY;
        for (final Map.Entry<Plan, Double> entry : scores.entrySet())
        {
            final Plan plan = entry.getKey();
            final double ns = entry.getValue();
            if (plan.equals(best) || plan.equals(baseline) || failed.contains(plan) || !(ns < Double.POSITIVE_INFINITY))
            {
                continue;
            }
            if (!sameFamily(plan, best) && (baseline == null || !sameFamily(plan, baseline)))
            {
                if (ns < otherFamilyNs || ns == otherFamilyNs && plan.id().compareTo(otherFamily.id()) < 0)
                {
                    otherFamily = plan;
                    otherFamilyNs = ns;
                }
            }
            else if (Subspace.indexOf(subspaces, plan, request) != bestSubspace &&
                Subspace.indexOf(subspaces, plan, request) != baselineSubspace &&
                (ns < otherSubspaceNs || ns == otherSubspaceNs && plan.id().compareTo(otherSubspace.id()) < 0))
            {
                otherSubspace = plan;
                otherSubspaceNs = ns;
            }
        }
        return otherFamily != null ? otherFamily : otherSubspace;
    }

    private static boolean sameFamily(final Plan a, final Plan b)
    {
        return a.algorithm() == b.algorithm() && a.protocol() == b.protocol();
    }

    /** @return the subspaces dropped so far. */
    int dropped()
    {
        int count = 0;
        for (final boolean gone : dropped)
        {
            count += gone ? 1 : 0;
        }
        return count;
    }

    /** @return the restarts begun. */
    int restartsDone()
    {
        return restartsDone;
    }

    private Plan decide()
    {
        while (true)
        {
            switch (phase)
            {
                case SURVEY ->
                {
                    while (surveyNext < survey.size())
                    {
                        final Plan plan = survey.get(surveyNext);
                        if (Double.isNaN(score(plan)))
                        {
                            return plan;
                        }
                        surveyNext++;
                    }
                    orderSubspaces();
                    phase = Phase.DESCENT;
                }
                case DESCENT ->
                {
                    final Plan plan = descend();
                    if (plan != null)
                    {
                        return plan;
                    }
                    if (!startNextDescent())
                    {
                        dropSlowSubspaces();
                        phase = Phase.RESTART;
                    }
                }
                case RESTART ->
                {
                    final Plan plan = descend();
                    if (plan != null)
                    {
                        return plan;
                    }
                    if (!restart())
                    {
                        phase = Phase.DONE;
                    }
                }
                default ->
                {
                    return null;
                }
            }
        }
    }

    private double score(final Plan plan)
    {
        if (failed.contains(plan))
        {
            return Double.POSITIVE_INFINITY;
        }
        final Double known = scores.get(plan);
        return known == null ? Double.NaN : known;
    }

    /** Drops the subspaces whose survey point failed or scored over the factor; orders the others by that score. */
    private void orderSubspaces()
    {
        for (final Subspace subspace : subspaces)
        {
            final double entryNs = score(subspace.plan(entries[subspace.index()]));
            if (entryNs == Double.POSITIVE_INFINITY || (best != null && entryNs > PRUNE_FACTOR * bestNs))
            {
                dropped[subspace.index()] = true;
            }
            else
            {
                order.add(subspace.index());
            }
        }
        order.sort((a, b) ->
        {
            final int byScore = Double.compare(score(subspaces.get(a).plan(entries[a])),
                score(subspaces.get(b).plan(entries[b])));
            return byScore != 0 ? byScore : Integer.compare(a, b);
        });
    }

    /** @return true when the next subspace in order has a descent, from its point nearest the best so far. */
    private boolean startNextDescent()
    {
        while (orderNext < order.size())
        {
            final Subspace subspace = subspaces.get(order.get(orderNext++));
            if (!dropped[subspace.index()])
            {
                final int[] start = best == null ? entries[subspace.index()] : subspace.project(best);
                descent = new Descent(subspace, start);
                descentStart = subspace.plan(start);
                return true;
            }
        }
        return false;
    }

    /** @return the plan the running descent proposes, or null when none is running or it has ended. */
    private Plan descend()
    {
        if (descent == null)
        {
            return null;
        }
        if (descentStart != null)
        {
            final double startNs = score(descentStart);
            if (Double.isNaN(startNs))
            {
                return descentStart;
            }
            descentStart = null;
            if (startNs > PRUNE_FACTOR * bestNs)
            {
                dropped[descent.subspace().index()] = true;
                descent = null;
                return null;
            }
        }
        final Plan plan = descent.next(lookup);
        if (plan == null)
        {
            descent = null;
        }
        return plan;
    }

    private void dropSlowSubspaces()
    {
        for (int i = 0; i < dropped.length; i++)
        {
            if (best != null && subspaceBestNs[i] > PRUNE_FACTOR * bestNs)
            {
                dropped[i] = true;
            }
        }
    }

    /** @return true when a restart's descent began. */
    private boolean restart()
    {
        if (restartsLeft == 0)
        {
            return false;
        }
        final List<int[]> points = new ArrayList<>();
        final List<Subspace> owners = new ArrayList<>();
        for (final Subspace subspace : subspaces)
        {
            if (dropped[subspace.index()])
            {
                continue;
            }
            for (int ordinal = 0; ordinal < subspace.points(); ordinal++)
            {
                final int[] point = subspace.point(ordinal);
                if (Double.isNaN(score(subspace.plan(point))))
                {
                    points.add(point);
                    owners.add(subspace);
                }
            }
        }
        if (points.isEmpty())
        {
            return false;
        }
        final int choice = random.nextInt(points.size());
        restartsLeft--;
        restartsDone++;
        descent = new Descent(owners.get(choice), points.get(choice));
        return true;
    }
}
