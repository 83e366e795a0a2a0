package io.jccl.transport.bootstrap;

import io.jccl.UniqueId;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/** Ranks as threads over loopback sockets. */
final class BootstrapTestSupport
{
    /** Generous: only a hung test waits this long. */
    static final long TIMEOUT_MS = 30_000;

    /** The upper bound on any one wait in a test. */
    static final long UPPER_BOUND_S = 60;

    private BootstrapTestSupport()
    {
    }

    /** @return a port that was free a moment ago. */
    static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return an id on a free loopback port with a random secret. */
    static UniqueId newId()
    {
        return UniqueId.create("127.0.0.1", freePort());
    }

    /**
     * @param rank a rank.
     * @return that rank's local info with endpoint "endpoint-rank".
     */
    static PeerInfo info(final int rank)
    {
        return PeerInfo.local(rank, ("endpoint-" + rank).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param size  how many tasks.
     * @param order the order in which to start them.
     * @param task  the task of each index.
     * @param <T>   the result type.
     * @return the results, by index.
     * @throws Exception the first task's failure.
     */
    static <T> List<T> runAll(final int size, final List<Integer> order, final IntFunction<T> task) throws Exception
    {
        final ExecutorService executor = Executors.newFixedThreadPool(size);
        try
        {
            final List<Future<T>> futures = new ArrayList<>();
            for (int r = 0; r < size; r++)
            {
                futures.add(null);
            }
            for (final int r : order)
            {
                futures.set(r, executor.submit(() -> task.apply(r)));
            }
            final List<T> results = new ArrayList<>();
            for (final Future<T> future : futures)
            {
                results.add(get(future));
            }
            return results;
        }
        finally
        {
            executor.shutdownNow();
        }
    }

    /**
     * @param size how many tasks.
     * @param task the task of each index.
     * @param <T>  the result type.
     * @return the results, by index.
     * @throws Exception the first task's failure.
     */
    static <T> List<T> runAll(final int size, final IntFunction<T> task) throws Exception
    {
        final List<Integer> order = new ArrayList<>();
        for (int r = 0; r < size; r++)
        {
            order.add(r);
        }
        return runAll(size, order, task);
    }

    /**
     * @param id    the rendezvous.
     * @param size  the number of ranks.
     * @param order the order in which ranks start.
     * @return the connected ranks, by rank.
     * @throws Exception the first rank's failure.
     */
    static Bootstrap[] connectAll(final UniqueId id, final int size, final List<Integer> order) throws Exception
    {
        return runAll(size, order, (r) -> Bootstrap.connect(id, r, size, info(r), TIMEOUT_MS))
            .toArray(new Bootstrap[0]);
    }

    /**
     * @param id   the rendezvous.
     * @param size the number of ranks.
     * @return the connected ranks, by rank.
     * @throws Exception the first rank's failure.
     */
    static Bootstrap[] connectAll(final UniqueId id, final int size) throws Exception
    {
        final List<Integer> order = new ArrayList<>();
        for (int r = 0; r < size; r++)
        {
            order.add(r);
        }
        return connectAll(id, size, order);
    }

    /**
     * @param future a future.
     * @param <T>    its type.
     * @return its value, waiting at most {@link #UPPER_BOUND_S}.
     * @throws Exception its failure, unwrapped.
     */
    static <T> T get(final Future<T> future) throws Exception
    {
        try
        {
            return future.get(UPPER_BOUND_S, TimeUnit.SECONDS);
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof Exception cause)
            {
                throw cause;
            }
            throw ex;
        }
        catch (final TimeoutException ex)
        {
            throw new AssertionError("hung for " + UPPER_BOUND_S + " s", ex);
        }
    }

    /** @param bootstraps ranks to close, null ones skipped. */
    static void closeAll(final Bootstrap... bootstraps)
    {
        for (final Bootstrap bootstrap : bootstraps)
        {
            if (bootstrap != null)
            {
                bootstrap.close();
            }
        }
    }
}
