package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.TuningReport;
import io.jccl.core.Context;
import io.jccl.core.Jccl;

import java.nio.file.Path;
import java.util.List;

/**
 * Ranks from jccl: {@link Jccl#initAll(Context, int)} with a {@link Context} built from the flags and a sweep
 * combination ({@code --schedule} registers its file through {@link Context#scheduleFiles(List)}), and jccl's group
 * calls. Settings not given on the command line keep the context's defaults (the {@code JCCL_*} environment).
 * {@code --trace} sets the context's {@link Context#tunerTraceFile(Path)}; the online tuner's reports come from
 * {@link Jccl#tuningReports(Communicator)}.
 */
public final class JcclCommunicatorFactory implements CommunicatorFactory
{
    private String description = "jccl";

    /**
     * @param options the flags.
     * @return the context the communicators of a run without sweep are created with.
     * @throws IllegalArgumentException if a knob flag cannot be parsed (see {@link SweepKey#apply}).
     */
    public static Context context(final BenchOptions options)
    {
        return context(options, SweepCombination.DEFAULT);
    }

    /**
     * The context of one pass: the {@code JCCL_*} environment, then the knob flags over it, then the combination's
     * pins over those. Values are checked when {@link Context#checkPlanSettings()} is called.
     *
     * @param options     the flags.
     * @param combination the sweep's pins for this pass, {@link SweepCombination#DEFAULT} for none.
     * @return the context the communicators are created with.
     * @throws IllegalArgumentException if a knob value cannot be parsed (see {@link SweepKey#apply}), or only one of
     *                                  {@code --min-nchannels} and {@code --max-nchannels} is given and the other's
     *                                  variable is not an integer.
     */
    public static Context context(final BenchOptions options, final SweepCombination combination)
    {
        final Context context = new Context();
        final Long timeoutMs = options.timeoutMs();
        if (timeoutMs != null)
        {
            context.timeoutMs(timeoutMs);
        }
        options.knobFlags().forEach((key, value) -> key.apply(context, value));
        final Integer min = options.minChannels();
        final Integer max = options.maxChannels();
        if (min != null)
        {
            context.minChannels(min);
        }
        if (max != null)
        {
            context.maxChannels(max);
        }
        switch (options.tunerMode())
        {
            case MODEL -> context.tunerConfigFile(null).tunerMode(Context.TunerMode.MODEL);
            case TABLE -> context.tunerConfigFile(options.tunerConfig()).tunerMode(Context.TunerMode.TABLE);
            case AUTO ->
            {
                context.tunerMode(Context.TunerMode.AUTO);
                if (options.tunerConfig() != null)
                {
                    context.tunerConfigFile(options.tunerConfig());
                }
            }
            default ->
            {
                // JCCL_TUNER_CONFIG_FILE stays in force
            }
        }
        if (options.traceFile() != null)
        {
            context.tunerTraceFile(options.traceFile());
        }
        combination.applyTo(context);
        context.cuda(options.cudaApi());
        final Path schedule = options.schedule();
        if (schedule != null)
        {
            // the one file replaces JCCL_SCHEDULE_FILES, so that the rows the bench reports are this file's
            context.scheduleFiles(List.of(schedule));
        }
        return context;
    }

    @Override
    public Communicator[] create(final BenchOptions options, final SweepCombination combination, final int nRanks)
    {
        final Context context = context(options, combination);
        description = "jccl " + settings(context);
        return Jccl.initAll(context, nRanks);
    }

    /**
     * With the online tuner ({@code --tuner auto}): the same ranks with a tuner of their own, which neither reads nor
     * writes the save file, and no trace. Its searches run the candidate plans' code and the tuner's own until the
     * JIT has compiled them, so that the run's searches score compiled code; under the cost model instead, the run's
     * first trials scored 10-80 us calls that took 1 us compiled, and tuned rows timed their own compilation.
     */
    @Override
    public Communicator[] createForWarmUp(final BenchOptions options, final SweepCombination combination,
        final int nRanks)
    {
        final Context context = warmUpContext(options, combination);
        return context == null ? null : Jccl.initAll(context, nRanks);
    }

    /**
     * @param options     the flags.
     * @param combination the pins of this pass.
     * @return the context of the online tuner's warm-up ranks ({@link #createForWarmUp}): the run's, with the
     *         tuner's save file and trace dropped; null when the run's plans are not the online tuner's.
     */
    static Context warmUpContext(final BenchOptions options, final SweepCombination combination)
    {
        final Context context = context(options, combination);
        if (context.tunerMode() != Context.TunerMode.AUTO)
        {
            return null;
        }
        return context.tunerSaveFile(null).tunerTraceFile(null);
    }

    /**
     * @param context a context built by {@link #context(BenchOptions, SweepCombination)}.
     * @return its settings for the log: deadline, pins, tuner table and schedule files.
     */
    static String settings(final Context context)
    {
        return "timeoutMs=" + context.timeoutMs() + " pins=" + context.planSettings() + " tunerTable=" +
            context.tunerConfigFile() + " schedules=" + context.scheduleFiles();
    }

    @Override
    public List<TuningReport> tuningReports(final Communicator communicator)
    {
        return Jccl.tuningReports(communicator);
    }

    @Override
    public void groupStart()
    {
        Jccl.groupStart();
    }

    @Override
    public void groupEnd()
    {
        Jccl.groupEnd();
    }

    /** @return true: jccl's ranks read {@code Jccl.allocate}'s memory in place across processes. */
    @Override
    public boolean sharedMemory()
    {
        return true;
    }

    @Override
    public String describe()
    {
        return description;
    }
}
