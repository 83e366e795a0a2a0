package io.jccl.autotune;

/**
 * The drift watch of a converged task: an exponential moving average of its frozen plan's call times against a
 * reference time, which asks for a re-tune once the average has stayed above {@code driftFactor} times the reference
 * for {@code driftWindow} calls and {@code driftMinMs} of their time. The reference is the search's score of the
 * plan, or for a plan never scored in this run, the score of its first converged calls. A {@link TaskTuning} makes
 * one each time it freezes a plan and calls it under the task's lock; not thread-safe on its own.
 */
final class DriftWatch
{
    /** A converged call's time enters the drift average capped at this times the threshold (a GC pause is one). */
    static final double DRIFT_CLAMP = 2.0;

    private final OnlineTunerConfig config;
    private final long[] referenceSamples;
    private int referenceCount;
    private double referenceNs;
    private double averageNs;
    private int driftRun;
    /** The summed (clamped) time of the calls of {@link #driftRun}, in ns. */
    private double driftRunNs;

    /**
     * @param config      the settings.
     * @param referenceNs the time drift is judged against: the search's score of the plan; NaN to measure it over
     *                    the first converged calls (a plan remembered from another run, or one never scored).
     */
    DriftWatch(final OnlineTunerConfig config, final double referenceNs)
    {
        this.config = config;
        referenceSamples = new long[config.callsPerCandidate()];
        final boolean scored = referenceNs > 0 && Double.isFinite(referenceNs);
        referenceCount = scored ? referenceSamples.length : 0;
        this.referenceNs = scored ? referenceNs : Double.NaN;
        averageNs = this.referenceNs;
    }

    /** @return the reference time in ns, or NaN while it is being measured. */
    double referenceNs()
    {
        return referenceCount < referenceSamples.length ? Double.NaN : referenceNs;
    }

    /**
     * Takes the time of one of the converged plan's calls into the moving average (nothing with drift detection off).
     *
     * @param nanos the call's time in ns.
     * @return true when the plan has drifted: the task is to be tuned again.
     */
    boolean observe(final long nanos)
    {
        if (!config.driftEnabled())
        {
            return false;
        }
        if (referenceCount < referenceSamples.length)
        {
            // a remembered plan's score comes from another run: its reference is measured afresh
            referenceSamples[referenceCount++] = nanos;
            if (referenceCount == referenceSamples.length)
            {
                referenceNs = Math.max(1.0, TaskTuning.trimmedMean(referenceSamples, config.warmupCalls()));
                averageNs = referenceNs;
            }
            return false;
        }
        final double thresholdNs = config.driftFactor() * referenceNs;
        final double alpha = 2.0 / (config.driftWindow() + 1.0);
        final double clampedNs = Math.min(nanos, DRIFT_CLAMP * thresholdNs);
        averageNs += alpha * (clampedNs - averageNs);
        if (averageNs <= thresholdNs)
        {
            driftRun = 0;
            driftRunNs = 0;
            return false;
        }
        driftRun++;
        driftRunNs += clampedNs;
        return driftRun >= config.driftWindow() && driftRunNs >= config.driftMinMs() * 1e6;
    }
}
