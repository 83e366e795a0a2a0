package io.jccl.core;

import io.jccl.Topology;
import io.jccl.autotune.OnlineTuner;
import io.jccl.autotune.OnlineTunerConfig;
import io.jccl.autotune.TaskReport;
import io.jccl.autotune.TunerChain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;

/**
 * Wires AutoCCL's online search ({@code JCCL_TUNER=auto}) into a group: its settings from the {@code JCCL_TUNER_*}
 * variables, what earlier runs on this machine and topology converged to (loaded from the save file, so known tasks
 * are not tuned again), and at the end the save and one INFO line per task.
 */
final class OnlineTuning
{
    /** The header of the trace CSV. */
    static final String TRACE_HEADER = "task,call,plan,ns,outcome";

    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");

    private OnlineTuning()
    {
    }

    static OnlineTuner create(final Context context, final TunerChain chain, final Topology topology)
    {
        final OnlineTunerConfig config = context.onlineTuner();
        final OnlineTuner tuner = config.saveFile() != null && Files.exists(config.saveFile()) ?
            OnlineTuner.load(config.saveFile(), fingerprint(topology), config, chain.model(), chain.constraints()) :
            new OnlineTuner(config, chain.model(), chain.constraints());
        tuner.warnings().forEach(w -> LOG.warn("jccl WARN {}", w));
        return tuner;
    }

    static void close(final Context context, final OnlineTuner tuner, final Topology topology,
        final java.io.BufferedWriter trace)
    {
        if (trace != null)
        {
            try
            {
                trace.close();
            }
            catch (final java.io.IOException ex)
            {
                LOG.warn("jccl WARN the tuner trace could not be closed: {}", ex.toString());
            }
        }
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

    /**
     * @param file the trace file, or null for none.
     * @return a writer with the header written, or null.
     */
    static java.io.BufferedWriter openTrace(final java.nio.file.Path file)
    {
        if (file == null)
        {
            return null;
        }
        try
        {
            final java.io.BufferedWriter trace = Files.newBufferedWriter(file);
            trace.write(TRACE_HEADER);
            trace.newLine();
            return trace;
        }
        catch (final java.io.IOException ex)
        {
            throw new io.jccl.JcclInvalidArgumentException(Context.TUNER_TRACE_PROP_NAME + "=" + file +
                " cannot be written: " + ex.getMessage());
        }
    }

    /** Appends one trial to the trace; a failing disk ends the trace, never the call. */
    static java.io.BufferedWriter trace(final java.io.BufferedWriter trace, final io.jccl.autotune.TaskKey task,
        final long call, final io.jccl.Plan plan, final long nanos, final String outcome)
    {
        try
        {
            trace.write(task.canonical() + ',' + call + ',' + plan.id() + ',' + nanos + ',' + outcome);
            trace.newLine();
            return trace;
        }
        catch (final java.io.IOException ex)
        {
            LOG.warn("jccl WARN the tuner trace stopped: {}", ex.toString());
            return null;
        }
    }

    /** @return what a saved plan is only valid for: this machine's cores and the communicator's ranks. */
    static String fingerprint(final Topology topology)
    {
        return "host-cores=" + Runtime.getRuntime().availableProcessors() + ";ranks=" + topology.ranks() +
            ";processes=" + (topology.ranks() == 1 ? 1 : topology.processOf(topology.ranks() - 1) + 1);
    }
}
