package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.UniqueId;
import io.jccl.transport.bootstrap.LaunchEnvironment;
import org.slf4j.LoggerFactory;

/**
 * jccl's entry point: creates communicators and brackets group calls.
 * <pre>{@code
 * Communicator[] comms = Jccl.initAll(new Context(), 4);   // four ranks in this process
 * Jccl.groupStart();
 * for (Communicator c : comms) works[c.rank()] = c.allReduce(send[c.rank()], recv[c.rank()], n, FLOAT32, SUM, Stream.DEFAULT);
 * Jccl.groupEnd();
 * for (Work w : works) w.join();
 * }</pre>
 */
public final class Jccl
{
    private Jccl()
    {
    }

    /**
     * Creates {@code nRanks} communicators in this process at once, NCCL's {@code ncclCommInitAll}, with the
     * default context (settings from {@code JCCL_*} environment variables and system properties).
     *
     * @param nRanks rank count, at least 1.
     * @return the communicators, index = rank.
     */
    public static Communicator[] initAll(final int nRanks)
    {
        return initAll(new Context(), nRanks);
    }

    /**
     * Creates {@code nRanks} communicators in this process at once, NCCL's {@code ncclCommInitAll}.
     *
     * @param context settings; concluded here, and owned by the communicators from then on.
     * @param nRanks  rank count, at least 1.
     * @return the communicators, index = rank.
     * @throws JcclInvalidArgumentException if nRanks is below 1 or a setting is out of range.
     * @throws io.jccl.JcclSystemException if the JVM lacks a flag jccl needs.
     */
    public static Communicator[] initAll(final Context context, final int nRanks)
    {
        if (context == null)
        {
            throw new JcclInvalidArgumentException("context is null");
        }
        if (nRanks < 1)
        {
            throw new JcclInvalidArgumentException("nRanks=" + nRanks + " must be at least 1");
        }
        context.conclude();
        return CommGroup.create(context, nRanks).communicators();
    }

    /**
     * @param id a communicator's rendezvous.
     * @return the prefix of the names of that communicator's FIFO files in {@code /dev/shm} (for tests and cleanup).
     */
    static String sharedPrefix(final UniqueId id)
    {
        return ProcessGroupJoin.sharedPrefix(id);
    }

    /**
     * Joins a communicator of ranks in several processes (NCCL's {@code ncclCommInitRank}). Rank 0 creates the
     * {@link UniqueId} and passes it to the others out of band.
     *
     * @param context settings.
     * @param rank    this process's rank, 0..size-1.
     * @param size    rank count.
     * @param id      the rendezvous of rank 0.
     * @return the communicator.
     * @throws JcclInvalidUsageException if a rank runs on another host (no network transport yet) or the ranks'
     *                                    plan settings differ.
     * @throws io.jccl.JcclTimeoutException if the other ranks do not all join within the context's deadline.
     */
    public static Communicator connect(final Context context, final int rank, final int size, final UniqueId id)
    {
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new JcclInvalidArgumentException("rank=" + rank + " is outside 0.." + (size - 1) + " (size=" +
                size + ")");
        }
        if (id == null)
        {
            throw new JcclInvalidArgumentException("id is null");
        }
        context.conclude();
        return ProcessGroupJoin.join(context, rank, size, id);
    }

    /**
     * Joins a communicator of ranks in several processes, reading rank, size and rendezvous from the environment a
     * launcher set ({@link LaunchEnvironment}: {@code JCCL_RANK}/{@code JCCL_WORLD_SIZE}, torchrun, Open MPI, PMI or
     * Slurm; the address from {@code JCCL_COMM_ID}, {@code MASTER_ADDR}/{@code MASTER_PORT} or
     * {@code JCCL_MASTER_ADDR}/{@code JCCL_PORT}), and logs which source won.
     *
     * @param context settings.
     * @return the communicator.
     * @throws JcclInvalidArgumentException naming the variable when the environment is incomplete or malformed.
     */
    public static Communicator connect(final Context context)
    {
        final LaunchEnvironment env = LaunchEnvironment.resolve(System.getenv());
        LoggerFactory.getLogger("io.jccl").info("jccl rank {}/{} from {}", env.rank(), env.size(), env.source());
        return connect(context, env.rank(), env.size(), env.uniqueId());
    }

    /**
     * @param communicator a communicator of this process.
     * @return the online tuner's tasks of its group ({@code JCCL_TUNER=auto}): trials, baseline and best plans and
     *         times; empty when the online tuner is off.
     * @throws JcclInvalidArgumentException if the communicator is not jccl's.
     */
    public static java.util.List<io.jccl.autotune.TaskReport> tunerReports(final Communicator communicator)
    {
        if (!(communicator instanceof LocalCommunicator))
        {
            throw new JcclInvalidArgumentException("communicator " + communicator + " was not made by jccl");
        }
        final io.jccl.autotune.OnlineTuner online = ((LocalCommunicator)communicator).onlineTuner();
        return online == null ? java.util.List.of() : online.reports();
    }

    /** Starts a group (NCCL's {@code ncclGroupStart}); groups nest, and calls start at the outermost end. */
    public static void groupStart()
    {
        Group.start();
    }

    /** Ends a group (NCCL's {@code ncclGroupEnd}): every call made since the outermost start is started. */
    public static void groupEnd()
    {
        Group.end();
    }
}
