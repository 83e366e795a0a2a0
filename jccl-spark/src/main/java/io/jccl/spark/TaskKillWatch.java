package io.jccl.spark;

import io.jccl.Communicator;
import org.apache.spark.TaskContext;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Turns Spark's kill of a barrier task into jccl's abort. Spark kills the other tasks of a failed barrier stage,
 * and every task of a cancelled job, by setting a flag ({@link TaskContext#isInterrupted()}) that the task's own
 * code must poll; a task blocked in a collective never would, and would hold its slot until jccl's deadline. So
 * while a task holds a communicator, one daemon thread per JVM polls its flag every {@link #POLL_MS} ms: once set,
 * it aborts the communicator (every waiter of this rank wakes, and every peer sees this rank gone), or, while the
 * task is still joining, interrupts the joining thread (the rendezvous ends with {@code JcclAbortedException}).
 * <p>
 * Threads: made and stopped on the task's thread or Spark's listener thread; {@link #check()} runs on the poller;
 * the fields are guarded by this.
 */
final class TaskKillWatch
{
    /** How often a killed task is looked for: far below any deadline, and a poll costs a volatile read. */
    static final long POLL_MS = 100;

    private static final ScheduledExecutorService POLLER = Executors.newSingleThreadScheduledExecutor(task ->
    {
        final Thread thread = new Thread(task, "jccl-spark-kill-watch");
        thread.setDaemon(true);
        return thread;
    });

    private final TaskContext task;
    private final Thread joiner;
    private Communicator communicator;
    private ScheduledFuture<?> poll;
    private boolean ended;

    private TaskKillWatch(final TaskContext task, final Thread joiner)
    {
        this.task = task;
        this.joiner = joiner;
    }

    /**
     * Starts watching a task that is about to join; call it on the joining thread.
     *
     * @param task the task.
     * @return the watch; {@link #stop()} it when the task ends or its join fails.
     */
    static TaskKillWatch start(final TaskContext task)
    {
        final TaskKillWatch watch = new TaskKillWatch(task, Thread.currentThread());
        synchronized (watch)
        {
            watch.poll = POLLER.scheduleWithFixedDelay(watch::check, POLL_MS, POLL_MS, TimeUnit.MILLISECONDS);
        }
        return watch;
    }

    /**
     * The join has returned: a kill from now on aborts this communicator instead of interrupting the thread.
     *
     * @param joined the task's communicator.
     */
    synchronized void joined(final Communicator joined)
    {
        communicator = joined;
    }

    /** Stops watching; idempotent. */
    synchronized void stop()
    {
        ended = true;
        poll.cancel(false);
    }

    private synchronized void check()
    {
        if (ended || !task.isInterrupted())
        {
            return;
        }
        stop();
        if (communicator != null)
        {
            communicator.abort();
        }
        else
        {
            joiner.interrupt();
        }
    }
}
