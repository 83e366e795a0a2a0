package io.jccl.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Starts the children of a {@link ChildCommand}, copies their output ({@link Output}), waits for all of them and
 * exits as {@code torchrun} or {@code mpirun} would: with 0 when every child did, else with the status of the first
 * child that failed, named with its rank.
 * <p>
 * When a child exits with a nonzero status, the launcher names its rank and gives the others a grace period to end
 * by themselves, as they should: jccl breaks a communicator whose peer died, and the survivors' own errors say
 * what they saw. Any still running then are stopped (SIGTERM, then after {@value #KILL_WAIT_MS} ms SIGKILL) and
 * named, so nothing hangs. A shutdown hook stops every child when the launcher itself is stopped (SIGINT, SIGTERM):
 * each child gets SIGTERM, then SIGKILL after {@value #KILL_WAIT_MS} ms.
 */
public final class ProcessLauncher
{
    /** The wait between stopping a child politely and killing it, in ms. */
    public static final long KILL_WAIT_MS = 5_000;
    /** Exit status when every child succeeded. */
    public static final int EXIT_OK = 0;
    /** Exit status when a child could not start, or had to be stopped while none failed by itself. */
    public static final int EXIT_FAILURE = 1;
    /** Exit status when the launcher was interrupted. */
    public static final int EXIT_INTERRUPTED = 130;

    /** Where the children's output goes. */
    public enum Output
    {
        /** Every line of every child's standard output and error, to the launcher's, behind {@code [rank k] }. */
        PREFIXED,
        /**
         * Child 0's standard output as it is (one table for the run), the others' discarded; every child's standard
         * error as it is (the children prefix their own, as the bench does).
         */
        FIRST_STDOUT
    }

    private final String name;
    private final ChildCommand command;
    private final Output output;
    private final long graceMs;
    private final PrintStream out;
    private final PrintStream err;
    private final List<Process> started = new CopyOnWriteArrayList<>();

    /**
     * @param name    the launcher's name, before its own messages.
     * @param command the children.
     * @param output  where their output goes.
     * @param graceMs how long the others may run on after one failed, in ms.
     * @param out     the launcher's standard output.
     * @param err     the launcher's standard error, for its own messages too.
     */
    public ProcessLauncher(final String name, final ChildCommand command, final Output output, final long graceMs,
        final PrintStream out, final PrintStream err)
    {
        this.name = name;
        this.command = command;
        this.output = output;
        this.graceMs = graceMs;
        this.out = out;
        this.err = err;
    }

    /** @return a TCP port of 127.0.0.1 that was free a moment ago, for rank 0's rendezvous. */
    public static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("no free port on " + InetAddress.getLoopbackAddress(), ex);
        }
    }

    /**
     * Runs the children to their end.
     *
     * @return {@value #EXIT_OK} when every child exited with 0; else the status of the first child that failed by
     *         itself, or {@value #EXIT_FAILURE} when one could not start or had to be stopped while none failed;
     *         {@value #EXIT_INTERRUPTED} when interrupted.
     */
    public int run()
    {
        final Thread hook = new Thread(this::stop, name + "-stop-children");
        Runtime.getRuntime().addShutdownHook(hook);
        final BlockingQueue<Integer> exits = new LinkedBlockingQueue<>();
        final List<Thread> copiers = new ArrayList<>();
        try
        {
            for (int local = 0; local < command.nprocs(); local++)
            {
                final int rank = command.world().rank(local);
                final boolean keepStdout = output == Output.PREFIXED || rank == 0;
                final Process child;
                try
                {
                    child = command.processBuilder(local)
                        .redirectOutput(keepStdout ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.DISCARD)
                        .start();
                }
                catch (final IOException ex)
                {
                    err.println(name + ": starting rank " + rank + " failed: " + ex.getMessage());
                    stop();
                    return EXIT_FAILURE;
                }
                started.add(child);
                closeQuietly(child.getOutputStream());
                final String prefix = output == Output.PREFIXED ? "[rank " + rank + "] " : "";
                copiers.add(copy(child.getErrorStream(), err, prefix, "rank-" + rank + "-stderr"));
                if (keepStdout)
                {
                    copiers.add(copy(child.getInputStream(), out, prefix, "rank-" + rank + "-stdout"));
                }
                final int l = local;
                child.onExit().thenRun(() -> exits.add(l));
            }
            return await(exits);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            stop();
            return EXIT_INTERRUPTED;
        }
        finally
        {
            joinAll(copiers);
            out.flush();
            err.flush();
            removeHook(hook);
        }
    }

    /** Takes the exits as they come; after the first failure, stops whoever outlives the grace period. */
    private int await(final BlockingQueue<Integer> exits) throws InterruptedException
    {
        int remaining = command.nprocs();
        int firstStatus = EXIT_OK;
        int failedRank = -1;
        boolean stopped = false;
        int phase = 0;
        long deadlineNs = 0;
        while (remaining > 0)
        {
            final Integer local = phase == 0 || phase == 3 ? exits.take() :
                exits.poll(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (local == null)
            {
                // phase 1: the grace period is over; phase 2: SIGTERM was not enough
                final List<Integer> alive = alive();
                if (phase == 1 && !alive.isEmpty())
                {
                    err.println(name + ": stopping rank" + (alive.size() == 1 ? " " : "s ") + join(alive) +
                        ": still running " + graceMs + " ms after rank " + failedRank + " failed");
                }
                for (final int l : alive)
                {
                    final Process child = started.get(l);
                    if (phase == 1)
                    {
                        child.destroy();
                    }
                    else
                    {
                        child.destroyForcibly();
                    }
                }
                phase++;
                deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(KILL_WAIT_MS);
                continue;
            }
            remaining--;
            final Process child = started.get(local);
            final int status = child.exitValue();
            if (phase >= 2)
            {
                stopped = true;
                continue;
            }
            if (status != 0)
            {
                final int rank = command.world().rank(local);
                err.println(name + ": rank " + rank + " (pid " + child.pid() + ") exited with status " + status +
                    (failedRank < 0 && remaining > 0 ? "; the other ranks have " + graceMs + " ms to end before " +
                    "they are stopped" : ""));
                if (failedRank < 0)
                {
                    failedRank = rank;
                    firstStatus = status;
                    phase = 1;
                    deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs);
                }
            }
        }
        if (failedRank >= 0)
        {
            err.println(name + ": failed: rank " + failedRank + " exited first, with status " + firstStatus);
            return firstStatus;
        }
        return stopped ? EXIT_FAILURE : EXIT_OK;
    }

    /** The children still running, by local rank. */
    private List<Integer> alive()
    {
        final List<Integer> alive = new ArrayList<>();
        for (int l = 0; l < started.size(); l++)
        {
            if (started.get(l).isAlive())
            {
                alive.add(l);
            }
        }
        return alive;
    }

    /** Stops every child still running: politely, then, if it has not ended after a while, by force. */
    private void stop()
    {
        for (final Process child : started)
        {
            child.destroy();
        }
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(KILL_WAIT_MS);
        for (final Process child : started)
        {
            try
            {
                if (!child.waitFor(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS))
                {
                    child.destroyForcibly();
                }
            }
            catch (final InterruptedException ex)
            {
                child.destroyForcibly();
            }
        }
    }

    /** Copies a child's stream line by line on a thread of its own, to the end of the stream. */
    private Thread copy(final InputStream from, final OutputStream to, final String prefix, final String what)
    {
        final Thread thread = new Thread(() ->
        {
            try (InputStream in = from; LineOutputStream lines = new LineOutputStream(to, prefix))
            {
                in.transferTo(lines);
            }
            catch (final IOException ex)
            {
                // the child is gone; what it wrote before is copied
            }
        }, name + "-copy-" + what);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void joinAll(final List<Thread> threads)
    {
        for (final Thread thread : threads)
        {
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void removeHook(final Thread hook)
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException ex)
        {
            // the JVM is shutting down: the hook runs
        }
    }

    private static void closeQuietly(final OutputStream stream)
    {
        try
        {
            stream.close();
        }
        catch (final IOException ex)
        {
            // a child that does not read its input
        }
    }

    /** @return the ranks of these local children, joined by commas. */
    private String join(final List<Integer> locals)
    {
        final StringBuilder sb = new StringBuilder();
        for (final int local : locals)
        {
            sb.append(sb.length() == 0 ? "" : ", ").append(command.world().rank(local));
        }
        return sb.toString();
    }
}
