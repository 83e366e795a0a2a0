package io.jccl.transport.bootstrap;

import io.jccl.JcclAbortedException;
import io.jccl.JcclException;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.JcclRemoteException;
import io.jccl.JcclSystemException;
import io.jccl.JcclTimeoutException;
import io.jccl.UniqueId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import static io.jccl.transport.bootstrap.BootstrapProtocol.ABORT_NOTICE_MS;
import static io.jccl.transport.bootstrap.BootstrapProtocol.CLOSE_LINGER_MS;
import static io.jccl.transport.bootstrap.BootstrapProtocol.FAILED;
import static io.jccl.transport.bootstrap.BootstrapProtocol.FAILED_ABORTED;
import static io.jccl.transport.bootstrap.BootstrapProtocol.FAILED_ERROR;
import static io.jccl.transport.bootstrap.BootstrapProtocol.FAILED_TIMEOUT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.GATHER;
import static io.jccl.transport.bootstrap.BootstrapProtocol.GATHERED;
import static io.jccl.transport.bootstrap.BootstrapProtocol.GATHER_FAILED;
import static io.jccl.transport.bootstrap.BootstrapProtocol.GOODBYE;
import static io.jccl.transport.bootstrap.BootstrapProtocol.MAX_FAILED_REASON;
import static io.jccl.transport.bootstrap.BootstrapProtocol.MAX_FRAME_FROM_ROOT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.NOTICE;
import static io.jccl.transport.bootstrap.BootstrapProtocol.encode;
import static io.jccl.transport.bootstrap.BootstrapProtocol.typeName;

/**
 * The rendezvous of a multi-process communicator and its control channel afterwards (NCCL's bootstrap network).
 * Ranks meet in a star through rank 0: rank 0 listens on the {@link UniqueId}'s port and admits only connections that
 * present the id's secret; every other rank connects to it, retrying until the deadline since rank 0 may start last.
 * Once every rank is in, each receives the table of all ranks' {@link PeerInfo}.
 * <p>
 * Afterwards one daemon thread per process watches the control connections (the package's {@code PeerWatch}, which
 * hands the all-gather and notice frames back to this class). A peer that vanishes without a goodbye (its process died,
 * its host went away) is reported to the consumer set with {@link #onPeerFailure(Consumer)}: rank 0 sees the end of
 * that rank's connection and tells the others; the others see the end of rank 0's. A {@link #close()} says goodbye
 * first, so it is never reported as a failure; an {@link #abort()} says that it aborted, reported as an abort, not a
 * death; a failure found on one rank (its timeout) reaches the others through {@link #announceFailure(JcclException)},
 * so every rank fails with the first cause. What the watch thread shares with the callers (the contributions and
 * answers that arrived, who is gone and why) is kept under one lock, whose condition wakes the waiting all-gathers and
 * close.
 * <p>
 * {@link #allGather(byte[])} and {@link #barrier()} go through rank 0 and wait at most the timeout given to
 * {@link #connect(UniqueId, int, int, PeerInfo, long)}; every rank must make the same sequence of these calls.
 * They may be called from any thread, one call at a time per instance.
 * <p>
 * Over 600 lines on purpose: one job, the control channel after the rendezvous (all-gather, notices, goodbye,
 * abort and failure notices), whose parts share the links, the closing flag, and the lock and condition that
 * {@link PeerWatch}'s deaths signal; the all-gather in a third class would share that lock across three files.
 */
public final class Bootstrap implements AutoCloseable
{
    /** The most bytes one rank may contribute to {@link #allGather(byte[])}. */
    public static final int MAX_GATHER_LENGTH = BootstrapProtocol.MAX_GATHER_LENGTH;

    private static final Logger LOGGER = LoggerFactory.getLogger("io.jccl");
    private static final byte[] EMPTY = new byte[0];

    /** A peer's contribution to an all-gather, as rank 0 received it. */
    private record Contribution(long sequence, byte[] data)
    {
    }

    /** How rank 0 ended an all-gather, as a peer received it: values, or a failure. */
    private record Outcome(long sequence, byte[][] values, String failure, boolean timedOut)
    {
    }

    private final int rank;
    private final int size;
    private final long timeoutMs;
    private final List<PeerInfo> peers;
    private final BootstrapLink[] links;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final List<ArrayDeque<Contribution>> contributions = new ArrayList<>();
    private final ArrayDeque<Outcome> outcomes = new ArrayDeque<>();
    private final String[] gone;
    private final PeerWatch watch;
    private final Object gatherMonitor = new Object();
    private final AtomicBoolean closeStarted = new AtomicBoolean();
    private long gatherSequence;
    private volatile Consumer<byte[]> noticeListener = notice -> { };
    private volatile boolean closing;
    private volatile boolean closed;

    private Bootstrap(
        final int rank, final int size, final long timeoutMs, final List<PeerInfo> peers, final BootstrapLink[] links)
    {
        this.rank = rank;
        this.size = size;
        this.timeoutMs = timeoutMs;
        this.peers = List.copyOf(peers);
        this.links = links;
        this.gone = new String[size];
        for (int r = 0; r < size; r++)
        {
            contributions.add(new ArrayDeque<>());
        }
        try
        {
            watch = new PeerWatch(this, links);
        }
        catch (final IOException ex)
        {
            closeLinks();
            throw new JcclSystemException("rank " + rank + ": cannot watch the bootstrap connections: " + ex, ex);
        }
        watch.start();
    }

    /**
     * Meets every other rank and exchanges peer info. Rank 0 listens on the id's port, bound to the id's host where
     * that is an address of this host, else to every interface; the others connect to it.
     *
     * @param id        the rendezvous address and secret; the same for every rank.
     * @param rank      this rank, 0..size-1.
     * @param size      the number of ranks, 1 or more; the same for every rank.
     * @param self      this rank's info, whose rank is {@code rank}.
     * @param timeoutMs how long to wait for every rank, and later for each {@link #allGather(byte[])}; positive.
     * @return the connected bootstrap.
     * @throws JcclInvalidArgumentException naming the bad argument.
     * @throws JcclTimeoutException         if some rank is missing at the deadline; rank 0 names every missing rank,
     *                                      the others name rank 0.
     * @throws JcclRemoteException          if rank 0 refused this rank (a duplicate rank, another size) or failed after
     *                                      admitting it.
     * @throws JcclSystemException          if rank 0 cannot listen on the port.
     * @throws JcclAbortedException         if the thread is interrupted.
     */
    public static Bootstrap connect(
        final UniqueId id, final int rank, final int size, final PeerInfo self, final long timeoutMs)
    {
        return connect(id, rank, size, self, timeoutMs, BootstrapListener.NONE);
    }

    static Bootstrap connect(
        final UniqueId id,
        final int rank,
        final int size,
        final PeerInfo self,
        final long timeoutMs,
        final BootstrapListener listener)
    {
        if (id == null)
        {
            throw new JcclInvalidArgumentException("id is null");
        }
        if (size < 1)
        {
            throw new JcclInvalidArgumentException("size=" + size + " must be at least 1");
        }
        if (rank < 0 || rank >= size)
        {
            throw new JcclInvalidArgumentException("rank=" + rank + " is outside 0.." + (size - 1));
        }
        if (self == null || self.rank() != rank)
        {
            throw new JcclInvalidArgumentException("self is null or not of rank=" + rank + ": " + self);
        }
        if (timeoutMs <= 0)
        {
            throw new JcclInvalidArgumentException("timeoutMs=" + timeoutMs + " must be positive");
        }
        final Bootstrap bootstrap;
        if (size == 1)
        {
            bootstrap = new Bootstrap(0, 1, timeoutMs, List.of(self), new BootstrapLink[1]);
        }
        else if (rank == 0)
        {
            final RendezvousServer.Result result = RendezvousServer.run(id, size, self, timeoutMs, listener);
            bootstrap = new Bootstrap(0, size, timeoutMs, result.peers(), result.links());
        }
        else
        {
            final RendezvousClient.Result result = RendezvousClient.run(id, rank, size, self, timeoutMs, listener);
            final BootstrapLink[] links = new BootstrapLink[size];
            links[0] = result.root();
            bootstrap = new Bootstrap(rank, size, timeoutMs, result.peers(), links);
        }
        LOGGER.debug("jccl bootstrap: rank {} of {} connected through {}:{}", rank, size, id.host(), id.port());
        return bootstrap;
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

    /** @return how long {@link #allGather(byte[])} and {@link #barrier()} wait, in milliseconds. */
    public long timeoutMs()
    {
        return timeoutMs;
    }

    /** @return every rank's info, indexed by rank; the same on every rank. Immutable. */
    public List<PeerInfo> peers()
    {
        return peers;
    }

    /**
     * Sets who hears of failed peers. It is called on the watch thread, once per dead rank (a
     * {@link JcclRemoteException} naming it), once per rank that aborted (a {@link JcclAbortedException} naming it)
     * and once per failure a rank announced ({@link #announceFailure(JcclException)}: the same kind of exception);
     * failures that happened before it was set are delivered at once, on the calling thread. It should return
     * quickly (fail the communicator, set a flag); it may call {@link #close()}.
     *
     * @param listener the consumer of failures; replaces any earlier one.
     * @throws JcclInvalidArgumentException if the listener is null.
     */
    public void onPeerFailure(final Consumer<JcclException> listener)
    {
        watch.onPeerFailure(listener);
    }

    /**
     * Gathers one byte array from every rank through rank 0 (used, for one, to check that every rank has the same
     * settings by comparing their hashes).
     *
     * @param mine this rank's contribution, at most {@link #MAX_GATHER_LENGTH} bytes; ranks may contribute different
     *             lengths.
     * @return every rank's contribution, indexed by rank.
     * @throws JcclInvalidArgumentException if {@code mine} is null or too long.
     * @throws JcclInvalidUsageException    if the bootstrap is closed.
     * @throws JcclTimeoutException         if the gather does not complete within the timeout; rank 0 names the
     *                                      missing ranks.
     * @throws JcclRemoteException          if a rank died or closed before it contributed, or the ranks disagree on
     *                                      the sequence of calls.
     * @throws JcclAbortedException         if the thread is interrupted.
     */
    public byte[][] allGather(final byte[] mine)
    {
        if (mine == null || mine.length > MAX_GATHER_LENGTH)
        {
            throw new JcclInvalidArgumentException("mine is null or longer than " + MAX_GATHER_LENGTH + " bytes");
        }
        synchronized (gatherMonitor)
        {
            if (closeStarted.get())
            {
                throw new JcclInvalidUsageException("rank " + rank + ": allGather on a closed bootstrap");
            }
            final long sequence = ++gatherSequence;
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            if (size == 1)
            {
                return new byte[][]{ mine.clone() };
            }
            return rank == 0 ? gatherAtRoot(sequence, mine.clone(), deadlineNs) :
                gatherAtPeer(sequence, mine, deadlineNs);
        }
    }

    /**
     * Returns once every rank has called it, within the timeout.
     *
     * @throws JcclInvalidUsageException if the bootstrap is closed.
     * @throws JcclTimeoutException      if some rank does not arrive within the timeout; rank 0 names it.
     * @throws JcclRemoteException       if a rank died or closed before it arrived.
     * @throws JcclAbortedException      if the thread is interrupted.
     */
    public void barrier()
    {
        allGather(EMPTY);
    }

    /**
     * Says goodbye to the peers (rank 0 to every rank, the others to rank 0), waits briefly for them to acknowledge
     * and closes the connections. Peers do not report a closed rank as failed, though a later all-gather that needs
     * it fails. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closeStarted.compareAndSet(false, true))
        {
            return;
        }
        closing = true;
        signal();
        final boolean onWatcher = watch.onWatchThread();
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(timeoutMs, CLOSE_LINGER_MS));
        for (final BootstrapLink link : links)
        {
            if (link != null && !link.isFinished())
            {
                try
                {
                    link.send(GOODBYE, EMPTY, deadlineNs);
                }
                catch (final IOException ex)
                {
                    // it is gone already
                }
                link.shutdownOutput();
            }
        }
        if (!onWatcher)
        {
            awaitLinksFinished(deadlineNs);
        }
        stop(onWatcher);
    }

    /**
     * Tells every peer, through rank 0, that this rank's communicator failed here, so that theirs fail at once with
     * the same cause rather than each waiting out its own deadline: their failure listener gets an exception of the
     * same kind (a {@link JcclTimeoutException} stays one) carrying this error's message, which names this rank.
     * Quiet: a peer that cannot take it is dying, which the others hear of anyway.
     *
     * @param error the failure, found on this rank (never one that a peer reported: that would echo).
     * @throws JcclInvalidArgumentException if the error is null.
     */
    public void announceFailure(final JcclException error)
    {
        if (error == null)
        {
            throw new JcclInvalidArgumentException("error is null");
        }
        final byte kind = error instanceof JcclAbortedException ? FAILED_ABORTED :
            error instanceof JcclTimeoutException ? FAILED_TIMEOUT : FAILED_ERROR;
        announce(kind, String.valueOf(error.getMessage()), timeoutMs);
    }

    /**
     * Tells the peers that this rank aborted, then leaves at once without a goodbye: every peer's failure listener
     * gets a {@link JcclAbortedException} naming this rank (within rank 0's relay, milliseconds), and never takes
     * the closed connection for a death. Used by {@code abort()}.
     */
    public void abort()
    {
        announce(FAILED_ABORTED, "rank " + rank + " aborted", Math.min(timeoutMs, ABORT_NOTICE_MS));
        crashForTest();
    }

    private void announce(final byte kind, final String reason, final long waitMs)
    {
        if (size == 1 || closeStarted.get())
        {
            return;
        }
        final String cut = reason.length() > MAX_FAILED_REASON ? reason.substring(0, MAX_FAILED_REASON) + "..." :
            reason;
        broadcast(FAILED, encode(
            (out) ->
            {
                out.writeInt(rank);
                out.writeByte(kind);
                out.writeUTF(cut);
            }), -1, waitMs);
    }

    /** Ends like a crashed process: closes every connection at once, without a goodbye. */
    void crashForTest()
    {
        closeStarted.set(true);
        closing = true;
        stop(watch.onWatchThread());
    }

    private byte[][] gatherAtRoot(final long sequence, final byte[] mine, final long deadlineNs)
    {
        final byte[][] values = new byte[size][];
        values[0] = mine;
        String failure = null;
        boolean timedOut = false;
        lock.lock();
        try
        {
            while (true)
            {
                final List<Integer> missing = new ArrayList<>();
                failure = collect(sequence, values, missing);
                if (failure != null || missing.isEmpty())
                {
                    break;
                }
                final long remainingNs = deadlineNs - System.nanoTime();
                if (remainingNs <= 0)
                {
                    timedOut = true;
                    failure = "rank 0 timed out after " + timeoutMs + " ms in allGather #" + sequence +
                        " waiting for ranks " + missing;
                    break;
                }
                try
                {
                    changed.awaitNanos(remainingNs);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    failure = "rank 0 was interrupted in allGather #" + sequence;
                    break;
                }
            }
        }
        finally
        {
            lock.unlock();
        }
        long length = 8 + 4;
        for (final byte[] value : values)
        {
            length += 4 + (value == null ? 0 : value.length);
        }
        if (failure == null && length >= MAX_FRAME_FROM_ROOT)
        {
            failure = "allGather #" + sequence + " gathered " + length + " bytes, more than " + MAX_FRAME_FROM_ROOT;
        }
        if (failure != null)
        {
            final String reason = failure;
            final boolean timeout = timedOut;
            broadcast(GATHER_FAILED, encode(
                (out) ->
                {
                    out.writeLong(sequence);
                    out.writeBoolean(timeout);
                    out.writeUTF(reason);
                }), -1);
            if (Thread.currentThread().isInterrupted())
            {
                throw new JcclAbortedException(failure);
            }
            throw timedOut ? new JcclTimeoutException(failure) : new JcclRemoteException(failure);
        }
        broadcast(GATHERED, encode(
            (out) ->
            {
                out.writeLong(sequence);
                out.writeInt(size);
                for (final byte[] value : values)
                {
                    out.writeInt(value.length);
                    out.write(value);
                }
            }), -1);
        final byte[][] result = new byte[size][];
        for (int r = 0; r < size; r++)
        {
            result[r] = values[r].clone();
        }
        return result;
    }

    /** Takes what has arrived for this all-gather, under the lock; fills {@code missing}; returns a failure. */
    private String collect(final long sequence, final byte[][] values, final List<Integer> missing)
    {
        for (int r = 1; r < size; r++)
        {
            if (values[r] != null)
            {
                continue;
            }
            final Contribution contribution = contributions.get(r).poll();
            if (contribution != null)
            {
                if (contribution.sequence() != sequence)
                {
                    return "rank " + r + " contributed to allGather #" + contribution.sequence() + " while rank 0 " +
                        "was in allGather #" + sequence + ": the ranks disagree on the sequence of calls";
                }
                values[r] = contribution.data();
            }
            else if (gone[r] != null)
            {
                return "allGather #" + sequence + " cannot complete: " + gone[r];
            }
            else
            {
                missing.add(r);
            }
        }
        return closing ? "rank 0 is closing" : null;
    }

    private byte[][] gatherAtPeer(final long sequence, final byte[] mine, final long deadlineNs)
    {
        try
        {
            links[0].send(GATHER, encode(
                (out) ->
                {
                    out.writeLong(sequence);
                    out.write(mine);
                }), deadlineNs);
        }
        catch (final IOException ex)
        {
            final String reason = goneReason(0);
            throw new JcclRemoteException("rank " + rank + " cannot send allGather #" + sequence + " to rank 0: " +
                (reason != null ? reason : ex.toString()), ex);
        }
        lock.lock();
        try
        {
            while (true)
            {
                Outcome outcome;
                while ((outcome = outcomes.poll()) != null)
                {
                    if (outcome.sequence() < sequence)
                    {
                        continue;
                    }
                    if (outcome.sequence() > sequence)
                    {
                        throw new JcclRemoteException("rank " + rank + " is in allGather #" + sequence +
                            " but rank 0 answered allGather #" + outcome.sequence());
                    }
                    if (outcome.failure() != null)
                    {
                        final String message = "rank " + rank + " in allGather #" + sequence + ": " + outcome.failure();
                        throw outcome.timedOut() ? new JcclTimeoutException(message) :
                            new JcclRemoteException(message);
                    }
                    return outcome.values();
                }
                if (gone[0] != null)
                {
                    throw new JcclRemoteException("rank " + rank + " in allGather #" + sequence + ": " + gone[0]);
                }
                if (closing)
                {
                    throw new JcclInvalidUsageException("rank " + rank + " in allGather #" + sequence +
                        ": the bootstrap was closed");
                }
                final long remainingNs = deadlineNs - System.nanoTime();
                if (remainingNs <= 0)
                {
                    throw new JcclTimeoutException("rank " + rank + " timed out after " + timeoutMs +
                        " ms in allGather #" + sequence + " waiting for rank 0, which gathers from every rank");
                }
                try
                {
                    changed.awaitNanos(remainingNs);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new JcclAbortedException("rank " + rank + " was interrupted in allGather #" + sequence);
                }
            }
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Takes an all-gather or notice frame on the watch thread ({@link PeerWatch} takes the others): rank 0 takes the
     * peers' contributions, the other ranks take rank 0's answers and notices.
     *
     * @param peer the rank that sent it.
     * @param type its type.
     * @param in   its payload.
     * @throws IOException if the payload is short, or this rank does not expect the type.
     */
    void onMessage(final int peer, final int type, final DataInputStream in) throws IOException
    {
        if (rank == 0)
        {
            if (type != GATHER)
            {
                throw new IOException("unexpected " + typeName(type));
            }
            final Contribution contribution = new Contribution(in.readLong(), in.readAllBytes());
            lock.lock();
            try
            {
                contributions.get(peer).add(contribution);
                changed.signalAll();
            }
            finally
            {
                lock.unlock();
            }
            return;
        }
        switch (type)
        {
            case GATHERED ->
            {
                final long sequence = in.readLong();
                final int count = in.readInt();
                if (count != size)
                {
                    throw new IOException(count + " values for " + size + " ranks");
                }
                final byte[][] values = new byte[count][];
                for (int r = 0; r < count; r++)
                {
                    values[r] = new byte[in.readInt()];
                    in.readFully(values[r]);
                }
                addOutcome(new Outcome(sequence, values, null, false));
            }
            case GATHER_FAILED ->
            {
                final long sequence = in.readLong();
                final boolean timedOut = in.readBoolean();
                addOutcome(new Outcome(sequence, null, in.readUTF(), timedOut));
            }
            case NOTICE ->
            {
                final byte[] notice = in.readAllBytes();
                try
                {
                    noticeListener.accept(notice);
                }
                catch (final RuntimeException ex)
                {
                    LOGGER.error("jccl bootstrap: rank {}: the notice listener threw", rank, ex);
                }
            }
            default -> throw new IOException("unexpected " + typeName(type));
        }
    }

    /**
     * Marks a rank gone, closed or dead, and wakes the waiting all-gathers and close; the first reason stays.
     *
     * @param peer   the rank.
     * @param reason why it is gone, for the all-gathers that need it.
     * @return whether the rank was newly marked gone.
     */
    boolean markGone(final int peer, final String reason)
    {
        lock.lock();
        try
        {
            if (gone[peer] != null)
            {
                return false;
            }
            gone[peer] = reason;
            changed.signalAll();
            return true;
        }
        finally
        {
            lock.unlock();
        }
    }

    private String goneReason(final int peer)
    {
        lock.lock();
        try
        {
            return gone[peer];
        }
        finally
        {
            lock.unlock();
        }
    }

    private void addOutcome(final Outcome outcome)
    {
        lock.lock();
        try
        {
            outcomes.add(outcome);
            changed.signalAll();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** Wakes the waiting all-gathers and close, to look again at what they wait for. */
    void signal()
    {
        lock.lock();
        try
        {
            changed.signalAll();
        }
        finally
        {
            lock.unlock();
        }
    }

    /**
     * Rank 0 sends a notice to every other rank, in order after its earlier notices; their
     * {@link #onNotice(Consumer)} listener gets it on the bootstrap's thread. A rank that cannot take it is dying,
     * which its peers hear of anyway.
     *
     * @param notice the bytes, at most 1 MiB.
     * @throws IllegalStateException on a rank other than 0.
     */
    public void notifyPeers(final byte[] notice)
    {
        if (rank != 0)
        {
            throw new IllegalStateException("only rank 0 sends notices; this is rank " + rank);
        }
        broadcast(NOTICE, notice, -1);
    }

    /** @param listener gets rank 0's notices, in order, on the bootstrap's thread (ranks other than 0). */
    public void onNotice(final Consumer<byte[]> listener)
    {
        this.noticeListener = listener;
    }

    /** @return whether {@link #close()} or {@link #abort()} has begun. */
    boolean isClosing()
    {
        return closing;
    }

    /**
     * Sends a frame to every peer still connected but one; a peer that cannot take it is dying anyway.
     *
     * @param type    the frame's type.
     * @param payload the frame's payload.
     * @param except  the rank not to send it to, or -1.
     */
    void broadcast(final int type, final byte[] payload, final int except)
    {
        broadcast(type, payload, except, timeoutMs);
    }

    private void broadcast(final int type, final byte[] payload, final int except, final long waitMs)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        for (final BootstrapLink link : links)
        {
            if (link != null && link.peer() != except && !link.isFinished())
            {
                try
                {
                    link.send(type, payload, deadlineNs);
                }
                catch (final IOException ex)
                {
                    LOGGER.debug("jccl bootstrap: rank {} could not send {} to rank {}: {}",
                        rank, typeName(type), link.peer(), ex.toString());
                }
            }
        }
    }

    private void awaitLinksFinished(final long deadlineNs)
    {
        lock.lock();
        try
        {
            while (!allLinksFinished())
            {
                final long remainingNs = deadlineNs - System.nanoTime();
                if (remainingNs <= 0)
                {
                    break;
                }
                changed.awaitNanos(remainingNs);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            lock.unlock();
        }
    }

    private boolean allLinksFinished()
    {
        for (final BootstrapLink link : links)
        {
            if (link != null && !link.isFinished())
            {
                return false;
            }
        }
        return true;
    }

    private void stop(final boolean onWatcher)
    {
        watch.stop(onWatcher);
        closeLinks();
        watch.closeSelector();
        closed = true;
        signal();
    }

    private void closeLinks()
    {
        for (final BootstrapLink link : links)
        {
            if (link != null)
            {
                link.close();
            }
        }
    }

    @Override
    public String toString()
    {
        return "Bootstrap[rank=" + rank + ", size=" + size + ", closed=" + closed + "]";
    }
}
