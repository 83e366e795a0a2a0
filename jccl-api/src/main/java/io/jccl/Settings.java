package io.jccl;

import java.math.BigDecimal;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every {@code JCCL_*} setting jccl reads, listed once, and the one reader of them. A setting is read from its
 * system property first ({@code -Djccl.timeout.ms=5000} for {@code JCCL_TIMEOUT_MS}: lower case, {@code _} as
 * {@code .}), then from the environment variable. A value that is blank counts as unset. The README's settings table
 * and {@code jccl-bench settings} print {@link #all()}.
 * <p>
 * Modules name a setting through these constants (their own {@code *_ENV} and {@code *_PROP_NAME} constants are
 * aliases of them) and read it through {@link #value(String)} or, where a map of variables is handed around (the
 * launcher's, the network's), through {@link #environment()}: the environment with every property form applied.
 */
public final class Settings
{
    /** Deadline of every wait, in milliseconds. */
    public static final String TIMEOUT_MS = "JCCL_TIMEOUT_MS";
    /** Calls a rank holds queued at most before the submitter runs calls. */
    public static final String MAX_QUEUED_CALLS = "JCCL_MAX_QUEUED_CALLS";
    /** Algorithms allowed. */
    public static final String ALGO = "JCCL_ALGO";
    /** Protocols allowed. */
    public static final String PROTO = "JCCL_PROTO";
    /** Transport pinned. */
    public static final String TRANSPORT = "JCCL_TRANSPORT";
    /** Fewest channels per call. */
    public static final String MIN_NCHANNELS = "JCCL_MIN_NCHANNELS";
    /** Most channels per call. */
    public static final String MAX_NCHANNELS = "JCCL_MAX_NCHANNELS";
    /** Threads per CUDA block. */
    public static final String NTHREADS = "JCCL_NTHREADS";
    /** Bytes per FIFO step. */
    public static final String CHUNK_SIZE = "JCCL_CHUNK_SIZE";
    /** Which tuner decides unpinned plans. */
    public static final String TUNER = "JCCL_TUNER";
    /** NCCL's tuner-plugin CSV. */
    public static final String TUNER_CONFIG_FILE = "JCCL_TUNER_CONFIG_FILE";
    /** The online tuner's trace file. */
    public static final String TUNER_TRACE = "JCCL_TUNER_TRACE";
    /** Calls a candidate plan is timed over. */
    public static final String TUNER_HOLD = "JCCL_TUNER_HOLD";
    /** Calls a candidate runs untimed first. */
    public static final String TUNER_WARMUP = "JCCL_TUNER_WARMUP";
    /** Calls one search may spend. */
    public static final String TUNER_BUDGET = "JCCL_TUNER_BUDGET";
    /** Random restarts of a search. */
    public static final String TUNER_RESTARTS = "JCCL_TUNER_RESTARTS";
    /** How sizes group into tasks. */
    public static final String TUNER_BUCKETS = "JCCL_TUNER_BUCKETS";
    /** Slow-down that re-tunes a converged task. */
    public static final String TUNER_DRIFT_FACTOR = "JCCL_TUNER_DRIFT_FACTOR";
    /** Calls the slow-down must last. */
    public static final String TUNER_DRIFT_WINDOW = "JCCL_TUNER_DRIFT_WINDOW";
    /** Milliseconds the slow-down must last. */
    public static final String TUNER_DRIFT_MIN_MS = "JCCL_TUNER_DRIFT_MIN_MS";
    /** Calls a converged plan is given ahead. */
    public static final String TUNER_LEAD = "JCCL_TUNER_LEAD";
    /** Where a re-tune starts. */
    public static final String TUNER_RETUNE_FROM = "JCCL_TUNER_RETUNE_FROM";
    /** Where converged plans are kept across runs. */
    public static final String TUNER_SAVE_FILE = "JCCL_TUNER_SAVE_FILE";
    /** Seed of the search's random choices. */
    public static final String TUNER_SEED = "JCCL_TUNER_SEED";
    /** Confirmation rounds before a search freezes. */
    public static final String TUNER_CONFIRM_ROUNDS = "JCCL_TUNER_CONFIRM_ROUNDS";
    /** Margin the best must keep over the baseline. */
    public static final String TUNER_CONFIRM_MARGIN = "JCCL_TUNER_CONFIRM_MARGIN";
    /** Skip the cost model's measurement. */
    public static final String CALIBRATION = "JCCL_CALIBRATION";
    /** MSCCL XML schedules to register. */
    public static final String SCHEDULE_FILES = "JCCL_SCHEDULE_FILES";
    /** Log level of jccl's diagnostics. */
    public static final String DEBUG = "JCCL_DEBUG";
    /** Where each rank writes its flight record when a timeout breaks its communicator. */
    public static final String FLIGHT_RECORD = "JCCL_FLIGHT_RECORD";
    /** CUDA IPC between processes of a host. */
    public static final String CUDA_IPC = "JCCL_CUDA_IPC";
    /** The wire between hosts. */
    public static final String NET = "JCCL_NET";
    /** Address the network transport binds. */
    public static final String SOCKET_ADDR = "JCCL_SOCKET_ADDR";
    /** Interface the network transport binds. */
    public static final String SOCKET_IFNAME = "JCCL_SOCKET_IFNAME";
    /** Aeron's MTU. */
    public static final String NET_MTU = "JCCL_NET_MTU";
    /** Aeron's term length. */
    public static final String NET_TERM_LENGTH = "JCCL_NET_TERM_LENGTH";
    /** An external Aeron media driver's directory. */
    public static final String AERON_DIR = "JCCL_AERON_DIR";
    /** A host id in place of the kernel's boot id. */
    public static final String HOSTID = "JCCL_HOSTID";
    /** This process's rank. */
    public static final String RANK = "JCCL_RANK";
    /** The number of ranks. */
    public static final String WORLD_SIZE = "JCCL_WORLD_SIZE";
    /** This process's rank on its host. */
    public static final String LOCAL_RANK = "JCCL_LOCAL_RANK";
    /** The number of ranks on this host. */
    public static final String LOCAL_WORLD_SIZE = "JCCL_LOCAL_WORLD_SIZE";
    /** The whole rendezvous. */
    public static final String COMM_ID = "JCCL_COMM_ID";
    /** Rank 0's host. */
    public static final String MASTER_ADDR = "JCCL_MASTER_ADDR";
    /** Rank 0's port. */
    public static final String PORT = "JCCL_PORT";
    /** The shared secret a derived rendezvous uses. */
    public static final String SECRET = "JCCL_SECRET";
    /** Extra JVM options of the bench's script and its children. */
    public static final String BENCH_JAVA_OPTS = "JCCL_BENCH_JAVA_OPTS";
    /** {@code bench/gpu-check.sh} on the device double. */
    public static final String GPU_CHECK_EMULATED = "JCCL_GPU_CHECK_EMULATED";

    /**
     * One setting, as the README's table and {@code jccl-bench settings} print it.
     *
     * @param variable    its environment variable.
     * @param group       what it belongs to: {@code plan}, {@code runtime}, {@code tuner}, {@code network},
     *                    {@code launch} or {@code tools}.
     * @param values      what it takes.
     * @param defaultText its default, in words.
     * @param description what it does.
     * @param property    whether it also has a system-property form (false for those only scripts read).
     */
    public record Entry(String variable, String group, String values, String defaultText, String description,
        boolean property)
    {
        /** @return its system property: {@code jccl.timeout.ms} for {@code JCCL_TIMEOUT_MS}, or null. */
        public String propertyName()
        {
            return property ? Settings.propertyName(variable) : null;
        }
    }

    private static final List<Entry> ALL = List.of(
        plan(ALGO, "`ring`, `tree`, `direct`; `^tree`; `allreduce:tree,ring;allgather:ring`", "the tuner's choice",
            "algorithms allowed, NCCL's syntax; a pin beats registered schedules"),
        plan(PROTO, "`simple`, `ll`, `ll128`; `^ll128`; per collective", "the tuner's choice",
            "FIFO framings allowed, NCCL's syntax"),
        plan(TRANSPORT, "`p2p`, `shm`", "P2P where buffers can be mapped", "the path between ranks of a host"),
        plan(MIN_NCHANNELS, "1..32", "1", "fewest channels per call"),
        plan(MAX_NCHANNELS, "1..32", "32", "most channels per call"),
        plan(NTHREADS, "32..640, multiples of 32", "the tuner's choice",
            "threads per CUDA block, at most the kernel's launch bound (512 for the interpreter; reported, not used, " +
            "on the host)"),
        plan(CHUNK_SIZE, "bytes, `K`/`M`/`G` suffixes", "the tuner's choice (128K for schedules)",
            "bytes moved per FIFO step, at most one slot"),
        plan(SCHEDULE_FILES, "files or directories, `:` or `,` separated", "none",
            "MSCCL XML schedules to register"),
        entry(TUNER, "tuner", "`model`, `table`, `auto`", "`model` (`table` with a config file)",
            "which tuner decides plans nothing pins"),
        entry(TUNER_CONFIG_FILE, "tuner", "a CSV file", "none", "NCCL's example tuner-plugin table"),
        entry(TUNER_TRACE, "tuner", "a CSV file", "none", "with `auto`: every trial of the online tuner"),
        entry(TUNER_HOLD, "tuner", "calls, at least 1", "5", "calls a candidate plan is timed over"),
        entry(TUNER_WARMUP, "tuner", "calls, at least 0", "1", "calls a candidate runs before it is timed"),
        entry(TUNER_BUDGET, "tuner", "calls", "200", "calls one search may spend before it freezes its best"),
        entry(TUNER_RESTARTS, "tuner", "at least 0", "2", "descents from a random plan after the first ones"),
        entry(TUNER_BUCKETS, "tuner", "`pow2`, `exact`", "`pow2`", "how sizes group into tuning tasks"),
        entry(TUNER_DRIFT_FACTOR, "tuner", "above 1", "1.5", "slow-down of a converged plan that re-tunes it"),
        entry(TUNER_DRIFT_WINDOW, "tuner", "calls; 0 turns drift off", "50", "calls the slow-down must last"),
        entry(TUNER_DRIFT_MIN_MS, "tuner", "milliseconds", "1000", "summed time the slow-down must last"),
        entry(TUNER_LEAD, "tuner", "calls, at least 1", "16384", "calls a converged plan is given ahead"),
        entry(TUNER_RETUNE_FROM, "tuner", "`best`, `default`", "`best`", "where a re-tune starts"),
        entry(TUNER_SAVE_FILE, "tuner", "a file", "none", "where converged plans are kept across runs"),
        entry(TUNER_SEED, "tuner", "a number", "`0x6a63636c`", "seed of the search's random restarts"),
        entry(TUNER_CONFIRM_ROUNDS, "tuner", "rounds; 0 turns it off", "3",
            "interleaved rounds that confirm a search's best against its baseline"),
        entry(TUNER_CONFIRM_MARGIN, "tuner", "at least 1", "1.02",
            "factor the baseline must lose by for the best to stay"),
        entry(CALIBRATION, "tuner", "`defaults`", "measured", "skip the cost model's start-up measurement"),
        entry(TIMEOUT_MS, "runtime", "milliseconds, at least 1", "300000",
            "deadline of every wait; past it a `JcclTimeoutException` names collective, rank, peer and step"),
        entry(MAX_QUEUED_CALLS, "runtime", "calls, at least 1", "1024",
            "calls a rank holds queued before the submitter runs calls itself"),
        entry(DEBUG, "runtime", "`WARN`, `INFO`, `TRACE`", "`WARN`",
            "jccl's diagnostics: ranks, transports, calibration, each shape's plan and why"),
        entry(FLIGHT_RECORD, "runtime", "a file prefix", "none (the log only)",
            "on a timeout each rank writes its last calls and where it waits to `<prefix><rank>`"),
        entry(CUDA_IPC, "runtime", "`0`, `1`", "`1`",
            "`0` stages the CUDA path between processes through host memory instead of CUDA IPC"),
        entry(NET, "network", "`tcp`, `aeron`", "`tcp` (`aeron` when a driver directory is named)",
            "the wire between hosts"),
        entry(SOCKET_ADDR, "network", "an IPv4 address", "the address that reaches rank 0",
            "the address the network transport binds"),
        entry(SOCKET_IFNAME, "network", "an interface name, `eth*`", "the one that reaches rank 0",
            "the interface the network transport binds"),
        entry(NET_MTU, "network", "1024..32768, multiples of 32", "the link's MTU less the IP and UDP headers",
            "Aeron's MTU"),
        entry(NET_TERM_LENGTH, "network", "a power of two, 64K..1G", "4M", "Aeron's term length"),
        entry(AERON_DIR, "network", "a directory", "an embedded media driver",
            "an external Aeron media driver (`aeron.dir` too)"),
        entry(HOSTID, "network", "any text", "the kernel's boot id",
            "ranks with different ids count as on different hosts"),
        entry(RANK, "launch", "0..size-1", "from the launcher", "this process's rank"),
        entry(WORLD_SIZE, "launch", "at least 1", "from the launcher", "the number of ranks"),
        entry(LOCAL_RANK, "launch", "0..local size-1", "from the launcher", "this process's rank on its host"),
        entry(LOCAL_WORLD_SIZE, "launch", "at least 1", "from the launcher", "the number of ranks on this host"),
        entry(COMM_ID, "launch", "`host:port/secret-hex`", "none",
            "the whole rendezvous, random secret included (the strong choice)"),
        entry(MASTER_ADDR, "launch", "a host", "`127.0.0.1`", "rank 0's host, when `MASTER_ADDR` is not set"),
        entry(PORT, "launch", "1..65535", "none", "rank 0's port, when `MASTER_PORT` is not set"),
        entry(SECRET, "launch", "any text", "none", "the secret a rendezvous without `JCCL_COMM_ID` derives from"),
        new Entry(BENCH_JAVA_OPTS, "tools", "JVM options", "none",
            "extra JVM options of `bench/jccl-bench` and its `--nprocs` children", false),
        new Entry(GPU_CHECK_EMULATED, "tools", "`1`", "unset",
            "`bench/gpu-check.sh` on the device double (no GPU)", false));

    private static final Map<String, Entry> BY_VARIABLE = index();

    /** A size: a number, an optional {@code K}, {@code M} or {@code G} (powers of 1024), an optional {@code B}. */
    private static final Pattern SIZE =
        Pattern.compile("\\s*([0-9]*\\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\\s*(?:([kKmMgG])(?:i?[bB])?|[bB])?\\s*");

    private Settings()
    {
    }

    /** @return every setting, in the order of the README's table. */
    public static List<Entry> all()
    {
        return ALL;
    }

    /**
     * @param variable a {@code JCCL_*} variable of {@link #all()}.
     * @return its entry.
     * @throws IllegalArgumentException if jccl does not list it.
     */
    public static Entry entry(final String variable)
    {
        final Entry entry = BY_VARIABLE.get(variable);
        if (entry == null)
        {
            throw new IllegalArgumentException(variable + " is not a jccl setting (Settings.all() lists them)");
        }
        return entry;
    }

    /**
     * @param variable a {@code JCCL_*} variable.
     * @return its system property: {@code jccl.timeout.ms} for {@code JCCL_TIMEOUT_MS}.
     */
    public static String propertyName(final String variable)
    {
        return variable.toLowerCase(Locale.ROOT).replace('_', '.');
    }

    /**
     * @param variable a setting of {@link #all()}.
     * @return its value, trimmed: the system property if set, else the environment variable; null where neither is
     *         set or the value is blank.
     * @throws IllegalArgumentException if jccl does not list the variable.
     */
    public static String value(final String variable)
    {
        final Entry entry = entry(variable);
        final String property = entry.property() ? System.getProperty(entry.propertyName()) : null;
        return trimmed(property != null && !property.isBlank() ? property : System.getenv(variable));
    }

    /**
     * @param env      variables ({@link #environment()}, or a test's map).
     * @param variable any variable.
     * @return its value there, trimmed; null where unset or blank.
     */
    public static String value(final Map<String, String> env, final String variable)
    {
        return trimmed(env.get(variable));
    }

    /**
     * @return this process's environment with the system-property form of every setting of {@link #all()} put over
     *         its variable: the map to hand to readers that take one (the launcher's, the network's).
     */
    public static Map<String, String> environment()
    {
        final Map<String, String> env = new HashMap<>(System.getenv());
        for (final Entry entry : ALL)
        {
            final String property = entry.property() ? System.getProperty(entry.propertyName()) : null;
            if (property != null && !property.isBlank())
            {
                env.put(entry.variable(), property.trim());
            }
        }
        return env;
    }

    /**
     * Parses a byte size, the one way jccl reads them (nccl-tests' {@code parsesize}): a number (a fraction or an
     * exponent too, truncated to whole bytes), then optionally {@code K}, {@code M} or {@code G} in either case
     * (powers of 1024) and an optional {@code B} or {@code iB}: {@code 8}, {@code 128K}, {@code 1.5M}, {@code 2GiB}.
     *
     * @param name what is parsed (a variable, a flag), for the message.
     * @param text the text.
     * @return the size in bytes.
     * @throws JcclInvalidArgumentException naming {@code name} if the text is not a size or exceeds
     *                                      {@link Long#MAX_VALUE}.
     */
    public static long parseBytes(final String name, final String text)
    {
        try
        {
            return parseBytes(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new JcclInvalidArgumentException(name + "=" + ex.getMessage(), ex);
        }
    }

    /**
     * {@link #parseBytes(String, String)} for a caller that names the argument itself.
     *
     * @param text the text.
     * @return the size in bytes.
     * @throws IllegalArgumentException if the text is not a size or exceeds {@link Long#MAX_VALUE}.
     */
    public static long parseBytes(final String text)
    {
        final Matcher matcher = text == null ? null : SIZE.matcher(text);
        if (matcher == null || !matcher.matches())
        {
            throw new IllegalArgumentException("'" + text + "' is not a size (a number with an optional K, M or G)");
        }
        final String suffix = matcher.group(2);
        final int shift = suffix == null ? 0 : switch (suffix.toUpperCase(Locale.ROOT))
        {
            case "K" -> 10;
            case "M" -> 20;
            default -> 30;
        };
        final BigDecimal bytes = new BigDecimal(matcher.group(1)).multiply(BigDecimal.valueOf(1L << shift));
        if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0)
        {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
        return bytes.longValue();
    }

    private static Entry plan(final String variable, final String values, final String defaultText,
        final String description)
    {
        return entry(variable, "plan", values, defaultText, description);
    }

    private static Entry entry(final String variable, final String group, final String values,
        final String defaultText, final String description)
    {
        return new Entry(variable, group, values, defaultText, description, true);
    }

    private static Map<String, Entry> index()
    {
        final Map<String, Entry> index = new LinkedHashMap<>();
        for (final Entry entry : ALL)
        {
            if (index.put(entry.variable(), entry) != null)
            {
                throw new IllegalStateException(entry.variable() + " is listed twice");
            }
        }
        return index;
    }

    private static String trimmed(final String value)
    {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
