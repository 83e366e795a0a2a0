package io.jccl.core;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.UniqueId;
import io.jccl.transport.bootstrap.LaunchEnvironment;

import java.util.Map;

/**
 * What a launcher says about this process, as {@link Jccl#connect(Context)} reads it: its rank, the rank count, its
 * rank and the rank count on its host where the launcher says so, the rendezvous, and which variables won. The
 * sources, in order: {@code JCCL_RANK}/{@code JCCL_WORLD_SIZE}, torchrun or {@code bin/jccl-run} ({@code RANK},
 * {@code WORLD_SIZE}, {@code LOCAL_RANK}, {@code LOCAL_WORLD_SIZE}), Open MPI, PMI, Slurm; the address from
 * {@code JCCL_COMM_ID}, {@code MASTER_ADDR}/{@code MASTER_PORT} or {@code JCCL_MASTER_ADDR}/{@code JCCL_PORT}.
 *
 * @param rank      this process's rank, 0..size-1.
 * @param size      the rank count, at least 1.
 * @param localRank this rank among the ranks of its host, or {@link #UNKNOWN}.
 * @param localSize the rank count of its host, or {@link #UNKNOWN}.
 * @param uniqueId  where and with what secret to meet the other ranks.
 * @param source    which variables won, for a log line; never the secret.
 */
public record LaunchInfo(int rank, int size, int localRank, int localSize, UniqueId uniqueId, String source)
{
    /** The local rank or local size where the launcher does not say. */
    public static final int UNKNOWN = LaunchEnvironment.UNKNOWN;

    /**
     * Checks the fields, naming them.
     *
     * @param rank      this process's rank, 0..size-1.
     * @param size      the rank count, at least 1.
     * @param localRank the rank on its host, or {@link #UNKNOWN}.
     * @param localSize the rank count of its host, or {@link #UNKNOWN}.
     * @param uniqueId  the rendezvous, not null.
     * @param source    which variables won, not null.
     * @throws JcclInvalidArgumentException naming a field out of range or null.
     */
    public LaunchInfo
    {
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new JcclInvalidArgumentException("rank=" + rank + " is outside 0.." + (size - 1) + " (size=" +
                size + ")");
        }
        if (uniqueId == null)
        {
            throw new JcclInvalidArgumentException("uniqueId is null");
        }
        if (source == null)
        {
            throw new JcclInvalidArgumentException("source is null");
        }
    }

    /**
     * @param env the environment variables ({@code System.getenv()}, or {@link io.jccl.Settings#environment()}).
     * @return rank, size and rendezvous from the first launcher present.
     * @throws JcclInvalidArgumentException naming the variable that is missing or bad.
     */
    public static LaunchInfo resolve(final Map<String, String> env)
    {
        return of(LaunchEnvironment.resolve(env));
    }

    /**
     * Whether a launcher started this process as one rank of several (a size of 1 counts as none).
     *
     * @param env the environment variables.
     * @return {@link #resolve(Map)} of them, or null when no launcher names a rank of more than one process.
     * @throws JcclInvalidArgumentException when a launcher names a rank of several but the rest (the rendezvous
     *                                      address, a secret) is missing or bad, naming its variables.
     */
    public static LaunchInfo detect(final Map<String, String> env)
    {
        final LaunchEnvironment launch = LaunchEnvironment.detect(env);
        return launch == null ? null : of(launch);
    }

    /**
     * The rank a launcher names, without checking the rest (for a prefix of standard error, set before anything else
     * runs).
     *
     * @param env the environment variables.
     * @return the rank {@link #detect} would find, or -1 when it finds none or the rank is not a number.
     */
    public static int rankOf(final Map<String, String> env)
    {
        return LaunchEnvironment.rankOf(env);
    }

    private static LaunchInfo of(final LaunchEnvironment launch)
    {
        return new LaunchInfo(launch.rank(), launch.size(), launch.localRank(), launch.localSize(),
            launch.uniqueId(), launch.source());
    }

    /** @return the launch without its secret, for a log. */
    @Override
    public String toString()
    {
        return "LaunchInfo[rank=" + rank + ", size=" + size + ", localRank=" + localRank + ", localSize=" +
            localSize + ", rendezvous=" + uniqueId.host() + ":" + uniqueId.port() + ", source=" + source + "]";
    }
}
