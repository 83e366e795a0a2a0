package io.jccl.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code jccl-bench --nprocs N <tool> [flags]}: runs a tool as N processes of one rank each on this host, as
 * {@code torchrun --nproc-per-node N} or {@code mpirun -np N} would, without either. Starts the children of a
 * {@link ChildCommand} at once, copies child 0's standard output to its own (the table) and every child's standard
 * error to its own (whole lines, each already prefixed {@code [rank k]} by the child), waits for all of them and
 * exits with the worst status.
 * <p>
 * When a child exits with a nonzero status, the launcher names its rank and gives the others the grace period
 * ({@code --timeout-ms}, else {@code -T}, else {@value #DEFAULT_GRACE_MS} ms) to end by themselves, as they should:
 * jccl breaks a communicator whose peer died. Any still running then are stopped (SIGTERM, then after
 * {@value #KILL_WAIT_MS} ms SIGKILL) and named, so nothing hangs. A shutdown hook stops every child when the
 * launcher itself is stopped (Ctrl-C).
 */
public final class ProcessLauncher
{
    /** The flag, before or after the tool name. */
    public static final String NPROCS_FLAG = "--nprocs";
    /** The grace period when neither {@code --timeout-ms} nor {@code -T} is given, in ms. */
    public static final long DEFAULT_GRACE_MS = 60_000;
    /** The wait between stopping a child politely and killing it, in ms. */
    public static final long KILL_WAIT_MS = 5_000;
    /** Exit status when the launcher was interrupted. */
    static final int EXIT_INTERRUPTED = 130;

    private static final String NAME = "jccl-bench";

    private final ChildCommand command;
    private final long graceMs;
    private final PrintStream out;
    private final PrintStream err;
    private final List<Process> started = new CopyOnWriteArrayList<>();

    /**
     * The arguments with {@value #NPROCS_FLAG} taken out.
     *
     * @param nprocs the process count given, or 0 when the flag is absent.
     * @param bindTo the value of {@value CpuBinding#FLAG}, or null when it is absent.
     * @param rest   the other arguments, in order.
     */
    public record Split(int nprocs, String bindTo, List<String> rest)
    {
    }

    /**
     * @param command the children.
     * @param graceMs how long the others may run on after one failed, in ms.
     * @param out     where child 0's standard output goes.
     * @param err     where every child's standard error and the launcher's own messages go.
     */
    public ProcessLauncher(final ChildCommand command, final long graceMs, final PrintStream out,
        final PrintStream err)
    {
        this.command = command;
        this.graceMs = graceMs;
        this.out = out;
        this.err = err;
    }

    /**
     * @param args the command line.
     * @return whether it holds {@value #NPROCS_FLAG}, alone or as {@code --nprocs=N}.
     */
    public static boolean given(final String[] args)
    {
        return Arrays.stream(args).anyMatch(a -> a.equals(NPROCS_FLAG) || a.startsWith(NPROCS_FLAG + "="));
    }

    /**
     * @param args the command line.
     * @return the process count of {@code --nprocs N} or {@code --nprocs=N} (0 when absent), the value of
     *         {@code --bind-to} (null when absent), and the rest.
     * @throws IllegalArgumentException when a flag has no value or is given twice, the count is not a count of 1 or
     *                                  more, or {@code --bind-to} comes without {@code --nprocs}.
     */
    public static Split split(final String[] args)
    {
        int nprocs = 0;
        String bindTo = null;
        final List<String> rest = new ArrayList<>(args.length);
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            final String flag = arg.startsWith(NPROCS_FLAG) ? NPROCS_FLAG :
                arg.startsWith(CpuBinding.FLAG) ? CpuBinding.FLAG : null;
            final String value;
            if (flag != null && arg.equals(flag))
            {
                if (i + 1 == args.length)
                {
                    throw new IllegalArgumentException(flag + (flag.equals(NPROCS_FLAG) ? " needs a process count" :
                        " needs " + CpuBinding.CORE + " or " + CpuBinding.NONE));
                }
                value = args[++i];
            }
            else if (flag != null && arg.startsWith(flag + "="))
            {
                value = arg.substring(flag.length() + 1);
            }
            else
            {
                rest.add(arg);
                continue;
            }
            if (flag.equals(NPROCS_FLAG) ? nprocs != 0 : bindTo != null)
            {
                throw new IllegalArgumentException(flag + " is given twice");
            }
            if (flag.equals(NPROCS_FLAG))
            {
                nprocs = count(value);
            }
            else
            {
                bindTo = value;
            }
        }
        if (bindTo != null && nprocs == 0)
        {
            throw new IllegalArgumentException(CpuBinding.FLAG + " binds the processes of " + NPROCS_FLAG +
                ", which is not given");
        }
        return new Split(nprocs, bindTo, rest);
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
     * @return the worst status of the children that ended by themselves, at least {@link BenchRunner#EXIT_FAILURE}
     *         when one had to be stopped or could not start; {@value #EXIT_INTERRUPTED} when interrupted.
     */
    public int run()
    {
        final Thread hook = new Thread(this::stop, NAME + "-stop-children");
        Runtime.getRuntime().addShutdownHook(hook);
        final BlockingQueue<Integer> exits = new LinkedBlockingQueue<>();
        final List<Thread> copiers = new ArrayList<>();
        try
        {
            for (int rank = 0; rank < command.nprocs(); rank++)
            {
                final Process child;
                try
                {
                    child = command.processBuilder(rank)
                        .redirectOutput(rank == 0 ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.DISCARD)
                        .start();
                }
                catch (final IOException ex)
                {
                    err.println(NAME + ": starting rank " + rank + " failed: " + ex.getMessage());
                    stop();
                    return BenchRunner.EXIT_FAILURE;
                }
                started.add(child);
                closeQuietly(child.getOutputStream());
                copiers.add(copy(child.getErrorStream(), err, "rank " + rank + " stderr"));
                if (rank == 0)
                {
                    copiers.add(copy(child.getInputStream(), out, "rank 0 stdout"));
                }
                final int r = rank;
                child.onExit().thenRun(() -> exits.add(r));
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
        int worst = BenchRunner.EXIT_OK;
        int failedRank = -1;
        int phase = 0;
        long deadlineNs = 0;
        while (remaining > 0)
        {
            final Integer rank = phase == 0 || phase == 3 ? exits.take() :
                exits.poll(Math.max(0, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (rank == null)
            {
                // phase 1: the grace period is over; phase 2: SIGTERM was not enough
                final List<Integer> alive = alive();
                if (phase == 1 && !alive.isEmpty())
                {
                    err.println(NAME + ": stopping rank" + (alive.size() == 1 ? " " : "s ") + join(alive) +
                        ": still running " + graceMs + " ms after rank " + failedRank + " failed");
                }
                for (final int r : alive)
                {
                    final Process child = started.get(r);
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
            final Process child = started.get(rank);
            final int status = child.exitValue();
            if (phase >= 2)
            {
                // stopped by the launcher
                worst = Math.max(worst, BenchRunner.EXIT_FAILURE);
                continue;
            }
            worst = Math.max(worst, status);
            if (status != 0)
            {
                err.println(NAME + ": rank " + rank + " (pid " + child.pid() + ") exited with status " + status +
                    (failedRank < 0 && remaining > 0 ? "; the other ranks have " + graceMs + " ms to end before " +
                    "they are stopped" : ""));
                if (failedRank < 0)
                {
                    failedRank = rank;
                    phase = 1;
                    deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMs);
                }
            }
        }
        return worst;
    }

    /** The children still running, by rank. */
    private List<Integer> alive()
    {
        final List<Integer> alive = new ArrayList<>();
        for (int r = 0; r < started.size(); r++)
        {
            if (started.get(r).isAlive())
            {
                alive.add(r);
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
    private static Thread copy(final InputStream from, final OutputStream to, final String what)
    {
        final Thread thread = new Thread(() ->
        {
            try (InputStream in = from; LineOutputStream lines = new LineOutputStream(to, ""))
            {
                in.transferTo(lines);
            }
            catch (final IOException ex)
            {
                // the child is gone; what it wrote before is copied
            }
        }, NAME + "-copy-" + what.replace(' ', '-'));
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

    private static int count(final String value)
    {
        final int count;
        try
        {
            count = Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(NPROCS_FLAG + " '" + value + "' is not a process count");
        }
        if (count < 1)
        {
            throw new IllegalArgumentException(NPROCS_FLAG + " " + count + " must be at least 1");
        }
        return count;
    }

    private static String join(final List<Integer> ranks)
    {
        final StringBuilder sb = new StringBuilder();
        for (final int rank : ranks)
        {
            sb.append(sb.length() == 0 ? "" : ", ").append(rank);
        }
        return sb.toString();
    }
}
