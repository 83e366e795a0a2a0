package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Protocol;
import io.jccl.Settings;
import io.jccl.TransportKind;
import io.jccl.autotune.Calibration;
import io.jccl.autotune.OnlineTunerConfig;
import io.jccl.autotune.PlanConstraints;
import io.jccl.autotune.TableTuner;
import io.jccl.kernels.cuda.CudaApi;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settings of communicators, in the style of Aeron's {@code MediaDriver.Context}: {@code x()} reads, {@code x(v)}
 * sets and returns this. Defaults come from {@code JCCL_*} environment variables (or system properties of the same
 * name in lower case with dots, {@code jccl.timeout.ms}); {@link #conclude()} validates every setting, naming the
 * variable.
 * <p>
 * The plan knobs ({@code JCCL_ALGO}, {@code JCCL_PROTO}, {@code JCCL_TRANSPORT}, {@code JCCL_MIN_NCHANNELS},
 * {@code JCCL_MAX_NCHANNELS}, {@code JCCL_NTHREADS}, {@code JCCL_CHUNK_SIZE}) constrain what the tuners may choose
 * (DESIGN.md, "Plans"); {@code JCCL_ALGO} and {@code JCCL_PROTO} take NCCL's syntax: a list ({@code ring,tree}), an
 * exclusion ({@code ^ll128}) or a per-collective form ({@code allreduce:tree,ring;allgather:ring}). A table in NCCL's
 * tuner-plugin format ({@code JCCL_TUNER_CONFIG_FILE}) ranks above the cost model, below the pins.
 * <p>
 * A program sets and reads plain values (enums, numbers, paths). The methods typed with jccl's internal modules
 * ({@link #onlineTuner(OnlineTunerConfig)}, {@link #calibration(Calibration)}) are deprecated for programs; the
 * getters {@link #onlineTuner()}, {@link #calibration()} and {@link #constraints()} are for jccl's own modules, and
 * their types may change. {@link #cuda(CudaApi)} is the backend hook: how a CUDA driver, or the device double in
 * tests, is given to the ranks.
 * <p>
 * Over 600 lines on purpose: one job, the settings; each knob is a getter, a setter and the contract of both in
 * javadoc, and one place checks them all in {@link #conclude()}.
 */
public final class Context
{
    /** Deadline of every wait, in milliseconds. */
    public static final String TIMEOUT_MS_PROP_NAME = Settings.TIMEOUT_MS;
    /** Default deadline: 5 minutes. */
    public static final long TIMEOUT_MS_DEFAULT = 300_000;
    /** Calls a rank holds queued at most before the thread submitting one runs calls ({@link #maxQueuedCalls()}). */
    public static final String MAX_QUEUED_CALLS_PROP_NAME = Settings.MAX_QUEUED_CALLS;
    /**
     * Default {@link #maxQueuedCalls()}: 1024 calls, about 150 KB of them, as a CUDA stream holds about a thousand
     * pending launches. A longer queue buys nothing (a submitter past the bound runs calls itself, so the ranks never
     * starve) and costs: the oldest calls leave the caches and survive the collector's young pauses (the README's
     * figures).
     */
    public static final long MAX_QUEUED_CALLS_DEFAULT = 1024;
    /** Algorithms allowed, NCCL's syntax ({@code ring}, {@code tree}, {@code ^tree}, {@code allreduce:tree}). */
    public static final String ALGO_PROP_NAME = PlanConstraints.ALGO_ENV;
    /** Protocols allowed, NCCL's syntax ({@code simple}, {@code ll}, {@code ll128}, {@code ^ll128}). */
    public static final String PROTO_PROP_NAME = PlanConstraints.PROTO_ENV;
    /** Transport pinned: {@code p2p}, {@code shm} (or {@code net} between hosts). */
    public static final String TRANSPORT_PROP_NAME = PlanConstraints.TRANSPORT_ENV;
    /** Fewest channels per call. */
    public static final String MIN_NCHANNELS_PROP_NAME = PlanConstraints.MIN_CHANNELS_ENV;
    /** Most channels per call. */
    public static final String NCHANNELS_PROP_NAME = PlanConstraints.MAX_CHANNELS_ENV;
    /** Threads per block (CUDA only; no effect on the host backend). */
    public static final String NTHREADS_PROP_NAME = PlanConstraints.THREADS_ENV;
    /** Pipelining grain in bytes ({@code 131072}, {@code 128K}). */
    public static final String CHUNK_SIZE_PROP_NAME = PlanConstraints.CHUNK_ENV;
    /** The chunk a schedule runs with unless one is pinned: 128 KiB. */
    public static final int CHUNK_SIZE_DEFAULT = 128 * 1024;
    /** Which tuner decides unpinned plans: {@code model}, {@code table} or {@code auto} (the online search). */
    public static final String TUNER_PROP_NAME = Settings.TUNER;
    /** With {@code JCCL_TUNER=auto}: a CSV file that receives every trial (task, call, plan, ns, outcome). */
    public static final String TUNER_TRACE_PROP_NAME = Settings.TUNER_TRACE;
    /** A CSV table in the format of NCCL's example tuner plugin. */
    public static final String TUNER_CONFIG_FILE_PROP_NAME = Settings.TUNER_CONFIG_FILE;
    /** MSCCL XML schedules to register: files or directories (every {@code *.xml} in them), ':' or ',' separated. */
    public static final String SCHEDULE_FILES_PROP_NAME = Settings.SCHEDULE_FILES;
    /** Log level of jccl's own diagnostics: {@code WARN} (default), {@code INFO}. */
    public static final String DEBUG_PROP_NAME = Settings.DEBUG;
    /** Set to 0 to stage the CUDA path between processes of a host through host memory instead of CUDA IPC. */
    public static final String CUDA_IPC_PROP_NAME = Settings.CUDA_IPC;

    private long timeoutMs = longSetting(TIMEOUT_MS_PROP_NAME, TIMEOUT_MS_DEFAULT);
    private long maxQueuedCalls = longSetting(MAX_QUEUED_CALLS_PROP_NAME, MAX_QUEUED_CALLS_DEFAULT);
    private String algo = setting(ALGO_PROP_NAME);
    private String proto = setting(PROTO_PROP_NAME);
    private String transport = setting(TRANSPORT_PROP_NAME);
    private String minChannels = setting(MIN_NCHANNELS_PROP_NAME);
    private String maxChannels = setting(NCHANNELS_PROP_NAME);
    private String threads = setting(NTHREADS_PROP_NAME);
    private String chunk = setting(CHUNK_SIZE_PROP_NAME);
    private Path tunerConfigFile = pathSetting(TUNER_CONFIG_FILE_PROP_NAME);
    private String tuner = setting(TUNER_PROP_NAME);
    private Path tunerTraceFile = pathSetting(TUNER_TRACE_PROP_NAME);
    private OnlineTunerConfig onlineTuner;
    private Path tunerSaveFile;
    private boolean tunerSaveFileSet;
    private Calibration calibration;
    private boolean debugInfo = "INFO".equalsIgnoreCase(setting(DEBUG_PROP_NAME)) ||
        "TRACE".equalsIgnoreCase(setting(DEBUG_PROP_NAME));
    private List<Path> scheduleFiles = pathsSetting(SCHEDULE_FILES_PROP_NAME);
    private PlanConstraints constraints;
    private CudaApi cuda;
    private int[] cudaDevices;
    private boolean cudaIpc = !"0".equals(setting(CUDA_IPC_PROP_NAME));
    private String flightRecordPrefix = setting(Settings.FLIGHT_RECORD);

    /**
     * @return where each rank writes its flight record (its last calls, where it waits) when a timeout breaks the
     *         communicator: {@code <prefix><rank>}; null to write it to the log only ({@code JCCL_FLIGHT_RECORD}).
     */
    public String flightRecordPrefix()
    {
        return flightRecordPrefix;
    }

    /**
     * @param prefix a path prefix ({@code /tmp/jccl-flight-} gives {@code /tmp/jccl-flight-0} for rank 0), or null
     *               for the log only.
     * @return this.
     */
    public Context flightRecordPrefix(final String prefix)
    {
        this.flightRecordPrefix = prefix;
        return this;
    }

    /** @return the deadline of every wait in milliseconds. */
    public long timeoutMs()
    {
        return timeoutMs;
    }

    /**
     * @param timeoutMs the deadline of every wait in milliseconds, at least 1.
     * @return this.
     */
    public Context timeoutMs(final long timeoutMs)
    {
        this.timeoutMs = timeoutMs;
        return this;
    }

    /**
     * @return the calls a rank holds queued at most: a thread that submits one more runs the process's calls until one
     *         is done, as a full CUDA launch queue makes its launcher wait for a slot (unbounded, a loop of calls never
     *         waited on would hold every one in memory). A thread that issues more than this on one rank of its process
     *         before it issues the other ranks' must group them, as NCCL asks.
     */
    public long maxQueuedCalls()
    {
        return maxQueuedCalls;
    }

    /**
     * @param maxQueuedCalls calls a rank holds queued at most, at least 1 ({@link #maxQueuedCalls()}).
     * @return this.
     */
    public Context maxQueuedCalls(final long maxQueuedCalls)
    {
        this.maxQueuedCalls = maxQueuedCalls;
        return this;
    }

    /**
     * @param algorithm the algorithm to pin for every collective, or null to let jccl choose.
     * @return this.
     */
    public Context algorithm(final Algorithm algorithm)
    {
        return algo(algorithm == null ? null : algorithm.lowerName());
    }

    /**
     * @param spec the algorithms allowed in NCCL's syntax (as {@code JCCL_ALGO}), or null for any.
     * @return this.
     */
    public Context algo(final String spec)
    {
        this.algo = spec;
        return changed();
    }

    /**
     * @param protocol the protocol to pin for every collective, or null to let jccl choose.
     * @return this.
     */
    public Context protocol(final Protocol protocol)
    {
        return proto(protocol == null ? null : protocol.lowerName());
    }

    /**
     * @param spec the protocols allowed in NCCL's syntax (as {@code JCCL_PROTO}), or null for any.
     * @return this.
     */
    public Context proto(final String spec)
    {
        this.proto = spec;
        return changed();
    }

    /**
     * @param transport the transport to pin, or null to let jccl choose.
     * @return this.
     */
    public Context transport(final TransportKind transport)
    {
        this.transport = transport == null ? null : transport.lowerName();
        return changed();
    }

    /**
     * Pins the channel count ({@code JCCL_MIN_NCHANNELS = JCCL_MAX_NCHANNELS = channels}).
     *
     * @param channels channels per call, 1..32.
     * @return this.
     */
    public Context channels(final int channels)
    {
        return channelRange(channels, channels);
    }

    /**
     * @param min fewest channels per call, 1..32, or 0 for unset.
     * @param max most channels per call, min..32, or 0 for unset.
     * @return this.
     */
    public Context channelRange(final int min, final int max)
    {
        return minChannels(min).maxChannels(max);
    }

    /**
     * @param min fewest channels per call, 1..32, or 0 for unset ({@code JCCL_MIN_NCHANNELS}).
     * @return this.
     */
    public Context minChannels(final int min)
    {
        this.minChannels = min == 0 ? null : Integer.toString(min);
        return changed();
    }

    /**
     * @param max most channels per call, 1..32, or 0 for unset ({@code JCCL_MAX_NCHANNELS}).
     * @return this.
     */
    public Context maxChannels(final int max)
    {
        this.maxChannels = max == 0 ? null : Integer.toString(max);
        return changed();
    }

    /**
     * @param threads threads per block (CUDA only), a multiple of 32 in 32..640, or 0 for unset.
     * @return this.
     */
    public Context threads(final int threads)
    {
        this.threads = threads == 0 ? null : Integer.toString(threads);
        return changed();
    }

    /**
     * @param chunkBytes the pipelining grain in bytes to pin, or 0 to let jccl choose.
     * @return this.
     */
    public Context chunkBytes(final int chunkBytes)
    {
        this.chunk = chunkBytes == 0 ? null : Integer.toString(chunkBytes);
        return changed();
    }

    /**
     * @return the pinned chunk, else the default schedules run with ({@link #CHUNK_SIZE_DEFAULT}).
     * @throws JcclInvalidArgumentException on an invalid setting.
     */
    public int chunkBytes()
    {
        final int pinned = constraints().chunkBytes();
        return pinned > 0 ? pinned : CHUNK_SIZE_DEFAULT;
    }

    /** @return the tuner table in NCCL's plugin format, or null for none. */
    public Path tunerConfigFile()
    {
        return tunerConfigFile;
    }

    /**
     * @param file a CSV table in the format of NCCL's example tuner plugin, or null for none.
     * @return this.
     */
    public Context tunerConfigFile(final Path file)
    {
        this.tunerConfigFile = file;
        return this;
    }

    /** The tuners of {@code JCCL_TUNER}. */
    public enum TunerMode
    {
        /** The cost model alone (a tuner table file is ignored). */
        MODEL,
        /** The tuner table over the cost model (the default when a table file is set). */
        TABLE,
        /** AutoCCL's online search on the job's own calls, over the table and the cost model. */
        AUTO
    }

    /**
     * @return the tuner: {@code JCCL_TUNER}, else TABLE when a table file is set, else MODEL.
     * @throws JcclInvalidArgumentException naming {@code JCCL_TUNER} for an unknown value, or {@code table} without
     *                                      a table file.
     */
    public TunerMode tunerMode()
    {
        if (tuner == null)
        {
            return tunerConfigFile == null ? TunerMode.MODEL : TunerMode.TABLE;
        }
        final TunerMode mode;
        try
        {
            mode = TunerMode.valueOf(tuner.trim().toUpperCase(java.util.Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new JcclInvalidArgumentException(TUNER_PROP_NAME + "='" + tuner + "' is invalid; valid values: " +
                "model, table, auto");
        }
        if (mode == TunerMode.TABLE && tunerConfigFile == null)
        {
            throw new JcclInvalidArgumentException(TUNER_PROP_NAME + "=table needs a table: set " +
                TUNER_CONFIG_FILE_PROP_NAME);
        }
        return mode;
    }

    /**
     * @param mode the tuner, or null for the default ({@link #tunerMode()}).
     * @return this.
     */
    public Context tunerMode(final TunerMode mode)
    {
        this.tuner = mode == null ? null : mode.name();
        return this;
    }

    /** @return the file every online-tuner trial is written to, or null. */
    public Path tunerTraceFile()
    {
        return tunerTraceFile;
    }

    /**
     * @param file the CSV file every online-tuner trial is written to (rank 0's calls; replaced), or null for none.
     * @return this.
     */
    public Context tunerTraceFile(final Path file)
    {
        this.tunerTraceFile = file;
        return this;
    }

    /**
     * For jccl's own modules (the type is internal and may change): programs use {@link #tunerSaveFile(Path)},
     * {@link #tunerCallsToConverge()} and {@link #checkOnlineTuner()}, and the {@code JCCL_TUNER_*} variables.
     *
     * @return the online tuner's settings ({@code JCCL_TUNER=auto}): set, else read from the {@code JCCL_TUNER_*}
     *         variables ({@link OnlineTunerConfig#VARIABLES}; each as a system property in lower case with dots, or
     *         from the environment); with {@link #tunerSaveFile(Path)}'s file when one was set.
     * @throws JcclInvalidArgumentException naming every variable whose value is invalid.
     */
    public OnlineTunerConfig onlineTuner()
    {
        final OnlineTunerConfig config = onlineTuner != null ? onlineTuner : onlineTunerFromSettings();
        return tunerSaveFileSet ? config.withSaveFile(tunerSaveFile) : config;
    }

    private static OnlineTunerConfig onlineTunerFromSettings()
    {
        final Map<String, String> settings = new HashMap<>();
        for (final String name : OnlineTunerConfig.VARIABLES)
        {
            final String value = setting(name);
            if (value != null)
            {
                settings.put(name, value);
            }
        }
        return OnlineTunerConfig.fromSettings(settings);
    }

    /**
     * @param config the online tuner's settings, the same on every rank; or null to read the {@code JCCL_TUNER_*}
     *               variables.
     * @return this.
     * @deprecated the type is internal to jccl: set the {@code JCCL_TUNER_*} variables (or system properties), and
     *             the save file with {@link #tunerSaveFile(Path)}.
     */
    @Deprecated
    public Context onlineTuner(final OnlineTunerConfig config)
    {
        this.onlineTuner = config;
        return this;
    }

    /**
     * Validates the online tuner's settings ({@code JCCL_TUNER_*}, or those set), as the first group with
     * {@code JCCL_TUNER=auto} would.
     *
     * @return this.
     * @throws JcclInvalidArgumentException naming every variable whose value is invalid.
     */
    public Context checkOnlineTuner()
    {
        onlineTuner();
        return this;
    }

    /**
     * @return the most calls the online tuner spends on one task before it converges: its budget
     *         ({@code JCCL_TUNER_BUDGET}) and the calls of its confirmation rounds ({@code JCCL_TUNER_CONFIRM_ROUNDS}).
     * @throws JcclInvalidArgumentException naming every {@code JCCL_TUNER_*} variable whose value is invalid.
     */
    public long tunerCallsToConverge()
    {
        final OnlineTunerConfig config = onlineTuner();
        return config.budgetCalls() + config.confirmCalls();
    }

    /**
     * @return the file the online tuner keeps converged plans in across runs: the one set, else
     *         {@code JCCL_TUNER_SAVE_FILE}; null for none.
     * @throws JcclInvalidArgumentException naming every {@code JCCL_TUNER_*} variable whose value is invalid.
     */
    public Path tunerSaveFile()
    {
        return onlineTuner().saveFile();
    }

    /**
     * @param file the file the online tuner keeps converged plans in across runs (read when the ranks start, written
     *             as tasks converge), or null for none; either way it wins over {@code JCCL_TUNER_SAVE_FILE}.
     * @return this.
     */
    public Context tunerSaveFile(final Path file)
    {
        this.tunerSaveFile = file;
        this.tunerSaveFileSet = true;
        return this;
    }

    /**
     * Reads a tuner table in the format of NCCL's example tuner plugin, as {@code JCCL_TUNER_CONFIG_FILE} names one,
     * to report its errors before any rank starts.
     *
     * @param file the table.
     * @throws JcclInvalidArgumentException if file is null, or listing every malformed line as
     *                                      {@code file:line: reason}.
     * @throws io.jccl.JcclSystemException naming the file if it cannot be read.
     */
    public static void checkTunerConfigFile(final Path file)
    {
        TableTuner.load(file, null);
    }

    /**
     * For jccl's own modules (the type is internal and may change).
     *
     * @return the cost model's constants: set, or measured once per process when the first group starts.
     */
    public Calibration calibration()
    {
        return calibration != null ? calibration : Calibrator.calibration();
    }

    /**
     * @param calibration the cost model's constants, or null to measure them ({@code JCCL_CALIBRATION=defaults}
     *                    uses {@link Calibration#defaults(int)} instead).
     * @return this.
     * @deprecated the type is internal to jccl: {@code JCCL_CALIBRATION=defaults} gives fixed constants instead of
     *             measured ones.
     */
    @Deprecated
    public Context calibration(final Calibration calibration)
    {
        this.calibration = calibration;
        return this;
    }

    /**
     * For jccl's own modules (the type is internal and may change): programs use {@link #checkPlanSettings()},
     * {@link #algorithms(Collective)} and {@link #planSettings()}.
     *
     * @return what the settings allow the tuners to choose.
     * @throws JcclInvalidArgumentException naming the variable of an invalid setting and listing the valid values.
     */
    public PlanConstraints constraints()
    {
        PlanConstraints result = constraints;
        if (result == null)
        {
            result = PlanConstraints.parse(algo, proto, transport, minChannels, maxChannels, threads, chunk);
            constraints = result;
        }
        return result;
    }

    /**
     * Validates the plan knobs ({@code JCCL_ALGO}, {@code JCCL_PROTO}, {@code JCCL_TRANSPORT}, the channel counts,
     * {@code JCCL_NTHREADS}, {@code JCCL_CHUNK_SIZE}) as set or read from the environment.
     *
     * @return this.
     * @throws JcclInvalidArgumentException naming the variable of an invalid setting and listing the valid values.
     */
    public Context checkPlanSettings()
    {
        constraints();
        return this;
    }

    /**
     * @param collective a collective.
     * @return the algorithms the settings allow for it ({@code JCCL_ALGO}), never empty.
     * @throws JcclInvalidArgumentException naming the variable of an invalid setting.
     */
    public Set<Algorithm> algorithms(final Collective collective)
    {
        return constraints().algorithms(collective);
    }

    /**
     * @return the plan knobs in force as one line for a log, in the variables' syntax
     *         ({@code JCCL_ALGO=tree JCCL_PROTO=ll});
     *         {@code none} when nothing is pinned.
     * @throws JcclInvalidArgumentException naming the variable of an invalid setting.
     */
    public String planSettings()
    {
        return constraints().toString();
    }

    private Context changed()
    {
        constraints = null;
        return this;
    }

    /** @return the MSCCL XML files and directories whose schedules are registered. */
    public List<Path> scheduleFiles()
    {
        return scheduleFiles;
    }

    /**
     * @param scheduleFiles MSCCL XML files, or directories whose {@code *.xml} files are read; a registered schedule
     *                      runs every call it matches unless an algorithm is pinned.
     * @return this.
     */
    public Context scheduleFiles(final List<Path> scheduleFiles)
    {
        this.scheduleFiles = List.copyOf(scheduleFiles);
        return this;
    }

    /**
     * The backend hook's getter, for jccl's own modules; a program asks {@link Jccl#cudaDevice(io.jccl.Communicator)}.
     *
     * @return the CUDA driver the ranks run on, or null for the host backend (the default).
     */
    public CudaApi cuda()
    {
        return cuda;
    }

    /**
     * The backend hook: runs the ranks on CUDA devices (round-robin over the devices the driver sees, so several ranks
     * may share one):
     * their buffers must be {@link io.jccl.DeviceBuffer}s of their device, and every call launches jccl's interpreter
     * kernel. {@code io.jccl.kernels.cuda.CudaProbe} gives the real driver where one is present; tests pass
     * {@code EmulatedCuda}.
     *
     * @param cuda the driver, or null for the host backend.
     * @return this.
     */
    public Context cuda(final CudaApi cuda)
    {
        this.cuda = cuda;
        return this;
    }

    /** @return the devices this process's ranks run on, in rank order, or null for the default choice. */
    public int[] cudaDevices()
    {
        return cudaDevices == null ? null : cudaDevices.clone();
    }

    /**
     * Picks the CUDA device of each of this process's ranks, in rank order (repeated when there are more ranks than
     * devices given): {@code cudaDevices(0, 0, 1, 1)} puts four ranks two per GPU. Without it, a rank runs on device
     * (its place among the ranks of its host) modulo the device count, as {@code LOCAL_RANK} picks a GPU.
     *
     * @param devices device ordinals, each checked against the driver's count when the ranks are created; none to
     *                go back to the default.
     * @return this.
     * @throws JcclInvalidArgumentException if an ordinal is negative.
     */
    public Context cudaDevices(final int... devices)
    {
        for (int i = 0; i < devices.length; i++)
        {
            if (devices[i] < 0)
            {
                throw new JcclInvalidArgumentException("cudaDevices[" + i + "]=" + devices[i] + " is negative");
            }
        }
        this.cudaDevices = devices.length == 0 ? null : devices.clone();
        return this;
    }

    /** @return true when ranks on GPUs in different processes of a host pass data through CUDA IPC (the default). */
    public boolean cudaIpc()
    {
        return cudaIpc;
    }

    /**
     * Between ranks on GPUs in different processes of one host: true (the default, {@code JCCL_CUDA_IPC} unset or
     * not 0) maps the sender's FIFO into the receiver's process with CUDA IPC, so kernels pass data device to device;
     * false stages every slot through pinned host memory and the shared-memory transport, as between hosts.
     *
     * @param cudaIpc whether to use CUDA IPC.
     * @return this.
     */
    public Context cudaIpc(final boolean cudaIpc)
    {
        this.cudaIpc = cudaIpc;
        return this;
    }

    /** @return true when INFO diagnostics are on ({@code JCCL_DEBUG=INFO}). */
    public boolean debugInfo()
    {
        return debugInfo;
    }

    /**
     * @param debugInfo true to log INFO diagnostics.
     * @return this.
     */
    public Context debugInfo(final boolean debugInfo)
    {
        this.debugInfo = debugInfo;
        return this;
    }

    /**
     * Validates every setting, naming the variable of a bad one.
     *
     * @return this.
     * @throws JcclInvalidArgumentException on a value out of range or a name jccl does not know.
     */
    public Context conclude()
    {
        if (timeoutMs < 1)
        {
            throw new JcclInvalidArgumentException(TIMEOUT_MS_PROP_NAME + "=" + timeoutMs + " must be at least 1");
        }
        if (maxQueuedCalls < 1)
        {
            throw new JcclInvalidArgumentException(MAX_QUEUED_CALLS_PROP_NAME + "=" + maxQueuedCalls +
                " must be at least 1");
        }
        constraints();
        tunerMode();
        return this;
    }

    /** @return the value of a setting ({@link Settings#value(String)}): its system property, else its variable. */
    static String setting(final String name)
    {
        return Settings.value(name);
    }

    private static long longSetting(final String name, final long defaultValue)
    {
        final String value = setting(name);
        if (value == null)
        {
            return defaultValue;
        }
        try
        {
            return Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new JcclInvalidArgumentException(name + "='" + value + "' is not a whole number");
        }
    }

    private static Path pathSetting(final String name)
    {
        final String value = setting(name);
        return value == null ? null : Path.of(value);
    }

    private static List<Path> pathsSetting(final String name)
    {
        final String value = setting(name);
        if (value == null)
        {
            return List.of();
        }
        return Arrays.stream(value.split("[:,]")).map(String::trim).filter(v -> !v.isEmpty()).map(Path::of).toList();
    }
}
