package io.jccl.autotune;

import java.util.Locale;

/**
 * One task of the {@link OnlineTuner} and where it stands, for {@code JCCL_DEBUG=INFO} and the bench summary.
 *
 * @param key   the task.
 * @param state its state.
 */
public record TaskReport(TaskKey key, TaskState state)
{
    /**
     * @return one line: the task, its status, trials and calls, the best plan and time and the baseline's, for
     *         example {@code allreduce/float/sum/r4/1024..2047/comm1 converged after 23 trials (138 calls), 1
     *         restart, 9 of 12 subspaces dropped: ring/ll/p2p/c2/t256/k32768 12.300 us, baseline
     *         ring/simple/p2p/c1/t256/k131072 20.100 us (1.63x), confirmed 1.63x: kept}; after a confirmation
     *         that fell back, {@code ..., confirmed 0.82x: fell back to the baseline}.
     */
    public String line()
    {
        final StringBuilder out = new StringBuilder(192);
        out.append(key.canonical()).append(' ')
            .append(state.converged() ? "converged after " : "searching, ")
            .append(state.trials()).append(state.trials() == 1 ? " trial (" : " trials (")
            .append(state.searchCalls()).append(" calls), ")
            .append(state.restarts()).append(state.restarts() == 1 ? " restart, " : " restarts, ")
            .append(state.droppedSubspaces()).append(" of ").append(state.subspaces()).append(" subspaces dropped");
        if (state.retunes() > 0)
        {
            out.append(", ").append(state.retunes()).append(state.retunes() == 1 ? " re-tune" : " re-tunes");
        }
        if (state.failures() > 0)
        {
            out.append(", ").append(state.failures()).append(state.failures() == 1 ? " failure" : " failures");
        }
        out.append(": ").append(state.bestPlan() == null ? "no plan scored" : state.bestPlan().id())
            .append(' ').append(micros(state.bestNs()));
        if (state.baselinePlan() != null)
        {
            out.append(", baseline ").append(state.baselinePlan().id()).append(' ').append(micros(state.baselineNs()));
            final double speedup = state.speedup();
            if (Double.isFinite(speedup))
            {
                out.append(String.format(Locale.ROOT, " (%.2fx)", speedup));
            }
        }
        switch (state.confirmation())
        {
            case RUNNING -> out.append(", confirming against the baseline");
            case KEPT -> out.append(", confirmed ").append(ratio(state.confirmedSpeedup())).append(": kept");
            case FELL_BACK -> out.append(", confirmed ").append(ratio(state.confirmedSpeedup()))
                .append(": fell back to the baseline");
            default ->
            {
            }
        }
        return out.toString();
    }

    /** @return {@link #line()}. */
    @Override
    public String toString()
    {
        return line();
    }

    private static String ratio(final double ratio)
    {
        return Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.2fx", ratio) : "n/a";
    }

    private static String micros(final double nanos)
    {
        return Double.isNaN(nanos) ? "n/a" : String.format(Locale.ROOT, "%.3f us", nanos / 1000.0);
    }
}
