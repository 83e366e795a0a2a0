package io.jccl.bench;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.transport.bootstrap.LaunchEnvironment;

import java.util.List;
import java.util.Map;

/**
 * Whether a launcher started this process as one rank of several (nccl-tests under {@code mpirun}): the first of
 * {@code JCCL_RANK} ({@code jccl-bench --nprocs}), {@code RANK} with {@code WORLD_SIZE} (torchrun),
 * {@code OMPI_COMM_WORLD_RANK} (Open MPI), {@code PMI_RANK} (MPICH, Intel MPI) and {@code SLURM_PROCID} (srun) that
 * is set names the launcher, and its size variable the process count. With more than one process, the rest (the
 * rendezvous address and secret) is jccl's {@link LaunchEnvironment#resolve(Map)}; a size of 1 is a run in this
 * process alone, whatever else the environment holds.
 */
public final class RankEnvironment
{
    /** A launcher's rank and size variables; torchrun's {@code RANK} alone is too common a name to count. */
    private record Launcher(String name, String rankVariable, String sizeVariable, boolean needsSize)
    {
        boolean present(final Map<String, String> env)
        {
            return isSet(env, rankVariable) && (!needsSize || isSet(env, sizeVariable));
        }
    }

    private static final List<Launcher> LAUNCHERS = List.of(
        new Launcher("jccl", "JCCL_RANK", "JCCL_WORLD_SIZE", false),
        new Launcher("torchrun", "RANK", "WORLD_SIZE", true),
        new Launcher("Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", false),
        new Launcher("PMI", "PMI_RANK", "PMI_SIZE", false),
        new Launcher("Slurm", "SLURM_PROCID", "SLURM_NTASKS", false));

    private RankEnvironment()
    {
    }

    /**
     * @param env the environment variables ({@code System.getenv()} in the tools).
     * @return this process's rank, the rank count and the rendezvous, or null when no launcher names a rank of more
     *         than one process.
     * @throws IllegalArgumentException when a launcher names a rank of several but the environment lacks what jccl
     *                                  needs to meet the others (an address, a secret) or holds a bad value; the
     *                                  message names the variables.
     */
    public static LaunchEnvironment detect(final Map<String, String> env)
    {
        final Launcher launcher = launcher(env);
        if (launcher == null)
        {
            return null;
        }
        final String size = env.get(launcher.sizeVariable());
        try
        {
            return LaunchEnvironment.resolve(env);
        }
        catch (final JcclInvalidArgumentException ex)
        {
            throw new IllegalArgumentException(launcher.rankVariable() + "=" + env.get(launcher.rankVariable()) +
                (size == null ? "" : " " + launcher.sizeVariable() + "=" + size.trim()) + " (" + launcher.name() +
                ") starts one rank per process, but: " + ex.getMessage(), ex);
        }
    }

    /**
     * The rank a launcher names, without checking the rest (for the {@code [rank k]} prefix of standard error, set
     * before anything else runs).
     *
     * @param env the environment variables.
     * @return the rank {@link #detect} would find, or -1 when no launcher names a rank of more than one process or
     *         the rank is not a number.
     */
    public static int rankOf(final Map<String, String> env)
    {
        final Launcher launcher = launcher(env);
        if (launcher == null)
        {
            return -1;
        }
        try
        {
            return Integer.parseInt(env.get(launcher.rankVariable()).trim());
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /** @return the first launcher present that names more than one process (or a size that is not a number). */
    private static Launcher launcher(final Map<String, String> env)
    {
        final Launcher launcher = LAUNCHERS.stream().filter(l -> l.present(env)).findFirst().orElse(null);
        return launcher == null || isOne(env.get(launcher.sizeVariable())) ? null : launcher;
    }

    private static boolean isOne(final String size)
    {
        try
        {
            return size != null && Integer.parseInt(size.trim()) == 1;
        }
        catch (final NumberFormatException ex)
        {
            return false; // resolve names the variable that is not a number
        }
    }

    private static boolean isSet(final Map<String, String> env, final String variable)
    {
        final String value = env.get(variable);
        return value != null && !value.isBlank();
    }
}
