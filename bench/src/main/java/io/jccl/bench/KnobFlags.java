package io.jccl.bench;

import io.jccl.JcclException;
import io.jccl.core.Context;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The flags that set jccl's plan knobs, its tuner and the online tuner's trace, a picocli argument group of
 * {@link BenchOptions} under its own heading in {@code -h}. Each flag names the {@code JCCL_*} variable it sets; one
 * not given leaves the variable in force. Values stay text until {@link SweepKey#apply} parses them into a
 * {@link Context}.
 */
final class KnobFlags
{
    @Option(names = "--algo", paramLabel = "<spec>", order = 1,
        description = "JCCL_ALGO: algorithms allowed, NCCL's syntax (ring, ^tree, allreduce:tree;allgather:ring), " +
            "and jccl's direct (AllReduce, AllGather, ReduceScatter in one message per peer)")
    private String algo;

    @Option(names = "--proto", paramLabel = "<spec>", order = 2,
        description = "JCCL_PROTO: protocols allowed, NCCL's syntax (simple, ll,ll128, ^ll128, allreduce:ll)")
    private String proto;

    @Option(names = "--transport", paramLabel = "<p2p|shm>", order = 3,
        description = "JCCL_TRANSPORT: the path between ranks")
    private String transport;

    @Option(names = "--nchannels", paramLabel = "<n>", order = 4,
        description = "JCCL_MIN_NCHANNELS = JCCL_MAX_NCHANNELS: pin the channels per call, 1..32 (alias " +
            "--channels)")
    private String nChannels;

    @Option(names = "--channels", paramLabel = "<n>", hidden = true, description = "alias of --nchannels")
    private String channelsAlias;

    @Option(names = "--min-nchannels", converter = BenchOptions.IntConverter.class, paramLabel = "<n>", order = 5,
        description = "JCCL_MIN_NCHANNELS: fewest channels per call, 1..32")
    private Integer minChannels;

    @Option(names = "--max-nchannels", converter = BenchOptions.IntConverter.class, paramLabel = "<n>", order = 6,
        description = "JCCL_MAX_NCHANNELS: most channels per call, 1..32")
    private Integer maxChannels;

    @Option(names = "--block-threads", paramLabel = "<n>", order = 7,
        description = "JCCL_NTHREADS: threads per CUDA block, 32..640, a multiple of 32 (not -t/--nthreads, " +
            "which is nccl-tests' threads per process); no effect on the host backend")
    private String blockThreads;

    @Option(names = {"--chunk", "--chunk-bytes"}, paramLabel = "<bytes>", order = 8,
        description = "JCCL_CHUNK_SIZE: pipelining grain, K/M suffixes allowed")
    private String chunk;

    @Option(names = "--tuner", paramLabel = "<model|table|auto>", order = 9,
        description = "JCCL_TUNER: model = the cost model alone (ignores JCCL_TUNER_CONFIG_FILE); " +
            "table = the --tuner-config table over the cost model; auto = the online search on the run's own " +
            "calls (JCCL_TUNER_* settings), below a --tuner-config table if given")
    private String tuner;

    @Option(names = "--tuner-config", paramLabel = "<file.csv>", order = 10,
        description = "JCCL_TUNER_CONFIG_FILE: a table in NCCL's tuner-plugin CSV format; implies --tuner table")
    private Path tunerConfig;

    @Option(names = "--trace", paramLabel = "<file.csv>", order = 11,
        description = "JCCL_TUNER_TRACE: with --tuner auto, write every trial of the online tuner (rank 0's calls: " +
            "task,call,plan,ns,outcome) to this CSV file, replaced; 'jccl-bench plot --trace FILE' draws it")
    private Path trace;

    /** @return {@code --algo} as given, or null. */
    String algo()
    {
        return algo;
    }

    /** @return the knob flags given, as typed; the aliases {@code --channels} and {@code --chunk-bytes} included. */
    Map<SweepKey, String> given()
    {
        final Map<SweepKey, String> flags = new EnumMap<>(SweepKey.class);
        putIfGiven(flags, SweepKey.ALGO, algo);
        putIfGiven(flags, SweepKey.PROTO, proto);
        putIfGiven(flags, SweepKey.TRANSPORT, transport);
        putIfGiven(flags, SweepKey.NCHANNELS, nChannels != null ? nChannels : channelsAlias);
        putIfGiven(flags, SweepKey.CHUNK, chunk);
        putIfGiven(flags, SweepKey.BLOCK_THREADS, blockThreads);
        return flags;
    }

    private static void putIfGiven(final Map<SweepKey, String> flags, final SweepKey key, final String value)
    {
        if (value != null)
        {
            flags.put(key, value);
        }
    }

    /** @return {@code --min-nchannels}, or null. */
    Integer minChannels()
    {
        return minChannels;
    }

    /** @return {@code --max-nchannels}, or null. */
    Integer maxChannels()
    {
        return maxChannels;
    }

    /** @return where the tuner table comes from. */
    TunerMode tunerMode()
    {
        if ("model".equals(tuner))
        {
            return TunerMode.MODEL;
        }
        if ("auto".equals(tuner))
        {
            return TunerMode.AUTO;
        }
        return tunerConfig != null || "table".equals(tuner) ? TunerMode.TABLE : TunerMode.ENVIRONMENT;
    }

    /** @return {@code --tuner-config}, or null. */
    Path tunerConfig()
    {
        return tunerConfig;
    }

    /** @return {@code --trace}, or null. */
    Path trace()
    {
        return trace;
    }

    /**
     * Checks each knob flag on its own, then how they combine, before any rank starts.
     *
     * @throws IllegalArgumentException naming the flag of a bad value.
     */
    void validate()
    {
        if (nChannels != null && channelsAlias != null)
        {
            throw new IllegalArgumentException("--nchannels and --channels together: --channels is its alias; " +
                "give one");
        }
        given().forEach((key, value) ->
        {
            try
            {
                key.check(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(key.flag() + " '" + value + "': " + ex.getMessage(), ex);
            }
        });
        final Integer min = minChannels;
        final Integer max = maxChannels;
        if (min != null || max != null)
        {
            final String pinned = given().get(SweepKey.NCHANNELS);
            if (pinned != null)
            {
                throw new IllegalArgumentException("--nchannels " + pinned + " pins the channel count; give it or " +
                    "--min-nchannels/--max-nchannels, not both");
            }
            // 0 means "unset" to the context: a flag's bound is at least 1
            atLeastOne(min, "--min-nchannels");
            atLeastOne(max, "--max-nchannels");
            final String flags = ((min != null ? " --min-nchannels " + min : "") +
                (max != null ? " --max-nchannels " + max : "")).strip();
            checkOnContext(flags, context -> context.channelRange(min == null ? 0 : min, max == null ? 0 : max));
        }
        if (tuner != null && !"model".equals(tuner) && !"table".equals(tuner) && !"auto".equals(tuner))
        {
            throw new IllegalArgumentException("--tuner '" + tuner + "' is not one of model, table, auto");
        }
        if ("table".equals(tuner) && tunerConfig == null)
        {
            throw new IllegalArgumentException("--tuner table needs --tuner-config FILE");
        }
        if ("model".equals(tuner) && tunerConfig != null)
        {
            throw new IllegalArgumentException("--tuner model and --tuner-config " + tunerConfig +
                " together: model uses no table; give one of them");
        }
        if (tunerConfig != null)
        {
            try
            {
                Context.checkTunerConfigFile(tunerConfig);
            }
            catch (final JcclException ex)
            {
                throw new IllegalArgumentException("--tuner-config " + tunerConfig + ": " + ex.getMessage(), ex);
            }
        }
    }

    private static void atLeastOne(final Integer value, final String flag)
    {
        if (value != null && value < 1)
        {
            throw new IllegalArgumentException(flag + " " + value + " must be at least 1");
        }
    }

    /** Sets a value on a context with no other knob and validates it, naming the flags on failure. */
    private static void checkOnContext(final String flags, final Consumer<Context> setter)
    {
        try
        {
            final Context context = SweepKey.unpinned();
            setter.accept(context);
            context.checkPlanSettings();
        }
        catch (final JcclException ex)
        {
            throw new IllegalArgumentException(flags + ": " + ex.getMessage(), ex);
        }
    }
}
