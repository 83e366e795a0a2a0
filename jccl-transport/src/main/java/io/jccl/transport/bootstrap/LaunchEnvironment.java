package io.jccl.transport.bootstrap;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import io.jccl.Settings;
import io.jccl.UniqueId;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the launcher says about this process: its rank, the number of ranks, its rank and the number of ranks on its
 * host where the launcher says so, and the {@link UniqueId} to meet the others at. Read from a map of environment
 * variables ({@code System.getenv()} in production).
 * <p>
 * Rank and size come from the first of these that is present: explicit arguments; {@code JCCL_RANK} and
 * {@code JCCL_WORLD_SIZE} (with optional {@code JCCL_LOCAL_RANK} and {@code JCCL_LOCAL_WORLD_SIZE}); torchrun
 * ({@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK}, {@code LOCAL_WORLD_SIZE}); Open MPI
 * ({@code OMPI_COMM_WORLD_RANK}, {@code OMPI_COMM_WORLD_SIZE}, {@code OMPI_COMM_WORLD_LOCAL_RANK},
 * {@code OMPI_COMM_WORLD_LOCAL_SIZE}); PMI ({@code PMI_RANK}, {@code PMI_SIZE}); Slurm ({@code SLURM_PROCID},
 * {@code SLURM_NTASKS}, {@code SLURM_LOCALID}). A launcher counts as present when either its rank or its size
 * variable is set; then both must be. Local rank and local size come from the same source, {@link #UNKNOWN} where it
 * has none.
 * <p>
 * The rendezvous address comes from {@code JCCL_COMM_ID} (a whole {@link UniqueId} text, {@code host:port/secret-hex},
 * secret included), else {@code MASTER_ADDR} and {@code MASTER_PORT}, else {@code JCCL_MASTER_ADDR} and
 * {@code JCCL_PORT}. The port is required; the host defaults to {@code 127.0.0.1}, which serves ranks on one host, and
 * is required when the launcher says the ranks span several hosts.
 * <p>
 * <b>The secret.</b> {@code JCCL_COMM_ID} carries a random secret (made by {@link UniqueId#create(String, int)} on one
 * process and handed to the others): the strong choice, since nobody else can guess it. Without it the secret is
 * derived: the first 16 bytes of the SHA-256 of the launcher's job id (the first present of
 * {@code TORCHELASTIC_RUN_ID}, {@code SLURM_JOB_ID}, {@code OMPI_MCA_ess_base_jobid}, {@code PMIX_NAMESPACE}, else
 * empty), a {@code /}, and {@code JCCL_SECRET} (empty where unset). That is the weaker choice: a job id is no secret
 * (anyone on the cluster can list job ids, and torchrun's default run id is {@code none}), so it only keeps apart
 * jobs that share a port by mistake; set {@code JCCL_SECRET} to a value only the job knows to keep strangers out.
 * With neither a job id nor {@code JCCL_SECRET}, resolution fails rather than leave the rendezvous open to anyone.
 */
public final class LaunchEnvironment
{
    /** The local rank or local size where the launcher does not say. */
    public static final int UNKNOWN = -1;

    /** The host used when only a port is given. */
    public static final String DEFAULT_HOST = "127.0.0.1";

    /** Job ids the secret is derived from, in order of precedence. */
    static final List<String> JOB_ID_VARIABLES =
        List.of("TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE");

    /**
     * Where a launcher puts rank, size, local rank and local size; null where it has none. {@code commonNames}: its
     * names are common enough ({@code RANK}) that {@link #detect} counts it only when both rank and size are set.
     */
    private record Launcher(String name, String rank, String size, String localRank, String localSize,
        boolean commonNames)
    {
        boolean setIn(final Map<String, String> env)
        {
            return value(env, rank) != null && (!commonNames || value(env, size) != null);
        }
    }

    /** torchrun's names, which {@code bin/jccl-run} gives its children too. */
    private static final Launcher TORCHRUN =
        new Launcher("torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", true);

    /** The one table of launchers, in order of precedence. */
    private static final List<Launcher> LAUNCHERS = List.of(
        new Launcher("JCCL", Settings.RANK, Settings.WORLD_SIZE, Settings.LOCAL_RANK, Settings.LOCAL_WORLD_SIZE,
            false),
        TORCHRUN,
        new Launcher("Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
            "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", false),
        new Launcher("PMI", "PMI_RANK", "PMI_SIZE", null, null, false),
        new Launcher("Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", null, false));

    /** The variable that carries a whole {@link UniqueId}. */
    public static final String COMM_ID = Settings.COMM_ID;
    /** torchrun's rendezvous host variable. */
    public static final String MASTER_ADDR = "MASTER_ADDR";
    /** torchrun's rendezvous port variable. */
    public static final String MASTER_PORT = "MASTER_PORT";

    private final int rank;
    private final int size;
    private final int localRank;
    private final int localSize;
    private final UniqueId uniqueId;
    private final String source;

    private LaunchEnvironment(
        final int rank,
        final int size,
        final int localRank,
        final int localSize,
        final UniqueId uniqueId,
        final String source)
    {
        this.rank = rank;
        this.size = size;
        this.localRank = localRank;
        this.localSize = localSize;
        this.uniqueId = uniqueId;
        this.source = source;
    }

    /**
     * @param env the environment variables.
     * @return rank, size and rendezvous from the first launcher present.
     * @throws JcclInvalidArgumentException naming the variable that is missing or bad.
     */
    public static LaunchEnvironment resolve(final Map<String, String> env)
    {
        return resolve(env, UNKNOWN, UNKNOWN, false);
    }

    /**
     * @param env  the environment variables, for the rendezvous.
     * @param rank this rank, 0..size-1; wins over every variable.
     * @param size the number of ranks, 1 or more; wins over every variable.
     * @return the given rank and size and the rendezvous from the environment; local rank and size unknown.
     * @throws JcclInvalidArgumentException naming the argument or variable that is missing or bad.
     */
    public static LaunchEnvironment resolve(final Map<String, String> env, final int rank, final int size)
    {
        return resolve(env, rank, size, true);
    }

    /**
     * Whether a launcher started this process as one rank of several: the first launcher of the table whose rank
     * variable is set (torchrun's only with {@code WORLD_SIZE} too, {@code RANK} alone being a common name) names
     * it, unless its size is 1 (a run in this process alone, whatever else the environment holds).
     *
     * @param env the environment variables.
     * @return {@link #resolve(Map)} of them, or null when no launcher names a rank of more than one process.
     * @throws JcclInvalidArgumentException when a launcher names a rank of several but the rest (the rendezvous
     *                                      address, a secret) is missing or bad; the message names the launcher's
     *                                      variables and what is missing.
     */
    public static LaunchEnvironment detect(final Map<String, String> env)
    {
        final Launcher launcher = detectedLauncher(env);
        if (launcher == null)
        {
            return null;
        }
        try
        {
            return resolve(env);
        }
        catch (final JcclInvalidArgumentException ex)
        {
            final String size = value(env, launcher.size());
            throw new JcclInvalidArgumentException(launcher.rank() + "=" + value(env, launcher.rank()) +
                (size == null ? "" : " " + launcher.size() + "=" + size) + " (" + launcher.name() + ") starts one " +
                "rank per process, but: " + ex.getMessage(), ex);
        }
    }

    /**
     * The rank a launcher names, without checking the rest (for a prefix of standard error, set before anything
     * else runs).
     *
     * @param env the environment variables.
     * @return the rank {@link #detect} would find, or -1 when it finds none or the rank is not a number.
     */
    public static int rankOf(final Map<String, String> env)
    {
        final Launcher launcher = detectedLauncher(env);
        if (launcher == null)
        {
            return -1;
        }
        try
        {
            return Integer.parseInt(value(env, launcher.rank()));
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /**
     * What a launcher gives each process it starts: torchrun's {@code RANK}, {@code WORLD_SIZE},
     * {@code LOCAL_RANK}, {@code LOCAL_WORLD_SIZE}, {@code MASTER_ADDR} and {@code MASTER_PORT}, and
     * {@value #COMM_ID} when a whole {@link UniqueId} (with its random secret) is known.
     *
     * @param rank       the process's rank.
     * @param size       the number of ranks.
     * @param localRank  its rank on its host.
     * @param localSize  the number of ranks on its host.
     * @param masterAddr rank 0's host.
     * @param masterPort rank 0's rendezvous port.
     * @param commId     the rendezvous with its secret, or null (several hosts: the secret is then derived).
     * @return the variables, in that order.
     */
    public static Map<String, String> variables(final int rank, final int size, final int localRank,
        final int localSize, final String masterAddr, final int masterPort, final UniqueId commId)
    {
        final Map<String, String> env = new LinkedHashMap<>();
        env.put(TORCHRUN.rank(), Integer.toString(rank));
        env.put(TORCHRUN.size(), Integer.toString(size));
        env.put(TORCHRUN.localRank(), Integer.toString(localRank));
        env.put(TORCHRUN.localSize(), Integer.toString(localSize));
        env.put(MASTER_ADDR, masterAddr);
        env.put(MASTER_PORT, Integer.toString(masterPort));
        if (commId != null)
        {
            env.put(COMM_ID, commId.toString());
        }
        return env;
    }

    /**
     * @return every rank, size and rendezvous variable of every launcher in the table: a launcher removes them from
     *         what its children inherit, so that its own variables are the ones they read.
     */
    public static Set<String> launcherVariables()
    {
        final Set<String> names = new LinkedHashSet<>();
        for (final Launcher launcher : LAUNCHERS)
        {
            for (final String name : new String[] {launcher.rank(), launcher.size(), launcher.localRank(),
                launcher.localSize()})
            {
                if (name != null)
                {
                    names.add(name);
                }
            }
        }
        names.addAll(List.of(COMM_ID, MASTER_ADDR, MASTER_PORT, Settings.MASTER_ADDR, Settings.PORT));
        return names;
    }

    /** @return this rank. */
    public int rank()
    {
        return rank;
    }

    /** @return the number of ranks. */
    public int size()
    {
        return size;
    }

    /** @return this rank among the ranks on its host, or {@link #UNKNOWN}. */
    public int localRank()
    {
        return localRank;
    }

    /** @return the number of ranks on this host, or {@link #UNKNOWN}. */
    public int localSize()
    {
        return localSize;
    }

    /** @return where and with what secret to meet the other ranks. */
    public UniqueId uniqueId()
    {
        return uniqueId;
    }

    /**
     * @return which sources won, for one log line: the launcher (or explicit arguments) with its variables, the
     * address variables and where the secret came from; never the secret itself.
     */
    public String source()
    {
        return source;
    }

    @Override
    public String toString()
    {
        return "LaunchEnvironment[rank=" + rank + ", size=" + size + ", localRank=" + localRank + ", localSize=" +
            localSize + ", rendezvous=" + uniqueId.host() + ":" + uniqueId.port() + "]";
    }

    private static LaunchEnvironment resolve(
        final Map<String, String> env, final int explicitRank, final int explicitSize, final boolean explicit)
    {
        if (env == null)
        {
            throw new JcclInvalidArgumentException("env is null");
        }
        final StringBuilder source = new StringBuilder();
        int rank = explicitRank;
        int size = explicitSize;
        int localRank = UNKNOWN;
        int localSize = UNKNOWN;
        if (explicit)
        {
            if (size < 1)
            {
                throw new JcclInvalidArgumentException("size=" + size + " must be at least 1");
            }
            if (rank < 0 || rank >= size)
            {
                throw new JcclInvalidArgumentException("rank=" + rank + " is outside 0.." + (size - 1));
            }
            source.append("rank and size from explicit arguments");
        }
        else
        {
            final Launcher launcher = launcher(env);
            size = parse(env, launcher.size());
            rank = parse(env, launcher.rank());
            checkRank(launcher.rank(), rank, launcher.size(), size);
            if (launcher.localSize() != null && value(env, launcher.localSize()) != null)
            {
                localSize = parse(env, launcher.localSize());
                if (localSize > size)
                {
                    throw new JcclInvalidArgumentException(launcher.localSize() + "=" + localSize + " is above " +
                        launcher.size() + "=" + size);
                }
            }
            if (launcher.localRank() != null && value(env, launcher.localRank()) != null)
            {
                localRank = parse(env, launcher.localRank());
                checkRank(launcher.localRank(), localRank, launcher.size(), size);
                if (localSize != UNKNOWN)
                {
                    checkRank(launcher.localRank(), localRank, launcher.localSize(), localSize);
                }
            }
            source.append("rank and size from ").append(launcher.name()).append(" (").append(launcher.rank())
                .append(", ").append(launcher.size()).append(')');
        }
        final UniqueId id = rendezvous(env, size, localSize, source);
        return new LaunchEnvironment(rank, size, localRank, localSize, id, source.toString());
    }

    /** @return the first launcher {@link #detect} counts, or null where none names a rank of several processes. */
    private static Launcher detectedLauncher(final Map<String, String> env)
    {
        final Launcher launcher = LAUNCHERS.stream().filter(l -> l.setIn(env)).findFirst().orElse(null);
        return launcher == null || isOne(value(env, launcher.size())) ? null : launcher;
    }

    /** @return whether a size is the number 1; a size that is not a number is left for resolve to name. */
    private static boolean isOne(final String size)
    {
        try
        {
            return size != null && Integer.parseInt(size) == 1;
        }
        catch (final NumberFormatException ex)
        {
            return false;
        }
    }

    private static Launcher launcher(final Map<String, String> env)
    {
        for (final Launcher launcher : LAUNCHERS)
        {
            final boolean hasRank = value(env, launcher.rank()) != null;
            final boolean hasSize = value(env, launcher.size()) != null;
            if (hasRank != hasSize)
            {
                throw new JcclInvalidArgumentException((hasRank ? launcher.rank() : launcher.size()) + " is set but " +
                    (hasRank ? launcher.size() : launcher.rank()) + " is not (" + launcher.name() + ")");
            }
            if (hasRank)
            {
                return launcher;
            }
        }
        throw new JcclInvalidArgumentException("no rank and size: pass them explicitly, set JCCL_RANK and " +
            "JCCL_WORLD_SIZE, or launch with torchrun (RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_RANK, " +
            "OMPI_COMM_WORLD_SIZE), a PMI launcher (PMI_RANK, PMI_SIZE) or Slurm (SLURM_PROCID, SLURM_NTASKS)");
    }

    private static UniqueId rendezvous(
        final Map<String, String> env, final int size, final int localSize, final StringBuilder source)
    {
        final String commId = value(env, COMM_ID);
        if (commId != null)
        {
            try
            {
                final UniqueId id = UniqueId.parse(commId);
                source.append("; rendezvous and secret from JCCL_COMM_ID");
                return id;
            }
            catch (final JcclInvalidArgumentException ex)
            {
                throw new JcclInvalidArgumentException("JCCL_COMM_ID: " + ex.getMessage(), ex);
            }
        }
        final String hostVariable;
        final String portVariable;
        if (value(env, MASTER_PORT) != null || value(env, MASTER_ADDR) != null)
        {
            hostVariable = MASTER_ADDR;
            portVariable = MASTER_PORT;
        }
        else if (value(env, Settings.PORT) != null || value(env, Settings.MASTER_ADDR) != null)
        {
            hostVariable = Settings.MASTER_ADDR;
            portVariable = Settings.PORT;
        }
        else
        {
            throw new JcclInvalidArgumentException("no rendezvous address: set JCCL_COMM_ID (host:port/secret-hex), " +
                "or MASTER_ADDR and MASTER_PORT, or JCCL_MASTER_ADDR and JCCL_PORT");
        }
        if (value(env, portVariable) == null)
        {
            throw new JcclInvalidArgumentException(hostVariable + " is set but " + portVariable + " is not: the " +
                "rendezvous needs a port");
        }
        final int port = parse(env, portVariable);
        if (port < 1 || port > 65535)
        {
            throw new JcclInvalidArgumentException(portVariable + "=" + port + " is outside 1..65535");
        }
        String host = value(env, hostVariable);
        if (host == null)
        {
            if (localSize != UNKNOWN && localSize < size)
            {
                throw new JcclInvalidArgumentException(portVariable + " is set without " + hostVariable + " but the " +
                    "ranks span several hosts (" + localSize + " of " + size + " here): set " + hostVariable);
            }
            host = DEFAULT_HOST;
        }
        source.append("; rendezvous from ").append(hostVariable).append('/').append(portVariable);
        return UniqueId.of(host, port, derivedSecret(env, host, port, source));
    }

    private static byte[] derivedSecret(
        final Map<String, String> env, final String host, final int port, final StringBuilder source)
    {
        String jobVariable = null;
        for (final String variable : JOB_ID_VARIABLES)
        {
            if (value(env, variable) != null)
            {
                jobVariable = variable;
                break;
            }
        }
        final String secret = value(env, Settings.SECRET);
        if (jobVariable == null && secret == null)
        {
            throw new JcclInvalidArgumentException("no shared secret for the rendezvous at " + host + ":" + port +
                ": without one anyone who can reach the port could join the communicator. Set JCCL_COMM_ID " +
                "(host:port/secret-hex with a random secret, the strong choice) or JCCL_SECRET, or launch under a " +
                "job manager that sets one of " + String.join(", ", JOB_ID_VARIABLES));
        }
        final String jobId = jobVariable == null ? "" : value(env, jobVariable);
        source.append("; secret derived from ")
            .append(jobVariable == null ? "JCCL_SECRET" : jobVariable + (secret == null ? "" : " and JCCL_SECRET"))
            .append(secret == null ? " (weak: a job id is not secret; set JCCL_SECRET or JCCL_COMM_ID)" : "");
        return deriveSecret(jobId, secret == null ? "" : secret);
    }

    /**
     * @param jobId  the launcher's job id, or empty.
     * @param secret {@code JCCL_SECRET}, or empty.
     * @return the first 16 bytes of SHA-256 of {@code jobId + "/" + secret} in UTF-8.
     */
    static byte[] deriveSecret(final String jobId, final String secret)
    {
        try
        {
            final byte[] digest = MessageDigest.getInstance("SHA-256")
                .digest((jobId + "/" + secret).getBytes(StandardCharsets.UTF_8));
            return Arrays.copyOf(digest, UniqueId.SECRET_LENGTH);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new JcclSystemException("SHA-256 is not available", ex);
        }
    }

    private static void checkRank(final String rankVariable, final int rank, final String sizeVariable, final int size)
    {
        if (size < 1)
        {
            throw new JcclInvalidArgumentException(sizeVariable + "=" + size + " must be at least 1");
        }
        if (rank < 0 || rank >= size)
        {
            throw new JcclInvalidArgumentException(rankVariable + "=" + rank + " is outside 0.." + (size - 1) +
                " (" + sizeVariable + "=" + size + ")");
        }
    }

    private static int parse(final Map<String, String> env, final String variable)
    {
        final String text = value(env, variable);
        try
        {
            return Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new JcclInvalidArgumentException(variable + "='" + text + "' is not a number");
        }
    }

    /** @return the variable's value, trimmed, or null where it is unset or blank. */
    private static String value(final Map<String, String> env, final String variable)
    {
        final String text = env.get(variable);
        if (text == null)
        {
            return null;
        }
        final String trimmed = text.trim();
        return trimmed.isEmpty() ? null : trimmed;
    }
}
