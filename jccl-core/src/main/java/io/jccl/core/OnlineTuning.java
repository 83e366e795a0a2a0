package io.jccl.core;

import io.jccl.Topology;
import io.jccl.autotune.OnlineTuner;
import io.jccl.autotune.OnlineTunerConfig;
import io.jccl.autotune.TaskReport;
import io.jccl.autotune.TunerChain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

/**
 * Wires AutoCCL's online search ({@code JCCL_TUNER=auto}) into a group: its settings from the {@code JCCL_TUNER_*}
 * variables, what earlier runs on this machine and topology converged to (loaded from the save file, so known tasks
 * are not tuned again), and at the end the save and one INFO line per task.
 */
final class OnlineTuning
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");
    private static final String[] VARIABLES = {
        OnlineTunerConfig.HOLD_ENV, OnlineTunerConfig.WARMUP_ENV, OnlineTunerConfig.BUDGET_ENV,
        OnlineTunerConfig.RESTARTS_ENV, OnlineTunerConfig.BUCKETS_ENV, OnlineTunerConfig.DRIFT_FACTOR_ENV,
        OnlineTunerConfig.DRIFT_WINDOW_ENV, OnlineTunerConfig.LEAD_ENV, OnlineTunerConfig.RETUNE_FROM_ENV,
        OnlineTunerConfig.SAVE_FILE_ENV, OnlineTunerConfig.SEED_ENV};

    private OnlineTuning()
    {
    }

    static OnlineTuner create(final Context context, final TunerChain chain, final Topology topology)
    {
        final Map<String, String> settings = new HashMap<>();
        for (final String name : VARIABLES)
        {
            final String value = Context.setting(name);
            if (value != null)
            {
                settings.put(name, value);
            }
        }
        final OnlineTunerConfig config = OnlineTunerConfig.fromSettings(settings);
        final OnlineTuner tuner = config.saveFile() != null && Files.exists(config.saveFile()) ?
            OnlineTuner.load(config.saveFile(), fingerprint(topology), config, chain.model(), chain.constraints()) :
            new OnlineTuner(config, chain.model(), chain.constraints());
        tuner.warnings().forEach(w -> LOG.warn("jccl WARN {}", w));
        return tuner;
    }

    static void close(final Context context, final OnlineTuner tuner, final Topology topology)
    {
        if (context.debugInfo())
        {
            for (final TaskReport report : tuner.reports())
            {
                LOG.info("jccl INFO online tuner: {}", report);
            }
        }
        if (tuner.config().saveFile() != null)
        {
            tuner.save(tuner.config().saveFile(), fingerprint(topology));
        }
    }

    /** @return what a saved plan is only valid for: this machine's cores and the communicator's ranks. */
    static String fingerprint(final Topology topology)
    {
        return "host-cores=" + Runtime.getRuntime().availableProcessors() + ";ranks=" + topology.ranks() +
            ";processes=" + (topology.ranks() == 1 ? 1 : topology.processOf(topology.ranks() - 1) + 1);
    }
}
