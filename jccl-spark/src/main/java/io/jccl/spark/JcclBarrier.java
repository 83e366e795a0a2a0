package io.jccl.spark;

import io.jccl.Communicator;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.JcclSystemException;
import io.jccl.UniqueId;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * The communicator of the tasks of one Spark barrier stage, formed as PySpark's XGBoost forms its tracker: the
 * task of partition 0 makes a {@link UniqueId} on its own executor's host (from the stage's task infos) with a free
 * port and a fresh secret, every task learns it through {@link BarrierTaskContext#allGather(String)}, and all join
 * with rank = partition id, size = the stage's task count. Tasks of one host talk through shared memory, tasks of
 * different hosts through jccl's network transport (DESIGN.md, "Ranks, processes, hosts").
 * <p>
 * The communicator ends with its task, on every path: a task that fails aborts it, which fails the collectives of
 * every other task of the stage at once (their peer is gone), so the stage ends and Spark can run it again with a
 * new id; a task that Spark kills (the rest of a failed barrier stage, a cancelled job) aborts it within a tenth
 * of a second, though Spark only flags such a task; a task that completes closes it. A task whose executor dies
 * breaks it on every peer through its closed connections.
 * <p>
 * The secret travels through Spark's RPC (the driver relays the all-gather); turn on {@code spark.authenticate} and
 * {@code spark.network.crypto.enabled} where that network is not trusted. Threads: call it from the task's thread;
 * stateless.
 */
public final class JcclBarrier
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl.spark");

    private JcclBarrier()
    {
    }

    /**
     * Joins this task to its stage's communicator; every task of the stage must call it, once each time it needs a
     * communicator (two calls in a task make two communicators, in the same order on every task).
     *
     * @param task    the running task, {@code BarrierTaskContext.get()}.
     * @param context the communicator's settings; concluded here, and owned by the communicator from then on.
     * @return this task's rank, closed when the task completes and aborted if it fails.
     * @throws JcclInvalidArgumentException naming the argument, if one is null or a setting is out of range, before
     *                                      anything is sent.
     * @throws JcclInvalidUsageException    if the stage runs only some of its RDD's partitions (a partition id beyond
     *                                      the task count).
     * @throws io.jccl.JcclTimeoutException if some task does not join within the context's deadline.
     */
    public static Communicator communicator(final BarrierTaskContext task, final Context context)
    {
        if (task == null)
        {
            throw new JcclInvalidArgumentException("task is null");
        }
        if (context == null)
        {
            throw new JcclInvalidArgumentException("context is null");
        }
        context.conclude();
        final BarrierTaskInfo[] infos = task.getTaskInfos();
        final int size = infos.length;
        final int rank = task.partitionId();
        if (rank >= size)
        {
            throw new JcclInvalidUsageException("task of partition " + rank + " is in a barrier stage of " + size +
                " tasks: a communicator needs the stage to run every partition of its RDD");
        }
        final String offer = rank == 0 ? rendezvousOn(infos[0].address()).toString() : "";
        final UniqueId id = UniqueId.parse(task.allGather(offer)[0]);
        final TaskKillWatch watch = TaskKillWatch.start(task);
        final Communicator communicator;
        try
        {
            communicator = Jccl.connect(context, rank, size, id);
        }
        catch (final RuntimeException | Error ex)
        {
            watch.stop();
            throw ex;
        }
        watch.joined(communicator);
        final TaskFailureListener abort = (ended, error) ->
        {
            LOG.info("jccl-spark: task attempt {} of stage {} failed ({}): aborting rank {}/{}", ended.taskAttemptId(),
                ended.stageId(), error.toString(), rank, size);
            communicator.abort();
        };
        final TaskCompletionListener close = ended ->
        {
            watch.stop();
            close(communicator, rank, size);
        };
        task.addTaskFailureListener(abort);
        task.addTaskCompletionListener(close);
        return communicator;
    }

    /**
     * @param taskAddress {@code host:port} of partition 0's executor, as Spark's task infos give it.
     * @return a new id on that host with a port that was free a moment ago (a race with another process taking it
     *         fails this stage attempt, and Spark retries it).
     */
    static UniqueId rendezvousOn(final String taskAddress)
    {
        final String host = hostOf(taskAddress);
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName(host)))
        {
            return UniqueId.create(host, probe.getLocalPort());
        }
        catch (final IOException ex)
        {
            throw new JcclSystemException("jccl-spark: no free port on " + host + " (task address " + taskAddress +
                "): " + ex, ex);
        }
    }

    /**
     * @param address {@code host:port}, {@code [v6]:port} or a bare host.
     * @return the host, without brackets.
     */
    static String hostOf(final String address)
    {
        if (address.startsWith("["))
        {
            final int end = address.indexOf(']');
            return end < 0 ? address : address.substring(1, end);
        }
        final int colon = address.indexOf(':');
        // one colon: host:port; none: a bare host; several: a bare IPv6 address
        return colon >= 0 && colon == address.lastIndexOf(':') ? address.substring(0, colon) : address;
    }

    private static void close(final Communicator communicator, final int rank, final int size)
    {
        try
        {
            communicator.close();
        }
        catch (final RuntimeException ex)
        {
            // the task's outcome stands: a failure here follows one that the task or a peer has already reported
            LOG.warn("jccl-spark: closing rank {}/{} failed: {}", rank, size, ex.toString());
        }
    }
}
