package io.jccl.autotune;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Settings;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The settings of the {@link OnlineTuner}, after AutoCCL: how long a candidate plan is held, how many calls a task
 * may spend searching, how often the search restarts, how call sizes are grouped into tasks, and when a converged
 * task is tuned again. {@link #defaults()} holds the defaults; {@link #fromSettings(Map)} reads the
 * {@code JCCL_TUNER_*} variables. Every rank must use the same configuration, or ranks may decide different rounds.
 *
 * @param holdCalls      calls each candidate is timed for, after its warm-up ({@value #HOLD_DEFAULT} by default,
 *                       {@value #HOLD_ENV}); at least 1.
 * @param warmupCalls    calls each candidate runs first whose times are discarded ({@value #WARMUP_DEFAULT},
 *                       {@value #WARMUP_ENV}); at least 0.
 * @param budgetCalls    calls one search of a task may spend on candidates, baseline included, before it freezes its
 *                       best ({@value #BUDGET_DEFAULT}, {@value #BUDGET_ENV}); at least {@code warmupCalls +
 *                       holdCalls}.
 * @param restarts       descents started from a random unvisited plan after the subspaces' descents
 *                       ({@value #RESTARTS_DEFAULT}, {@value #RESTARTS_ENV}); at least 0.
 * @param buckets        how sizes group into tasks ({@value #BUCKETS_ENV}).
 * @param driftFactor    a converged task is tuned again when the moving average of its plan's time exceeds its
 *                       reference time by this factor ({@value #DRIFT_FACTOR_DEFAULT}, {@value #DRIFT_FACTOR_ENV});
 *                       above 1.
 * @param driftWindow    ...for this many consecutive calls ({@value #DRIFT_WINDOW_DEFAULT},
 *                       {@value #DRIFT_WINDOW_ENV}); 0 turns drift detection off, and a converged plan is then given
 *                       for every call index at once.
 * @param leadCalls      with drift detection on, the most calls past the leader's last recorded call a converged
 *                       plan is given for ({@value #LEAD_DEFAULT}, {@value #LEAD_ENV}): as many as take about 10 ms
 *                       at the plan's score, at least 16 (or this if smaller); a re-tune takes effect after them, so
 *                       no rank can have bound a call the re-tune changes; at least 1. Across processes rank 0 sends
 *                       a converged plan's records in batches of a quarter of the lead (a message per call took an
 *                       8-byte AllReduce between two processes from about 1 to 35-40 us; with a cap of 512, a batch
 *                       every 128 calls, it took 1.5-3.2 us, and 1.1-1.7 us with 10 ms of calls).
 * @param retuneFromBest true to start a re-tune from the converged plan, false from the default tuner's plan
 *                       ({@value #RETUNE_FROM_ENV}{@code =best|default}, best by default).
 * @param saveFile       where the caller keeps converged plans across runs ({@value #SAVE_FILE_ENV}), or null.
 * @param seed           the seed of the random choices (restart points), so that the search is deterministic
 *                       ({@value #SEED_ENV}).
 * @param confirmRounds  before a search freezes, rounds that interleave its best, a challenger of another algorithm
 *                       or protocol and its baseline, each held for {@code warmupCalls + holdCalls} calls in an
 *                       order rotated every round, so that all are scored under the same conditions
 *                       ({@value #CONFIRM_ROUNDS_DEFAULT}, {@value #CONFIRM_ROUNDS_ENV}); 0 turns the confirmation
 *                       off. Its calls are spent on top of the budget: at most
 *                       {@code 3 x confirmRounds x (warmupCalls + holdCalls)} per search.
 * @param confirmMargin  the confirmation keeps the best only if the baseline's confirmed score exceeds the best's by
 *                       this factor, else it freezes the baseline ({@value #CONFIRM_MARGIN_DEFAULT},
 *                       {@value #CONFIRM_MARGIN_ENV}); finite and at least 1.
 * @param driftMinMs     ...and for at least this many milliseconds of those calls' summed time
 *                       ({@value #DRIFT_MIN_MS_DEFAULT}, {@value #DRIFT_MIN_MS_ENV}); at least 0. A window counted in
 *                       calls alone is 50 us of 1 us calls: a JIT compilation or a neighbour's burst lasts longer,
 *                       and small tasks re-tuned a dozen times in one bench run.
 */
public record OnlineTunerConfig(int holdCalls, int warmupCalls, int budgetCalls, int restarts, Buckets buckets,
    double driftFactor, int driftWindow, int leadCalls, boolean retuneFromBest, Path saveFile, long seed,
    int confirmRounds, double confirmMargin, long driftMinMs)
{
    /** The variable of {@link #holdCalls()}. */
    public static final String HOLD_ENV = Settings.TUNER_HOLD;
    /** The variable of {@link #warmupCalls()}. */
    public static final String WARMUP_ENV = Settings.TUNER_WARMUP;
    /** The variable of {@link #budgetCalls()}. */
    public static final String BUDGET_ENV = Settings.TUNER_BUDGET;
    /** The variable of {@link #restarts()}. */
    public static final String RESTARTS_ENV = Settings.TUNER_RESTARTS;
    /** The variable of {@link #buckets()}: {@code pow2} or {@code exact}. */
    public static final String BUCKETS_ENV = Settings.TUNER_BUCKETS;
    /** The variable of {@link #driftFactor()}. */
    public static final String DRIFT_FACTOR_ENV = Settings.TUNER_DRIFT_FACTOR;
    /** The variable of {@link #driftWindow()}. */
    public static final String DRIFT_WINDOW_ENV = Settings.TUNER_DRIFT_WINDOW;
    /** The variable of {@link #leadCalls()}. */
    public static final String LEAD_ENV = Settings.TUNER_LEAD;
    /** The variable of {@link #retuneFromBest()}: {@code best} or {@code default}. */
    public static final String RETUNE_FROM_ENV = Settings.TUNER_RETUNE_FROM;
    /** The variable of {@link #saveFile()}. */
    public static final String SAVE_FILE_ENV = Settings.TUNER_SAVE_FILE;
    /** The variable of {@link #seed()}. */
    public static final String SEED_ENV = Settings.TUNER_SEED;
    /** The variable of {@link #confirmRounds()}. */
    public static final String CONFIRM_ROUNDS_ENV = Settings.TUNER_CONFIRM_ROUNDS;
    /** The variable of {@link #confirmMargin()}. */
    public static final String CONFIRM_MARGIN_ENV = Settings.TUNER_CONFIRM_MARGIN;
    /** The variable of {@link #driftMinMs()}. */
    public static final String DRIFT_MIN_MS_ENV = Settings.TUNER_DRIFT_MIN_MS;
    /** Every variable {@link #fromSettings(java.util.Map)} reads, for callers that gather them. */
    public static final java.util.List<String> VARIABLES = java.util.List.of(HOLD_ENV, WARMUP_ENV, BUDGET_ENV,
        RESTARTS_ENV, BUCKETS_ENV, DRIFT_FACTOR_ENV, DRIFT_WINDOW_ENV, LEAD_ENV, RETUNE_FROM_ENV, SAVE_FILE_ENV,
        SEED_ENV, CONFIRM_ROUNDS_ENV, CONFIRM_MARGIN_ENV, DRIFT_MIN_MS_ENV);

    /** Default {@link #holdCalls()}. */
    public static final int HOLD_DEFAULT = 5;
    /** Default {@link #warmupCalls()}. */
    public static final int WARMUP_DEFAULT = 1;
    /** Default {@link #budgetCalls()}. */
    public static final int BUDGET_DEFAULT = 200;
    /** Default {@link #restarts()}. */
    public static final int RESTARTS_DEFAULT = 2;
    /** Default {@link #driftFactor()}. */
    public static final double DRIFT_FACTOR_DEFAULT = 1.5;
    /** Default {@link #driftWindow()}. */
    public static final int DRIFT_WINDOW_DEFAULT = 50;
    /** Default {@link #leadCalls()}. */
    public static final int LEAD_DEFAULT = 16_384;
    /** Default {@link #seed()}. */
    public static final long SEED_DEFAULT = 0x6a63636cL;
    /** Default {@link #confirmRounds()}. */
    public static final int CONFIRM_ROUNDS_DEFAULT = 3;
    /** Default {@link #confirmMargin()}. */
    public static final double CONFIRM_MARGIN_DEFAULT = 1.02;
    /** Default {@link #driftMinMs()}. */
    public static final long DRIFT_MIN_MS_DEFAULT = 1000;
    /** The most plans a confirmation holds: the search's best, a challenger and the baseline. */
    static final long CONFIRM_CONTENDERS = 3;

    private static final OnlineTunerConfig DEFAULTS = new OnlineTunerConfig(HOLD_DEFAULT, WARMUP_DEFAULT,
        BUDGET_DEFAULT, RESTARTS_DEFAULT, Buckets.POW2, DRIFT_FACTOR_DEFAULT, DRIFT_WINDOW_DEFAULT, LEAD_DEFAULT, true,
        null, SEED_DEFAULT, CONFIRM_ROUNDS_DEFAULT, CONFIRM_MARGIN_DEFAULT, DRIFT_MIN_MS_DEFAULT);

    /** How call sizes ({@link PlanRequest#bytes()}) group into tasks. */
    public enum Buckets
    {
        /** One task per power-of-two range of sizes: {@code [2^b, 2^(b+1) - 1]}, and 0 alone (the default). */
        POW2("pow2"),
        /** One task per exact size, as AutoCCL keys them. */
        EXACT("exact");

        private final String lowerName;

        Buckets(final String lowerName)
        {
            this.lowerName = lowerName;
        }

        /** @return the stable lower-case name, as {@value OnlineTunerConfig#BUCKETS_ENV} takes it. */
        public String lowerName()
        {
            return lowerName;
        }
    }

    /**
     * Validates every field, naming its variable.
     *
     * @param holdCalls      calls each candidate is timed for, at least 1.
     * @param warmupCalls    discarded calls per candidate, at least 0.
     * @param budgetCalls    calls one search may spend, at least {@code warmupCalls + holdCalls}.
     * @param restarts       random restarts, at least 0.
     * @param buckets        how sizes group into tasks, not null.
     * @param driftFactor    the drift threshold, finite and above 1.
     * @param driftWindow    consecutive calls over the threshold that start a re-tune, at least 0 (0: off).
     * @param leadCalls      calls a converged plan is given past the leader's last record, at least 1.
     * @param retuneFromBest true to start a re-tune from the converged plan, false from the default plan.
     * @param saveFile       the file for converged plans, or null.
     * @param seed           the seed of the random choices.
     * @param confirmRounds  interleaved confirmation rounds before a search freezes, at least 0 (0: off).
     * @param confirmMargin  the factor the best must beat the baseline by in the confirmation, finite and at least 1.
     * @param driftMinMs     the least summed time, in ms, of the calls over the drift threshold that start a
     *                       re-tune, at least 0.
     * @throws JcclInvalidArgumentException on an out-of-range field, naming its variable.
     */
    public OnlineTunerConfig
    {
        final List<String> errors = new ArrayList<>();
        if (holdCalls < 1)
        {
            errors.add(HOLD_ENV + "=" + holdCalls + " is invalid; valid values: 1.." + Integer.MAX_VALUE);
        }
        if (warmupCalls < 0)
        {
            errors.add(WARMUP_ENV + "=" + warmupCalls + " is invalid; valid values: 0.." + Integer.MAX_VALUE);
        }
        if (restarts < 0)
        {
            errors.add(RESTARTS_ENV + "=" + restarts + " is invalid; valid values: 0.." + Integer.MAX_VALUE);
        }
        if (buckets == null)
        {
            errors.add(BUCKETS_ENV + " is null; valid values: pow2, exact");
        }
        if (!(driftFactor > 1.0) || Double.isInfinite(driftFactor))
        {
            errors.add(DRIFT_FACTOR_ENV + "=" + driftFactor + " is invalid; valid values: a finite number above 1");
        }
        if (driftWindow < 0)
        {
            errors.add(DRIFT_WINDOW_ENV + "=" + driftWindow + " is invalid; valid values: 0 (off) or a positive " +
                "count");
        }
        if (leadCalls < 1)
        {
            errors.add(LEAD_ENV + "=" + leadCalls + " is invalid; valid values: 1.." + Integer.MAX_VALUE);
        }
        if (confirmRounds < 0)
        {
            errors.add(CONFIRM_ROUNDS_ENV + "=" + confirmRounds + " is invalid; valid values: 0 (off).." +
                Integer.MAX_VALUE);
        }
        if (!(confirmMargin >= 1.0) || Double.isInfinite(confirmMargin))
        {
            errors.add(CONFIRM_MARGIN_ENV + "=" + confirmMargin + " is invalid; valid values: a finite number of " +
                "at least 1");
        }
        if (driftMinMs < 0)
        {
            errors.add(DRIFT_MIN_MS_ENV + "=" + driftMinMs + " is invalid; valid values: 0.." + Long.MAX_VALUE);
        }
        if (holdCalls >= 1 && warmupCalls >= 0 && (long)budgetCalls < (long)holdCalls + warmupCalls)
        {
            errors.add(BUDGET_ENV + "=" + budgetCalls + " is invalid; valid values: at least " +
                WARMUP_ENV + " + " + HOLD_ENV + " (" + ((long)holdCalls + warmupCalls) + ")");
        }
        if (!errors.isEmpty())
        {
            throw new JcclInvalidArgumentException(String.join("; ", errors));
        }
    }

    /**
     * The settings with the default confirmation ({@value #CONFIRM_ROUNDS_DEFAULT} rounds,
     * {@value #CONFIRM_MARGIN_DEFAULT} margin): the fields that existed before it.
     *
     * @param holdCalls      calls each candidate is timed for, at least 1.
     * @param warmupCalls    discarded calls per candidate, at least 0.
     * @param budgetCalls    calls one search may spend, at least {@code warmupCalls + holdCalls}.
     * @param restarts       random restarts, at least 0.
     * @param buckets        how sizes group into tasks, not null.
     * @param driftFactor    the drift threshold, finite and above 1.
     * @param driftWindow    consecutive calls over the threshold that start a re-tune, at least 0 (0: off).
     * @param leadCalls      calls a converged plan is given past the leader's last record, at least 1.
     * @param retuneFromBest true to start a re-tune from the converged plan, false from the default plan.
     * @param saveFile       the file for converged plans, or null.
     * @param seed           the seed of the random choices.
     * @throws JcclInvalidArgumentException on an out-of-range field, naming its variable.
     */
    public OnlineTunerConfig(final int holdCalls, final int warmupCalls, final int budgetCalls, final int restarts,
        final Buckets buckets, final double driftFactor, final int driftWindow, final int leadCalls,
        final boolean retuneFromBest, final Path saveFile, final long seed)
    {
        this(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow, leadCalls,
            retuneFromBest, saveFile, seed, CONFIRM_ROUNDS_DEFAULT, CONFIRM_MARGIN_DEFAULT);
    }

    /**
     * The settings with the default drift time ({@value #DRIFT_MIN_MS_DEFAULT} ms): the fields that existed before
     * it.
     *
     * @param holdCalls      calls each candidate is timed for, at least 1.
     * @param warmupCalls    discarded calls per candidate, at least 0.
     * @param budgetCalls    calls one search may spend, at least {@code warmupCalls + holdCalls}.
     * @param restarts       random restarts, at least 0.
     * @param buckets        how sizes group into tasks, not null.
     * @param driftFactor    the drift threshold, finite and above 1.
     * @param driftWindow    consecutive calls over the threshold that start a re-tune, at least 0 (0: off).
     * @param leadCalls      calls a converged plan is given past the leader's last record, at least 1.
     * @param retuneFromBest true to start a re-tune from the converged plan, false from the default plan.
     * @param saveFile       the file for converged plans, or null.
     * @param seed           the seed of the random choices.
     * @param confirmRounds  interleaved confirmation rounds before a search freezes, at least 0 (0: off).
     * @param confirmMargin  the factor the best must beat the baseline by in the confirmation, finite and at least 1.
     * @throws JcclInvalidArgumentException on an out-of-range field, naming its variable.
     */
    public OnlineTunerConfig(final int holdCalls, final int warmupCalls, final int budgetCalls, final int restarts,
        final Buckets buckets, final double driftFactor, final int driftWindow, final int leadCalls,
        final boolean retuneFromBest, final Path saveFile, final long seed, final int confirmRounds,
        final double confirmMargin)
    {
        this(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow, leadCalls,
            retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, DRIFT_MIN_MS_DEFAULT);
    }

    /**
     * @return the defaults: hold 5 after 1 warm-up call, budget 200, 2 restarts, pow2 buckets, drift 1.5x over 50,
     *         lasting 1 s, 3 confirmation rounds with a 1.02x margin.
     */
    public static OnlineTunerConfig defaults()
    {
        return DEFAULTS;
    }

    /**
     * Reads the {@code JCCL_TUNER_*} variables; a variable absent or blank keeps its default.
     *
     * @param settings the variables (the environment, or the Context's settings); not null.
     * @return the configuration.
     * @throws JcclInvalidArgumentException naming every variable whose value is invalid, with its valid values.
     */
    public static OnlineTunerConfig fromSettings(final Map<String, String> settings)
    {
        if (settings == null)
        {
            throw new JcclInvalidArgumentException("settings is null");
        }
        final List<String> errors = new ArrayList<>();
        final int hold = (int)integer(settings, HOLD_ENV, HOLD_DEFAULT, 1, Integer.MAX_VALUE, errors);
        final int warmup = (int)integer(settings, WARMUP_ENV, WARMUP_DEFAULT, 0, Integer.MAX_VALUE, errors);
        final int budget = (int)integer(settings, BUDGET_ENV, BUDGET_DEFAULT, 1, Integer.MAX_VALUE, errors);
        final int restarts = (int)integer(settings, RESTARTS_ENV, RESTARTS_DEFAULT, 0, Integer.MAX_VALUE, errors);
        final int window = (int)integer(settings, DRIFT_WINDOW_ENV, DRIFT_WINDOW_DEFAULT, 0, Integer.MAX_VALUE,
            errors);
        final long driftMinMs = integer(settings, DRIFT_MIN_MS_ENV, DRIFT_MIN_MS_DEFAULT, 0, Long.MAX_VALUE, errors);
        final int lead = (int)integer(settings, LEAD_ENV, LEAD_DEFAULT, 1, Integer.MAX_VALUE, errors);
        final long seed = integer(settings, SEED_ENV, SEED_DEFAULT, Long.MIN_VALUE, Long.MAX_VALUE, errors);
        final int confirmRounds = (int)integer(settings, CONFIRM_ROUNDS_ENV, CONFIRM_ROUNDS_DEFAULT, 0,
            Integer.MAX_VALUE, errors);

        Buckets buckets = Buckets.POW2;
        final String bucketText = value(settings, BUCKETS_ENV);
        if (bucketText != null)
        {
            buckets = null;
            for (final Buckets candidate : Buckets.values())
            {
                if (candidate.lowerName().equalsIgnoreCase(bucketText))
                {
                    buckets = candidate;
                }
            }
            if (buckets == null)
            {
                errors.add(BUCKETS_ENV + "='" + bucketText + "' is invalid; valid values: pow2, exact");
                buckets = Buckets.POW2;
            }
        }

        double factor = DRIFT_FACTOR_DEFAULT;
        final String factorText = value(settings, DRIFT_FACTOR_ENV);
        if (factorText != null)
        {
            try
            {
                factor = Double.parseDouble(factorText);
            }
            catch (final NumberFormatException ex)
            {
                factor = Double.NaN;
            }
            if (!(factor > 1.0) || Double.isInfinite(factor))
            {
                errors.add(DRIFT_FACTOR_ENV + "='" + factorText + "' is invalid; valid values: a finite number " +
                    "above 1");
                factor = DRIFT_FACTOR_DEFAULT;
            }
        }

        double margin = CONFIRM_MARGIN_DEFAULT;
        final String marginText = value(settings, CONFIRM_MARGIN_ENV);
        if (marginText != null)
        {
            try
            {
                margin = Double.parseDouble(marginText);
            }
            catch (final NumberFormatException ex)
            {
                margin = Double.NaN;
            }
            if (!(margin >= 1.0) || Double.isInfinite(margin))
            {
                errors.add(CONFIRM_MARGIN_ENV + "='" + marginText + "' is invalid; valid values: a finite number of " +
                    "at least 1");
                margin = CONFIRM_MARGIN_DEFAULT;
            }
        }

        boolean fromBest = true;
        final String fromText = value(settings, RETUNE_FROM_ENV);
        if (fromText != null)
        {
            if ("default".equalsIgnoreCase(fromText))
            {
                fromBest = false;
            }
            else if (!"best".equalsIgnoreCase(fromText))
            {
                errors.add(RETUNE_FROM_ENV + "='" + fromText + "' is invalid; valid values: best, default");
            }
        }

        Path saveFile = null;
        final String fileText = value(settings, SAVE_FILE_ENV);
        if (fileText != null)
        {
            try
            {
                saveFile = Path.of(fileText);
            }
            catch (final RuntimeException ex)
            {
                errors.add(SAVE_FILE_ENV + "='" + fileText + "' is not a valid path: " + ex.getMessage());
            }
        }

        if (errors.isEmpty() && (long)budget < (long)hold + warmup)
        {
            errors.add(BUDGET_ENV + "=" + budget + " is invalid; valid values: at least " + WARMUP_ENV + " + " +
                HOLD_ENV + " (" + ((long)hold + warmup) + ")");
        }
        if (!errors.isEmpty())
        {
            throw new JcclInvalidArgumentException(String.join("; ", errors));
        }
        return new OnlineTunerConfig(hold, warmup, budget, restarts, buckets, factor, window, lead, fromBest, saveFile,
            seed, confirmRounds, margin, driftMinMs);
    }

    /** @return the calls one candidate occupies: {@code warmupCalls + holdCalls}, one round of the search. */
    public int callsPerCandidate()
    {
        return warmupCalls + holdCalls;
    }

    /** @return true when converged tasks watch for drift ({@link #driftWindow()} above 0). */
    public boolean driftEnabled()
    {
        return driftWindow > 0;
    }

    /**
     * @param holdCalls   calls each candidate is timed for, at least 1.
     * @param warmupCalls discarded calls per candidate, at least 0.
     * @return a copy with these hold and warm-up counts.
     * @throws JcclInvalidArgumentException if out of range or above the budget.
     */
    public OnlineTunerConfig withHold(final int holdCalls, final int warmupCalls)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param budgetCalls calls one search may spend, at least {@link #callsPerCandidate()}.
     * @return a copy with this budget.
     * @throws JcclInvalidArgumentException if out of range.
     */
    public OnlineTunerConfig withBudgetCalls(final int budgetCalls)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param restarts random restarts, at least 0.
     * @return a copy with this many restarts.
     * @throws JcclInvalidArgumentException if negative.
     */
    public OnlineTunerConfig withRestarts(final int restarts)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param buckets how sizes group into tasks.
     * @return a copy with this grouping.
     * @throws JcclInvalidArgumentException if null.
     */
    public OnlineTunerConfig withBuckets(final Buckets buckets)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param driftFactor the drift threshold, above 1.
     * @param driftWindow consecutive calls over it that start a re-tune; 0 turns drift detection off.
     * @return a copy with this drift rule.
     * @throws JcclInvalidArgumentException if out of range.
     */
    public OnlineTunerConfig withDrift(final double driftFactor, final int driftWindow)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param leadCalls calls a converged plan is given past the leader's last record, at least 1.
     * @return a copy with this lead.
     * @throws JcclInvalidArgumentException if below 1.
     */
    public OnlineTunerConfig withLeadCalls(final int leadCalls)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param retuneFromBest true to start a re-tune from the converged plan, false from the default plan.
     * @return a copy with this choice.
     */
    public OnlineTunerConfig withRetuneFromBest(final boolean retuneFromBest)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param saveFile the file for converged plans, or null.
     * @return a copy with this file.
     */
    public OnlineTunerConfig withSaveFile(final Path saveFile)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param seed the seed of the random choices.
     * @return a copy with this seed.
     */
    public OnlineTunerConfig withSeed(final long seed)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param confirmRounds interleaved confirmation rounds before a search freezes, at least 0 (0: off).
     * @param confirmMargin the factor the best must beat the baseline by, finite and at least 1.
     * @return a copy with this confirmation.
     * @throws JcclInvalidArgumentException if out of range.
     */
    public OnlineTunerConfig withConfirm(final int confirmRounds, final double confirmMargin)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /**
     * @param driftMinMs the least summed time, in ms, of the calls over the drift threshold that start a re-tune.
     * @return a copy with this drift time.
     * @throws JcclInvalidArgumentException if negative.
     */
    public OnlineTunerConfig withDriftMinMs(final long driftMinMs)
    {
        return new OnlineTunerConfig(holdCalls, warmupCalls, budgetCalls, restarts, buckets, driftFactor, driftWindow,
            leadCalls, retuneFromBest, saveFile, seed, confirmRounds, confirmMargin, driftMinMs);
    }

    /** @return true when a search confirms its best against its baseline ({@link #confirmRounds()} above 0). */
    public boolean confirmEnabled()
    {
        return confirmRounds > 0;
    }

    /** @return the most calls one search's confirmation may take: {@code 3 x confirmRounds x callsPerCandidate}. */
    public long confirmCalls()
    {
        return CONFIRM_CONTENDERS * confirmRounds * callsPerCandidate();
    }

    private static String value(final Map<String, String> settings, final String name)
    {
        final String text = settings.get(name);
        return text == null || text.isBlank() ? null : text.strip();
    }

    private static long integer(final Map<String, String> settings, final String name, final long fallback,
        final long min, final long max, final List<String> errors)
    {
        final String text = value(settings, name);
        if (text == null)
        {
            return fallback;
        }
        final String range = min == Long.MIN_VALUE ? "a 64-bit integer" :
            String.format(Locale.ROOT, "%d..%d", min, max);
        final long parsed;
        try
        {
            parsed = Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            errors.add(name + "='" + text + "' is not an integer; valid values: " + range);
            return fallback;
        }
        if (parsed < min || parsed > max)
        {
            errors.add(name + "=" + parsed + " is invalid; valid values: " + range);
            return fallback;
        }
        return parsed;
    }
}
