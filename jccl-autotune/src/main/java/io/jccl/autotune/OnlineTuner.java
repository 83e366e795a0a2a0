package io.jccl.autotune;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.JcclSystemException;
import io.jccl.Plan;
import io.jccl.ReduceOp;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The online tuner, after AutoCCL: it tunes each task ({@link TaskKey}) by timing real calls, as pure decision
 * logic that jccl-core drives. No threads, no clock, no I/O except {@link #save} and {@link #load}.
 *
 * <h2>The search</h2>
 * A task's first calls run the default tuner's plan, the baseline. Its space ({@link KnobSpace#candidates}) is split
 * into subspaces of algorithm x protocol x transport. Each subspace's point nearest the baseline is measured (a
 * survey); subspaces over 1.5 times the best of the survey are dropped. The others are searched one after another,
 * in order of that score, by coordinate descent over channels, chunk size and threads (after a gain the step grows
 * by 0.8 x the relative gain; after a loss it falls back to the nearest candidate, reverses once, then turns to the
 * next knob), each from its point nearest the best plan so far, and dropped if that point scores over 1.5 times the
 * best. Then the search restarts {@code restarts} times from a random unvisited point (the {@link java.util.Random}
 * is seeded by the configuration), and freezes its best; it also freezes when the next candidate would pass the
 * budget. Each candidate runs {@code warmupCalls} discarded calls and {@code holdCalls} timed ones, scored by the
 * mean of the fastest 75%. A candidate whose call fails is never tried again; the search goes on from the best known
 * plan.
 *
 * <h2>Confirmation</h2>
 * The baseline is measured first and the best maybe minutes later; on a busy machine (JIT, neighbours) those scores
 * are not comparable, and at small sizes one score per plan is within the noise. So before a search freezes,
 * {@code confirmRounds} rounds hold its best (unless that is the baseline), a challenger (the best-scored plan of
 * another algorithm or protocol) and the baseline in turn, for {@code warmupCalls + holdCalls} calls each, in an
 * order rotated every round; each plan's confirmed score is the median of its holds' scores, and the fastest other
 * than the baseline is frozen only if the baseline's exceeds it by {@code confirmMargin} and it beat the baseline in
 * every round, else the baseline is
 * ({@link TaskState#confirmation()}). These calls come on top of the budget, at most
 * {@code 3 x confirmRounds x (warmupCalls + holdCalls)}, so a task always converges.
 *
 * <h2>Lock-step</h2>
 * Only the leader (rank 0) times calls. Every rank asks {@link #planFor} for its k-th call of a task (k from 0); the
 * answer is null until the {@link TuningRound} covering k is published, and the rank must then keep the call at the
 * head of its queue and ask again later, never block. The leader calls {@link #record} (or {@link #failed}) when its
 * k-th call completes; when it has recorded every call of the current round, the next round is published, decided
 * from the recorded results alone: every rank sees the same sequence. After convergence the plan is given at once;
 * with drift detection on, for up to {@code leadCalls} calls past the leader's last record.
 *
 * <h2>Drift</h2>
 * Once converged, the leader's calls keep an exponential moving average (weight {@code 2 / (driftWindow + 1)}) of
 * the converged plan's time, each call capped at twice the threshold; its reference is the plan's score in the
 * search (for a plan loaded from a file: the trimmed mean of its first {@code warmupCalls + holdCalls} calls). When
 * the average stays over {@code driftFactor} times the reference for {@code driftWindow} consecutive calls, the task
 * is tuned again from the converged plan (or from the default plan), starting after the calls already given the
 * converged plan. A failure of the converged plan also
 * starts a re-tune, without that plan.
 *
 * <h2>Memory and export</h2>
 * {@link #save} writes converged plans under a machine/topology fingerprint; {@link #load} reads those of one
 * fingerprint back, and the tasks start converged (matched exactly, or a new communicator's task by its shape:
 * collective, type, operator, ranks and sizes). {@link #exportTable()} writes converged plans as NCCL's tuner table.
 * <p>
 * Thread-safe: each task is guarded by its own lock; the table of tasks is concurrent.
 */
public final class OnlineTuner
{
    private final OnlineTunerConfig config;
    private final Tuner defaultTuner;
    private final PlanConstraints constraints;
    private final Map<TaskKey, TaskTuning> tasks = new ConcurrentHashMap<>();
    private final Map<String, TunerMemory.Entry> remembered;
    private final List<String> warnings;

    /**
     * @param config       the settings.
     * @param defaultTuner the tuner whose plan is measured first (the cost model); a null answer means the first
     *                     candidate of {@link KnobSpace#candidates}.
     * @param constraints  what the settings allow: the search space; the default tuner should obey them too.
     * @throws JcclInvalidArgumentException if any is null.
     */
    public OnlineTuner(final OnlineTunerConfig config, final Tuner defaultTuner, final PlanConstraints constraints)
    {
        this(config, defaultTuner, constraints, Map.of(), List.of());
    }

    private OnlineTuner(final OnlineTunerConfig config, final Tuner defaultTuner, final PlanConstraints constraints,
        final Map<String, TunerMemory.Entry> remembered, final List<String> warnings)
    {
        if (config == null)
        {
            throw new JcclInvalidArgumentException("config is null");
        }
        if (defaultTuner == null)
        {
            throw new JcclInvalidArgumentException("defaultTuner is null");
        }
        if (constraints == null)
        {
            throw new JcclInvalidArgumentException("constraints is null");
        }
        this.config = config;
        this.defaultTuner = defaultTuner;
        this.constraints = constraints;
        this.remembered = remembered;
        this.warnings = List.copyOf(warnings);
    }

    /**
     * Reads the plans remembered under a fingerprint. A file that does not exist gives a tuner with nothing
     * remembered (a first run); so do entries of other fingerprints. Remembered plans the constraints no longer
     * allow are skipped with a line in {@link #warnings()}.
     *
     * @param file         the file ({@code JCCL_TUNER_SAVE_FILE}).
     * @param fingerprint  the machine and topology, as the caller names them (no tabs or line breaks).
     * @param config       the settings.
     * @param defaultTuner the tuner whose plan a new search measures first.
     * @param constraints  what the settings allow.
     * @return the tuner, the remembered tasks converged.
     * @throws TunerConfigException         listing every malformed line as {@code file:line: reason}.
     * @throws JcclSystemException          if the file exists but cannot be read.
     * @throws JcclInvalidArgumentException on a null argument or a malformed fingerprint.
     */
    public static OnlineTuner load(final Path file, final String fingerprint, final OnlineTunerConfig config,
        final Tuner defaultTuner, final PlanConstraints constraints)
    {
        if (file == null)
        {
            throw new JcclInvalidArgumentException("file is null");
        }
        TunerMemory.checkFingerprint(fingerprint);
        final List<TunerMemory.Entry> entries = Files.exists(file) ? TunerMemory.read(file) : List.of();
        final Map<String, TunerMemory.Entry> byShape = new HashMap<>();
        final List<TunerMemory.Entry> exact = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        for (final TunerMemory.Entry entry : entries)
        {
            if (!entry.fingerprint().equals(fingerprint))
            {
                continue;
            }
            final String rejection = constraints == null ? null :
                constraints.rejection(entry.key().collective(), entry.plan());
            if (rejection != null)
            {
                warnings.add(file + ": " + entry.key() + " -> " + entry.plan().id() + " skipped: not allowed by " +
                    rejection);
                continue;
            }
            byShape.putIfAbsent(entry.key().shape(), entry);
            exact.add(entry);
        }
        final OnlineTuner tuner = new OnlineTuner(config, defaultTuner, constraints,
            Collections.unmodifiableMap(byShape), warnings);
        for (final TunerMemory.Entry entry : exact)
        {
            tuner.tasks.putIfAbsent(entry.key(), TaskTuning.converged(entry.key(), entry.request(), config,
                defaultTuner, constraints, entry.plan(), entry.scoreNs()));
        }
        return tuner;
    }

    /**
     * The task of a call whose operator is not given (a collective that does not reduce).
     *
     * @param request        the call shape.
     * @param communicatorId the communicator.
     * @return the task, its size range by the configured bucket rule.
     * @throws JcclInvalidArgumentException if request is null.
     */
    public TaskKey key(final PlanRequest request, final long communicatorId)
    {
        return key(request, null, communicatorId);
    }

    /**
     * @param request        the call shape.
     * @param op             the reduction operator, or null for a collective that does not reduce (only its family
     *                       counts: PreMulSum's scalar does not make another task).
     * @param communicatorId the communicator.
     * @return the task: with {@code pow2} buckets sizes {@code [2^b, 2^(b+1) - 1]} (0 alone), with {@code exact} the
     *         call's size.
     * @throws JcclInvalidArgumentException if request is null.
     */
    public TaskKey key(final PlanRequest request, final ReduceOp op, final long communicatorId)
    {
        if (request == null)
        {
            throw new JcclInvalidArgumentException("request is null");
        }
        final long bytes = request.bytes();
        long minBytes = bytes;
        long maxBytes = bytes;
        if (config.buckets() == OnlineTunerConfig.Buckets.POW2 && bytes > 0)
        {
            minBytes = Long.highestOneBit(bytes);
            maxBytes = minBytes == Long.highestOneBit(Long.MAX_VALUE) ? Long.MAX_VALUE : (minBytes << 1) - 1;
        }
        return new TaskKey(request.collective(), request.type(), op == null ? null : op.kind(), request.ranks(),
            communicatorId, minBytes, maxBytes);
    }

    /**
     * The plan of a rank's call. The first call of a task creates it (its first round, the baseline, is published
     * at once; a remembered task is converged).
     *
     * @param task      the call's task ({@link #key}).
     * @param request   the call's shape; it must belong to the task.
     * @param callIndex the rank's count of its earlier calls of this task: 0 for its first.
     * @return the plan, the same on every rank for the same task and index; null while not decided: keep the call
     *         queued and ask again after the leader's next record.
     * @throws JcclInvalidArgumentException on a null argument, a negative index or a request outside the task.
     */
    public Plan planFor(final TaskKey task, final PlanRequest request, final long callIndex)
    {
        return tuning(task, request).planFor(callIndex);
    }

    /**
     * A task's tuning for a caller that plans and records its calls: the first use of a task creates it, as
     * {@link #planFor} does. A task is never replaced once made, so the handle stands for the task for the tuner's
     * life, and its calls skip the lookup of the task (a hash of its key and a map probe, per call).
     *
     * @param task    the task ({@link #key}).
     * @param request a call's shape; it must belong to the task.
     * @return the task's handle.
     * @throws JcclInvalidArgumentException on a null argument or a request outside the task.
     */
    public Task task(final TaskKey task, final PlanRequest request)
    {
        return new Task(tuning(task, request));
    }

    private TaskTuning tuning(final TaskKey task, final PlanRequest request)
    {
        if (task == null)
        {
            throw new JcclInvalidArgumentException("task is null");
        }
        final TaskTuning tuning = tasks.get(task);
        if (tuning != null)
        {
            return tuning;
        }
        if (request == null || !task.covers(request))
        {
            throw new JcclInvalidArgumentException("request " + request + " does not belong to task " + task);
        }
        return tasks.computeIfAbsent(task, key -> create(key, request));
    }

    /** One task of a tuner ({@link #task}): {@link OnlineTuner#planFor} and {@link OnlineTuner#record} for it. */
    public static final class Task
    {
        private final TaskTuning tuning;

        private Task(final TaskTuning tuning)
        {
            this.tuning = tuning;
        }

        /**
         * @param callIndex the rank's count of its earlier calls of this task.
         * @return as {@link OnlineTuner#planFor}.
         */
        public Plan planFor(final long callIndex)
        {
            return tuning.planFor(callIndex);
        }

        /**
         * @param callIndex the call's index, as given to {@link #planFor}.
         * @param plan      the plan it ran.
         * @param nanos     its time in ns, at least 0.
         * @return as {@link OnlineTuner#record}.
         */
        public int record(final long callIndex, final Plan plan, final long nanos)
        {
            return tuning.record(callIndex, plan, nanos);
        }
    }

    /**
     * The leader's k-th call of a task completed. Once every call of the current round is recorded, the next round
     * is published. Records of calls outside the round being measured are ignored, except a converged plan's, which
     * feed the drift watch; a second record of a call is ignored.
     *
     * @param task      the task.
     * @param callIndex the call's index, as given to {@link #planFor}.
     * @param plan      the plan it ran ({@link #planFor}'s answer).
     * @param nanos     its time in ns, at least 0.
     * @return how many records, this one included, other processes' tuners that follow this one may get late, in
     *         order: 0 when the record published a round or changed the lead (they need it, and every record before
     *         it, now); a quarter of the converged plan's lead when it fed the drift watch; {@link Integer#MAX_VALUE}
     *         for a sample of the round being measured (the round's last sample publishes the next). Until they get
     *         them they publish a prefix of this tuner's rounds and give a converged plan to fewer calls than it does,
     *         never more; within these bounds, to enough calls that every rank's next call can run.
     * @throws JcclInvalidArgumentException on a null argument or a negative index or time.
     * @throws JcclInvalidUsageException    if the task is unknown, no plan was published for the call, or it ran
     *                                      another plan than the one published.
     */
    public int record(final TaskKey task, final long callIndex, final Plan plan, final long nanos)
    {
        return existing(task).record(callIndex, plan, nanos);
    }

    /**
     * The leader's k-th call of a task failed or timed out. The candidate being measured is never tried again and
     * the next round is published at once (after the calls already published for it). A converged plan that fails
     * is dropped and the task tuned again (with drift detection on; else the failure is only counted).
     *
     * @param task      the task.
     * @param callIndex the call's index.
     * @param plan      the plan it ran.
     * @param reason    why, for the report.
     * @throws JcclInvalidArgumentException on a null argument or a negative index.
     * @throws JcclInvalidUsageException    if the task is unknown, no plan was published for the call, or it ran
     *                                      another plan than the one published.
     */
    public void failed(final TaskKey task, final long callIndex, final Plan plan, final String reason)
    {
        existing(task).failed(callIndex, plan, reason);
    }

    /**
     * @param task a task.
     * @return its state, or null if no call of it has been seen and none was loaded.
     */
    public TaskState state(final TaskKey task)
    {
        final TaskTuning tuning = task == null ? null : tasks.get(task);
        return tuning == null ? null : tuning.state();
    }

    /**
     * @param task a task.
     * @return the rounds published for it so far, in order; empty for an unknown task.
     */
    public List<TuningRound> rounds(final TaskKey task)
    {
        final TaskTuning tuning = task == null ? null : tasks.get(task);
        return tuning == null ? List.of() : tuning.rounds();
    }

    /** @return every task and its state, in {@link TaskKey#STABLE_ORDER}. */
    public List<TaskReport> reports()
    {
        final List<TaskKey> keys = new ArrayList<>(tasks.keySet());
        keys.sort(TaskKey.STABLE_ORDER);
        final List<TaskReport> reports = new ArrayList<>(keys.size());
        for (final TaskKey key : keys)
        {
            reports.add(new TaskReport(key, tasks.get(key).state()));
        }
        return reports;
    }

    /** @return how many times tasks have converged so far: the caller may {@link #save} when it grows. */
    public long convergences()
    {
        long count = 0;
        for (final TaskTuning tuning : tasks.values())
        {
            count += tuning.convergences();
        }
        return count;
    }

    /**
     * Writes the converged tasks' plans under a fingerprint, keeping the file's entries of other fingerprints.
     *
     * @param file        the file ({@code JCCL_TUNER_SAVE_FILE}); its directory is created if missing.
     * @param fingerprint the machine and topology, as the caller names them (no tabs or line breaks).
     * @throws TunerConfigException         if the existing file is malformed (it is left as it is).
     * @throws JcclSystemException          if the file cannot be read or written.
     * @throws JcclInvalidArgumentException on a null file or a malformed fingerprint.
     */
    public void save(final Path file, final String fingerprint)
    {
        if (file == null)
        {
            throw new JcclInvalidArgumentException("file is null");
        }
        TunerMemory.checkFingerprint(fingerprint);
        final List<TunerMemory.Entry> entries = new ArrayList<>();
        if (Files.exists(file))
        {
            for (final TunerMemory.Entry entry : TunerMemory.read(file))
            {
                if (!entry.fingerprint().equals(fingerprint))
                {
                    entries.add(entry);
                }
            }
        }
        for (final Converged converged : converged())
        {
            entries.add(new TunerMemory.Entry(fingerprint, converged.key, converged.request, converged.state.bestPlan(),
                converged.state.bestNs()));
        }
        TunerMemory.write(file, entries);
    }

    /**
     * The converged tasks' plans as lines of NCCL's tuner table ({@link TableTuner}): per task
     * {@code collective,minBytes,maxBytes,algorithm,protocol,channels,nNodes,nRanks,-1,-1 # jccl: transport=..
     * chunk=.. threads=..}. The table has no columns for the type, operator or communicator: where tasks differ only
     * in those, the first in {@link TaskKey#STABLE_ORDER} gives the line and the others are left out in a comment.
     *
     * @return the lines, comments first; {@link TableTuner#parse} gives back the same plans.
     */
    public List<String> exportTable()
    {
        final List<String> lines = new ArrayList<>();
        lines.add("# jccl online tuner: converged plans in NCCL's tuner table format");
        lines.add("# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff");
        final Map<String, Plan> written = new HashMap<>();
        for (final Converged converged : converged())
        {
            final TaskKey key = converged.key;
            final Plan plan = converged.state.bestPlan();
            final String match = key.collective().xmlName() + ',' + key.minBytes() + ',' + key.maxBytes() + ',' +
                converged.request.nodes() + ',' + key.ranks();
            final Plan earlier = written.putIfAbsent(match, plan);
            if (earlier != null)
            {
                if (!earlier.equals(plan))
                {
                    lines.add("# left out, an earlier line covers the same calls: " + key + " -> " + plan.id());
                }
                continue;
            }
            lines.add(key.collective().xmlName() + ',' + key.minBytes() + ',' + key.maxBytes() + ',' +
                plan.algorithm().lowerName() + ',' + plan.protocol().lowerName() + ',' + plan.channels() + ',' +
                converged.request.nodes() + ',' + key.ranks() + ",-1,-1 # " + TableTuner.JCCL_COMMENT +
                " transport=" + plan.transport().lowerName() +
                " chunk=" + PlanConstraintsSyntax.formatBytes(plan.chunkBytes()) +
                " threads=" + plan.threads());
        }
        return lines;
    }

    /** @return what {@link #load} skipped, for the caller to log. */
    public List<String> warnings()
    {
        return warnings;
    }

    /** @return the settings. */
    public OnlineTunerConfig config()
    {
        return config;
    }

    private TaskTuning create(final TaskKey key, final PlanRequest request)
    {
        final TunerMemory.Entry entry = remembered.get(key.shape());
        if (entry != null)
        {
            return TaskTuning.converged(key, request, config, defaultTuner, constraints, entry.plan(),
                entry.scoreNs());
        }
        return TaskTuning.searching(key, request, config, defaultTuner, constraints);
    }

    private TaskTuning existing(final TaskKey task)
    {
        if (task == null)
        {
            throw new JcclInvalidArgumentException("task is null");
        }
        final TaskTuning tuning = tasks.get(task);
        if (tuning == null)
        {
            throw new JcclInvalidUsageException("task " + task + " has no calls: ask planFor before recording");
        }
        return tuning;
    }

    private List<Converged> converged()
    {
        final List<TaskKey> keys = new ArrayList<>(tasks.keySet());
        keys.sort(TaskKey.STABLE_ORDER);
        final List<Converged> converged = new ArrayList<>(keys.size());
        for (final TaskKey key : keys)
        {
            final TaskTuning tuning = tasks.get(key);
            final TaskState state = tuning.state();
            if (state.converged())
            {
                converged.add(new Converged(key, tuning.request(), state));
            }
        }
        return converged;
    }

    /** A converged task, for save and export. */
    private record Converged(TaskKey key, PlanRequest request, TaskState state)
    {
    }
}
