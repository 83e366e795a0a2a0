package io.jccl.transport.bootstrap;

import io.jccl.JcclAbortedException;
import io.jccl.JcclException;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclRemoteException;
import io.jccl.JcclTimeoutException;
import io.jccl.transport.agent.AgentThread;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static io.jccl.transport.bootstrap.BootstrapProtocol.CLOSE_LINGER_MS;
import static io.jccl.transport.bootstrap.BootstrapProtocol.FAILED;
import static io.jccl.transport.bootstrap.BootstrapProtocol.FAILED_ABORTED;
import static io.jccl.transport.bootstrap.BootstrapProtocol.FAILED_TIMEOUT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.GOODBYE;
import static io.jccl.transport.bootstrap.BootstrapProtocol.RANK_DIED;
import static io.jccl.transport.bootstrap.BootstrapProtocol.RANK_LEFT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.encode;
import static io.jccl.transport.bootstrap.BootstrapProtocol.typeName;

/**
 * The watch for failed peers of a {@link Bootstrap}: it reads every control connection, hands the all-gather and
 * notice frames to the bootstrap, and turns the end of a connection without a goodbye, or rank 0's report of such an
 * end, into a {@link JcclRemoteException} for the consumer set with {@link #onPeerFailure(Consumer)}; a rank's
 * announced failure ({@code FAILED}) becomes an exception of its kind, an abort a {@link JcclAbortedException}. A
 * peer that said goodbye or that aborted, or any peer once this rank is closing, is only marked gone. Rank 0 relays
 * what it sees to the other ranks, which see only rank 0's connection: a death ({@code RANK_DIED}), a goodbye
 * ({@code RANK_LEFT}) and a failure ({@code FAILED}).
 * <p>
 * Threading: one daemon thread, {@code jccl-bootstrap-watch-<rank>}, started by {@link #start()}, reads the
 * connections and runs the bootstrap's handlers and the failure consumer; a single rank has no connection and no
 * thread. The thread is an {@link AgentThread}: an error that ends it (the selector failed) is reported as a
 * failure, as a dead peer would go unseen. Who is gone is kept by the bootstrap, under its lock. The failures and their
 * consumer are kept under a monitor of their own, so that {@link #onPeerFailure(Consumer)} may be called on any thread
 * and misses none. The bootstrap calls {@link #stop(boolean)} and {@link #closeSelector()} when it closes, on any
 * thread, this one included.
 */
final class PeerWatch
{
    private static final Logger LOGGER = LoggerFactory.getLogger("io.jccl");

    private final Bootstrap bootstrap;
    private final int rank;
    private final int size;
    private final List<PeerInfo> peers;
    private final Selector selector;
    private final AgentThread watcher;
    private final Object failureMonitor = new Object();
    private final List<JcclException> failures = new ArrayList<>();
    private Consumer<JcclException> failureListener;
    private volatile boolean running = true;

    /**
     * Registers every connection with a selector of its own and creates the watch thread, without starting it.
     *
     * @param bootstrap the bootstrap being constructed, whose rank, size and peers are set.
     * @param links     its connections, indexed by rank, null where there is none.
     * @throws IOException if the selector cannot be opened or a connection cannot be registered.
     */
    PeerWatch(final Bootstrap bootstrap, final BootstrapLink[] links) throws IOException
    {
        this.bootstrap = bootstrap;
        this.rank = bootstrap.rank();
        this.size = bootstrap.size();
        this.peers = bootstrap.peers();
        if (size == 1)
        {
            selector = null;
            watcher = null;
            return;
        }
        selector = Selector.open();
        for (final BootstrapLink link : links)
        {
            if (link != null)
            {
                link.channel().register(selector, SelectionKey.OP_READ, link);
            }
        }
        // the agent blocks in select(), so it needs no idle strategy
        watcher = new AgentThread("jccl-bootstrap-watch-" + rank, new WatchAgent(), NoOpIdleStrategy.INSTANCE,
            this::watchFailed);
    }

    /** Starts the watch thread; a single rank has none. */
    void start()
    {
        if (watcher != null)
        {
            watcher.start();
        }
    }

    /** @return whether the calling thread is the watch thread. */
    boolean onWatchThread()
    {
        return watcher != null && watcher.isCurrentThread();
    }

    /**
     * Sets who hears of dead peers, as {@link Bootstrap#onPeerFailure(Consumer)} describes.
     *
     * @param listener the consumer of failures; replaces any earlier one.
     * @throws JcclInvalidArgumentException if the listener is null.
     */
    void onPeerFailure(final Consumer<JcclException> listener)
    {
        if (listener == null)
        {
            throw new JcclInvalidArgumentException("listener is null");
        }
        final List<JcclException> earlier;
        synchronized (failureMonitor)
        {
            failureListener = listener;
            earlier = List.copyOf(failures);
        }
        for (final JcclException failure : earlier)
        {
            deliver(listener, failure);
        }
    }

    /**
     * Tells the watch thread to stop and, unless called on it, waits for it up to the close linger; the bootstrap then
     * closes its connections and then {@link #closeSelector()}.
     *
     * @param onWatcher whether the caller is the watch thread.
     */
    void stop(final boolean onWatcher)
    {
        running = false;
        if (selector != null)
        {
            selector.wakeup();
        }
        if (watcher != null && !onWatcher)
        {
            watcher.close(CLOSE_LINGER_MS);
        }
    }

    /** Closes the selector, once {@link #stop(boolean)} has been called and the connections are closed. */
    void closeSelector()
    {
        if (selector != null)
        {
            try
            {
                selector.close();
            }
            catch (final IOException ex)
            {
                // nothing left to release
            }
        }
    }

    /**
     * One select and the frames it found.
     *
     * @return the keys handled.
     * @throws IOException if the selector fails.
     */
    private int watchOnce() throws IOException
    {
        if (!running)
        {
            // stopped on this thread or another: close() cannot wait for the thread it runs on, so it ends itself
            throw new AgentTerminationException("stopped");
        }
        try
        {
            selector.select();
        }
        catch (final ClosedSelectorException ex)
        {
            if (running)
            {
                throw ex;
            }
            return 0;
        }
        int work = 0;
        final var keys = selector.selectedKeys().iterator();
        while (running && keys.hasNext())
        {
            final SelectionKey key = keys.next();
            keys.remove();
            if (key.isValid())
            {
                readLink((BootstrapLink)key.attachment(), key);
            }
            work++;
        }
        return work;
    }

    /** The watch ended on an error (the selector failed, or a bug): dead peers would go unseen, so it is a failure. */
    private void watchFailed(final Throwable cause)
    {
        if (running && !bootstrap.isClosing())
        {
            report(new JcclRemoteException("rank " + rank + " stopped watching its peers: " + cause, cause));
        }
    }

    /** The watch thread's duty: {@link #watchOnce()}. */
    private final class WatchAgent implements Agent
    {
        @Override
        public int doWork() throws IOException
        {
            return watchOnce();
        }

        @Override
        public String roleName()
        {
            return "jccl-bootstrap-watch-" + rank;
        }
    }

    private void readLink(final BootstrapLink link, final SelectionKey key)
    {
        try
        {
            BootstrapLink.Frame frame;
            while ((frame = link.readFrame()) != null)
            {
                onFrame(link, frame);
            }
        }
        catch (final EOFException ex)
        {
            key.cancel();
            linkEnded(link, "its connection closed without a goodbye", null);
        }
        catch (final IOException | RuntimeException ex)
        {
            key.cancel();
            linkEnded(link, "its connection failed: " + ex, ex);
        }
    }

    /** Takes a goodbye from any rank and rank 0's reports on the others; the bootstrap takes the rest. */
    private void onFrame(final BootstrapLink link, final BootstrapLink.Frame frame) throws IOException
    {
        final DataInputStream in = BootstrapProtocol.decode(frame.payload());
        try
        {
            if (frame.type() == GOODBYE)
            {
                goodbye(link);
            }
            else if (frame.type() == FAILED)
            {
                failed(link, in, frame.payload());
            }
            else if (rank != 0 && frame.type() == RANK_DIED)
            {
                rankDied(in);
            }
            else if (rank != 0 && frame.type() == RANK_LEFT)
            {
                rankLeft(in);
            }
            else
            {
                bootstrap.onMessage(link.peer(), frame.type(), in);
            }
        }
        catch (final IOException ex)
        {
            // a plain IOException, so that a short payload is not taken for the end of the connection
            throw new IOException("rank " + link.peer() + " sent a malformed " + typeName(frame.type()) + ": " + ex);
        }
    }

    private void goodbye(final BootstrapLink link) throws IOException
    {
        final int peer = link.peer();
        link.goodbyeReceived();
        bootstrap.markGone(peer, "rank " + peer + " has closed");
        if (rank == 0 && !bootstrap.isClosing())
        {
            bootstrap.broadcast(RANK_LEFT, encode((out) -> out.writeInt(peer)), peer);
        }
        link.shutdownOutput();
    }

    /**
     * A rank's communicator failed there: a peer tells rank 0 of itself, rank 0 tells the others of itself or relays.
     * Rank 0 relays before it reports, as with a death. An abort marks the rank gone, and its link's end clean.
     */
    private void failed(final BootstrapLink link, final DataInputStream in, final byte[] payload) throws IOException
    {
        final int origin = in.readInt();
        final byte kind = in.readByte();
        final String reason = in.readUTF();
        if (origin < 0 || origin >= size || origin == rank || (link.peer() != 0 && origin != link.peer()))
        {
            throw new IOException("rank " + link.peer() + " reported a failure of rank " + origin);
        }
        final boolean aborted = kind == FAILED_ABORTED;
        if (aborted && origin == link.peer())
        {
            link.goodbyeReceived();
        }
        if (rank == 0 && !bootstrap.isClosing())
        {
            bootstrap.broadcast(FAILED, payload, origin);
        }
        if (aborted)
        {
            final String message = describe(origin) + " aborted the communicator";
            if (bootstrap.markGone(origin, message) && !bootstrap.isClosing())
            {
                report(new JcclAbortedException(message));
            }
        }
        else if (!bootstrap.isClosing())
        {
            report(kind == FAILED_TIMEOUT ? new JcclTimeoutException(reason) : new JcclRemoteException(reason));
        }
    }

    private void rankDied(final DataInputStream in) throws IOException
    {
        final int dead = in.readInt();
        final String reason = in.readUTF();
        if (dead < 0 || dead >= size)
        {
            throw new IOException("rank " + dead + " is outside 0.." + (size - 1));
        }
        peerDied(dead, reason + " (reported by rank 0)", null);
    }

    private void rankLeft(final DataInputStream in) throws IOException
    {
        final int left = in.readInt();
        if (left < 0 || left >= size)
        {
            throw new IOException("rank " + left + " is outside 0.." + (size - 1));
        }
        bootstrap.markGone(left, "rank " + left + " has closed");
    }

    private void linkEnded(final BootstrapLink link, final String detail, final Throwable cause)
    {
        link.close();
        final int peer = link.peer();
        if (link.hasSaidGoodbye() || bootstrap.isClosing())
        {
            bootstrap.markGone(peer, "rank " + peer + " has closed");
        }
        else
        {
            final String reason = describe(peer) + " died: " + detail;
            if (bootstrap.markGone(peer, reason))
            {
                if (rank == 0)
                {
                    // the others hear of it before this process does: told first, it might close (a goodbye
                    // the others take for a clean end) before the news left, and they would wait out the deadline
                    bootstrap.broadcast(RANK_DIED, encode(
                        (out) ->
                        {
                            out.writeInt(peer);
                            out.writeUTF(reason);
                        }), peer);
                }
                if (!bootstrap.isClosing())
                {
                    report(new JcclRemoteException(reason, cause));
                }
            }
        }
        link.finished();
        bootstrap.signal();
    }

    /** @return whether the rank was newly marked dead. */
    private boolean peerDied(final int peer, final String reason, final Throwable cause)
    {
        if (!bootstrap.markGone(peer, reason))
        {
            return false;
        }
        if (!bootstrap.isClosing())
        {
            report(new JcclRemoteException(reason, cause));
        }
        return true;
    }

    private void report(final JcclException failure)
    {
        final Consumer<JcclException> listener;
        synchronized (failureMonitor)
        {
            failures.add(failure);
            listener = failureListener;
        }
        LOGGER.warn("jccl bootstrap: rank {}: {}", rank, failure.getMessage());
        if (listener != null)
        {
            deliver(listener, failure);
        }
    }

    private void deliver(final Consumer<JcclException> listener, final JcclException failure)
    {
        try
        {
            listener.accept(failure);
        }
        catch (final RuntimeException ex)
        {
            LOGGER.error("jccl bootstrap: rank {}: the peer failure listener threw", rank, ex);
        }
    }

    private String describe(final int peer)
    {
        final PeerInfo info = peers.get(peer);
        return "rank " + peer + " (" + info.hostname() + " pid " + info.pid() + ")";
    }
}
