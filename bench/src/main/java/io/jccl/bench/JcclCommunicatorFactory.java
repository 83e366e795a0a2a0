package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.Communicator;
import io.jccl.core.Context;
import io.jccl.core.Jccl;

import java.nio.file.Path;
import java.util.List;

/**
 * Ranks from jccl: {@link Jccl#initAll(Context, int)} with a {@link Context} built from the flags ({@code --schedule}
 * registers its file through {@link Context#scheduleFiles(List)}), and jccl's group calls. Settings not given on
 * the command line keep the context's defaults (the {@code JCCL_*} environment).
 */
public final class JcclCommunicatorFactory implements CommunicatorFactory
{
    private String description = "jccl";

    /**
     * @param options the flags.
     * @return the context the communicators are created with.
     */
    public static Context context(final BenchOptions options)
    {
        final Context context = new Context();
        final Long timeoutMs = options.timeoutMs();
        if (timeoutMs != null)
        {
            context.timeoutMs(timeoutMs);
        }
        final Algorithm algorithm = options.algorithm();
        if (algorithm != null)
        {
            context.algorithm(algorithm);
        }
        final Integer channels = options.channels();
        if (channels != null)
        {
            context.channels(channels);
        }
        final Integer chunkBytes = options.chunkBytes();
        if (chunkBytes != null)
        {
            context.chunkBytes(chunkBytes);
        }
        final Path schedule = options.schedule();
        if (schedule != null)
        {
            // the one file replaces JCCL_SCHEDULE_FILES, so that the rows the bench reports are this file's
            context.scheduleFiles(List.of(schedule));
        }
        return context;
    }

    @Override
    public Communicator[] create(final BenchOptions options, final int nRanks)
    {
        final Context context = context(options);
        description = "jccl timeoutMs=" + context.timeoutMs() + " pins=" + context.constraints() + " schedules=" +
            context.scheduleFiles();
        return Jccl.initAll(context, nRanks);
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

    @Override
    public String describe()
    {
        return description;
    }
}
