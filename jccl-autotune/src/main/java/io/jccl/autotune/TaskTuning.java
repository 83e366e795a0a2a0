package io.jccl.autotune;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.Plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The lock-step state of one task: its published {@link TuningRound}s, the samples of the round being measured, the
 * {@link Search} and its confirmation, and once converged the frozen plan and its drift watch. Every method is
 * synchronized on the task: ranks ask for plans from their threads while the leader records.
 * <p>
 * Call indices: the k-th call of the task on every rank has index k, from 0. A round covers consecutive indices; the
 * next round is published when the leader has recorded every call of the current one (or one failed), so rounds
 * depend only on recorded results. A converged task's plan is given up to {@link #horizon()}, {@link #lead()} calls
 * past the leader's last record (or for every index when drift detection is off); a re-tune starts right after the
 * horizon, where no rank can yet have bound a call. The lead covers about {@value #LEAD_TARGET_NS} ns of the plan's
 * calls, at least {@value #MIN_LEAD_CALLS} and at most {@code leadCalls}: enough to keep 1 us calls queued deep,
 * short enough that a re-tune of 100 ms calls starts within seconds. The horizon only grows, and only as records
 * arrive, so a tuner that gets the leader's records later (another process's) computes the same horizons, later.
 * <p>
 * When a search ends, its {@link ConfirmationRounds} interleave its best, its challenger and its baseline before the
 * task freezes one of them; once frozen, a {@link DriftWatch} asks for a re-tune when the plan's time drifts. This
 * class publishes their rounds and gathers their samples as it does the search's.
 */
final class TaskTuning
{
    /** The share of a candidate's timed calls, fastest first, whose mean is its score. */
    static final double KEEP_FRACTION = 0.75;
    /** The time of a converged plan's calls its lead covers, in ns. */
    static final double LEAD_TARGET_NS = 10e6;
    /** The least lead, in calls (or {@code leadCalls} if that is smaller). */
    static final int MIN_LEAD_CALLS = 16;

    private final TaskKey key;
    private final PlanRequest request;
    private final OnlineTunerConfig config;
    private final PlanConstraints constraints;
    private final Tuner defaultTuner;
    private final Random random;
    private final List<Subspace> subspaces;
    private final Set<Plan> failed = new HashSet<>();
    private final List<TuningRound> rounds = new ArrayList<>();

    private TaskState.Status status;
    private Plan defaultPlan;
    private Search search;
    private int baselineRound;
    private long[] samples;
    private int recorded;
    private boolean measuring;
    private long nextFirstCall;
    private long searchCalls;
    private long totalSearchCalls;
    private int trials;
    private int retunes;
    private int failures;
    private int restarts;
    private int dropped;
    private int convergences;
    private Plan baselinePlan;
    private double baselineNs = Double.NaN;
    private Plan bestPlan;
    private double bestNs = Double.NaN;
    private String lastFailure;

    /** The confirmation being measured, or null. */
    private ConfirmationRounds confirming;
    private long confirmCalls;
    private TaskState.Confirmation confirmation = TaskState.Confirmation.NONE;
    private double confirmedSpeedup = Double.NaN;

    private long frozenFrom;
    private long lastRecorded = -1;
    /** The last call index a converged plan was given up to ({@link #horizon()}); only grows. */
    private long givenUpTo = -1;
    /** The drift watch of the plan frozen last, or null before the first freeze. */
    private DriftWatch drift;

    private TaskTuning(final TaskKey key, final PlanRequest request, final OnlineTunerConfig config,
        final Tuner defaultTuner, final PlanConstraints constraints)
    {
        this.key = key;
        this.request = request;
        this.config = config;
        this.constraints = constraints;
        this.defaultTuner = defaultTuner;
        this.random = new Random(config.seed());
        this.subspaces = Subspace.of(request, constraints);
    }

    /**
     * A task seen for the first time: its first round, the default plan as the baseline, is published at once.
     *
     * @param key          the task.
     * @param request      its first call's shape.
     * @param config       the settings.
     * @param defaultTuner the plan measured first.
     * @param constraints  what the settings allow.
     * @return the task.
     */
    static TaskTuning searching(final TaskKey key, final PlanRequest request, final OnlineTunerConfig config,
        final Tuner defaultTuner, final PlanConstraints constraints)
    {
        final TaskTuning task = new TaskTuning(key, request, config, defaultTuner, constraints);
        task.startSearch(task.defaultPlan());
        return task;
    }

    /**
     * A task remembered from an earlier run: converged from call 0 on.
     *
     * @param key          the task.
     * @param request      the shape of a call of the task.
     * @param config       the settings.
     * @param defaultTuner the plan a re-tune may start from.
     * @param constraints  what the settings allow.
     * @param plan         the converged plan.
     * @param scoreNs      its score when it converged, or NaN.
     * @return the task.
     */
    static TaskTuning converged(final TaskKey key, final PlanRequest request, final OnlineTunerConfig config,
        final Tuner defaultTuner, final PlanConstraints constraints, final Plan plan, final double scoreNs)
    {
        final TaskTuning task = new TaskTuning(key, request, config, defaultTuner, constraints);
        task.bestPlan = plan;
        task.bestNs = scoreNs;
        task.freeze(plan, Double.NaN);
        return task;
    }

    /** @return the shape of the call the task was created for. */
    PlanRequest request()
    {
        return request;
    }

    /**
     * @param callIndex the call's index within the task, at least 0.
     * @return its plan, or null while the round covering it is not published.
     */
    synchronized Plan planFor(final long callIndex)
    {
        if (callIndex < 0)
        {
            throw new JcclInvalidArgumentException("callIndex=" + callIndex + " is negative");
        }
        if (status == TaskState.Status.CONVERGED && callIndex >= frozenFrom)
        {
            return callIndex <= horizon() ? bestPlan : null;
        }
        final TuningRound round = roundAt(callIndex);
        return round == null ? null : round.planAt(callIndex);
    }

    /**
     * @param callIndex the leader's call, completed.
     * @param plan      the plan it ran.
     * @param nanos     its time in ns.
     * @return how many records, this one included, a follower may get late ({@link OnlineTuner#record}): 0 when it
     *         published a round (the next candidate, a frozen plan, a re-tune) or changed the lead; a quarter of the
     *         lead for a converged plan's drift watch; {@link Integer#MAX_VALUE} for a sample of the round being
     *         measured, or one ignored.
     */
    synchronized int record(final long callIndex, final Plan plan, final long nanos)
    {
        if (nanos < 0)
        {
            throw new JcclInvalidArgumentException("nanos=" + nanos + " is negative");
        }
        final TuningRound round = published(callIndex, plan);
        lastRecorded = Math.max(lastRecorded, callIndex);
        final int published = rounds.size();
        final int leadBefore = lead();
        if (round.number() == rounds.size() - 1)
        {
            measure(round, callIndex, plan, nanos);
        }
        advanceHorizon();
        if (rounds.size() != published || lead() != leadBefore)
        {
            return 0;
        }
        return frozenNow() && config.driftEnabled() ? Math.max(1, lead() / 4) : Integer.MAX_VALUE;
    }

    /** A record of the current round: a sample of the round being measured, or the drift watch's. */
    private void measure(final TuningRound round, final long callIndex, final Plan plan, final long nanos)
    {
        if (measuring)
        {
            final int offset = (int)(callIndex - round.firstCall());
            if (samples[offset] < 0)
            {
                samples[offset] = nanos;
                recorded++;
                if (recorded == samples.length)
                {
                    if (confirming != null)
                    {
                        finishConfirmationRound();
                    }
                    else
                    {
                        finishRound(plan);
                    }
                }
            }
        }
        else if (round.frozen() && drift.observe(nanos))
        {
            retune(config.retuneFromBest() ? bestPlan : defaultPlan());
        }
    }

    /** @return true while the last round is a converged plan's. */
    private boolean frozenNow()
    {
        return status == TaskState.Status.CONVERGED && rounds.get(rounds.size() - 1).frozen();
    }

    /**
     * @return the calls past the leader's last record a converged plan is given for: those that take about
     *         {@value #LEAD_TARGET_NS} ns at its reference time, within [{@value #MIN_LEAD_CALLS}, {@code leadCalls}];
     *         the least while the reference is being measured.
     */
    private int lead()
    {
        final int most = config.leadCalls();
        final int least = Math.min(MIN_LEAD_CALLS, most);
        final double referenceNs = drift == null ? Double.NaN : drift.referenceNs();
        if (!(referenceNs > 0))
        {
            return least;
        }
        return (int)Math.max(least, Math.min(most, Math.ceil(LEAD_TARGET_NS / referenceNs)));
    }

    /** Moves {@link #givenUpTo} on to {@link #lead()} past the last record, while a converged plan is given. */
    private void advanceHorizon()
    {
        if (status == TaskState.Status.CONVERGED && rounds.get(rounds.size() - 1).open())
        {
            givenUpTo = Math.max(givenUpTo, Math.max(frozenFrom - 1, lastRecorded) + lead());
        }
    }

    /**
     * @param callIndex the leader's call, failed or timed out.
     * @param plan      the plan it ran.
     * @param reason    why, for the report.
     */
    synchronized void failed(final long callIndex, final Plan plan, final String reason)
    {
        final TuningRound round = published(callIndex, plan);
        lastRecorded = Math.max(lastRecorded, callIndex);
        failures++;
        lastFailure = plan.id() + " at call " + callIndex + ": " + reason;
        if (round.number() == rounds.size() - 1)
        {
            abandon(round, plan);
        }
        advanceHorizon();
    }

    /** A failure in the current round: the candidate, the confirmation or the converged plan is given up. */
    private void abandon(final TuningRound round, final Plan plan)
    {
        if (measuring && confirming != null)
        {
            measuring = false;
            failed.add(plan);
            final ConfirmationRounds abandoned = confirming;
            confirming = null;
            conclude(abandoned.abandon(failed, bestNs, baselineNs));
        }
        else if (measuring)
        {
            measuring = false;
            trials++;
            search.fail(plan);
            publishNext();
        }
        else if (round.frozen() && config.driftEnabled() && !failed.contains(plan))
        {
            failed.add(plan);
            retune(defaultPlan());
        }
    }

    /** @return a snapshot of the task's state. */
    synchronized TaskState state()
    {
        final boolean searching = search != null;
        return new TaskState(status, trials, totalSearchCalls, baselinePlan, baselineNs,
            searching ? search.best() : bestPlan, searching ? search.bestNs() : bestNs, retunes, failures,
            subspaces.size(), searching ? search.dropped() : dropped,
            restarts + (searching ? search.restartsDone() : 0), lastFailure, confirmation, confirmedSpeedup,
            confirmCalls);
    }

    /** @return the rounds published so far, in order. */
    synchronized List<TuningRound> rounds()
    {
        return List.copyOf(rounds);
    }

    /** @return how many times the task has converged. */
    synchronized int convergences()
    {
        return convergences;
    }

    /**
     * @return the last call index a converged plan is given for: {@link #lead()} past the leader's last record, never
     *         less than before; {@link Long#MAX_VALUE} with drift detection off.
     */
    private long horizon()
    {
        if (!config.driftEnabled())
        {
            return Long.MAX_VALUE;
        }
        return givenUpTo;
    }

    private TuningRound published(final long callIndex, final Plan plan)
    {
        if (plan == null)
        {
            throw new JcclInvalidArgumentException("plan is null");
        }
        if (callIndex < 0)
        {
            throw new JcclInvalidArgumentException("callIndex=" + callIndex + " is negative");
        }
        final TuningRound round = roundAt(callIndex);
        final boolean beyondHorizon = round != null && round.open() && callIndex > horizon();
        if (round == null || beyondHorizon)
        {
            throw new JcclInvalidUsageException("task " + key + ": call " + callIndex + " was recorded but no plan " +
                "was published for it");
        }
        final Plan expected = round.planAt(callIndex);
        if (!expected.equals(plan))
        {
            throw new JcclInvalidUsageException("task " + key + ": call " + callIndex + " ran " + plan.id() +
                " but the tuner published " + expected.id());
        }
        return round;
    }

    private TuningRound roundAt(final long callIndex)
    {
        int low = 0;
        int high = rounds.size() - 1;
        int found = -1;
        while (low <= high)
        {
            final int middle = (low + high) >>> 1;
            if (rounds.get(middle).firstCall() <= callIndex)
            {
                found = middle;
                low = middle + 1;
            }
            else
            {
                high = middle - 1;
            }
        }
        if (found < 0)
        {
            return null;
        }
        final TuningRound round = rounds.get(found);
        return round.covers(callIndex) ? round : null;
    }

    private Plan defaultPlan()
    {
        if (defaultPlan == null)
        {
            final Plan chosen = defaultTuner.choose(request);
            defaultPlan = chosen != null ? chosen : KnobSpace.candidates(request, constraints).get(0);
        }
        return defaultPlan;
    }

    private void startSearch(final Plan start)
    {
        status = TaskState.Status.SEARCHING;
        search = new Search(subspaces, request, start, failed, random, config.restarts());
        searchCalls = 0;
        baselinePlan = start;
        baselineNs = Double.NaN;
        baselineRound = rounds.size();
        confirmation = TaskState.Confirmation.NONE;
        confirmedSpeedup = Double.NaN;
        publishNext();
    }

    private void publishNext()
    {
        final Plan next = search.propose();
        final int length = config.callsPerCandidate();
        if (next == null || searchCalls + length > config.budgetCalls())
        {
            restarts += search.restartsDone();
            dropped = search.dropped();
            bestPlan = search.best();
            bestNs = search.bestNs();
            if (bestPlan == null)
            {
                bestPlan = fallbackPlan();
            }
            final Plan challenger = search.challenger(baselinePlan);
            search = null;
            confirming = ConfirmationRounds.of(config, bestPlan, challenger, baselinePlan, failed);
            if (confirming != null)
            {
                confirmation = TaskState.Confirmation.RUNNING;
                publishConfirmation();
            }
            else
            {
                freeze(bestPlan, bestNs);
            }
            return;
        }
        rounds.add(new TuningRound(rounds.size(), nextFirstCall, List.of(new TuningRound.Hold(next, length)), false));
        samples = new long[length];
        Arrays.fill(samples, -1L);
        recorded = 0;
        measuring = true;
        searchCalls += length;
        totalSearchCalls += length;
        nextFirstCall += length;
    }

    private void finishRound(final Plan plan)
    {
        measuring = false;
        trials++;
        final double scoreNs = trimmedMean(samples, config.warmupCalls());
        if (rounds.size() - 1 == baselineRound)
        {
            baselineNs = scoreNs;
        }
        search.observe(plan, scoreNs);
        publishNext();
    }

    /** Publishes the next confirmation round: {@link ConfirmationRounds#holds()}, measured as one round. */
    private void publishConfirmation()
    {
        final int length = config.callsPerCandidate();
        final int contenders = confirming.size();
        rounds.add(new TuningRound(rounds.size(), nextFirstCall, confirming.holds(), false));
        samples = new long[contenders * length];
        Arrays.fill(samples, -1L);
        recorded = 0;
        measuring = true;
        confirmCalls += (long)contenders * length;
        nextFirstCall += (long)contenders * length;
    }

    private void finishConfirmationRound()
    {
        measuring = false;
        if (!confirming.score(samples))
        {
            publishConfirmation();
            return;
        }
        final ConfirmationRounds finished = confirming;
        confirming = null;
        conclude(finished.verdict());
    }

    /** Freezes what a confirmation decided, finished or abandoned. */
    private void conclude(final ConfirmationRounds.Verdict verdict)
    {
        confirmation = verdict.confirmation();
        confirmedSpeedup = verdict.speedup();
        baselineNs = verdict.baselineNs();
        bestPlan = verdict.plan();
        bestNs = verdict.planNs();
        freeze(bestPlan, bestNs);
    }

    private Plan fallbackPlan()
    {
        if (!failed.contains(defaultPlan()))
        {
            return defaultPlan();
        }
        for (final Plan plan : KnobSpace.candidates(request, constraints))
        {
            if (!failed.contains(plan))
            {
                return plan;
            }
        }
        return defaultPlan();
    }

    /**
     * @param plan        the plan every later call gets.
     * @param referenceNs the time drift is judged against: the search's score of the plan; NaN to measure it over
     *                    the first converged calls (a plan remembered from another run, or one never scored).
     */
    private void freeze(final Plan plan, final double referenceNs)
    {
        status = TaskState.Status.CONVERGED;
        frozenFrom = nextFirstCall;
        rounds.add(new TuningRound(rounds.size(), frozenFrom, List.of(new TuningRound.Hold(plan, TuningRound.OPEN)),
            true));
        drift = new DriftWatch(config, referenceNs);
        convergences++;
        advanceHorizon();
    }

    /** Closes the frozen round at the horizon and starts a search right after it. */
    private void retune(final Plan start)
    {
        final long end = horizon();
        final TuningRound open = rounds.get(rounds.size() - 1);
        rounds.set(rounds.size() - 1, new TuningRound(open.number(), open.firstCall(),
            List.of(new TuningRound.Hold(bestPlan, end - open.firstCall() + 1)), true));
        nextFirstCall = end + 1;
        retunes++;
        startSearch(start);
    }

    /**
     * @param samples the round's times by call offset.
     * @param skip    the warm-up calls at its start, discarded.
     * @return the mean of the fastest {@link #KEEP_FRACTION} of the rest (at least one).
     */
    static double trimmedMean(final long[] samples, final int skip)
    {
        final long[] timed = Arrays.copyOfRange(samples, skip, samples.length);
        Arrays.sort(timed);
        final int keep = Math.max(1, (int)Math.ceil(KEEP_FRACTION * timed.length));
        double sum = 0;
        for (int i = 0; i < keep; i++)
        {
            sum += timed[i];
        }
        return sum / keep;
    }
}
