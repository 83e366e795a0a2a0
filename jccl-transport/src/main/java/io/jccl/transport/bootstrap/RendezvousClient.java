package io.jccl.transport.bootstrap;

import io.jccl.JcclAbortedException;
import io.jccl.JcclRemoteException;
import io.jccl.JcclTimeoutException;
import io.jccl.UniqueId;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.jccl.transport.bootstrap.BootstrapProtocol.ABORT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.MAGIC;
import static io.jccl.transport.bootstrap.BootstrapProtocol.MAX_FRAME_FROM_ROOT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.REJECT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.TABLE;
import static io.jccl.transport.bootstrap.BootstrapProtocol.VERSION;
import static io.jccl.transport.bootstrap.BootstrapProtocol.WELCOME;
import static io.jccl.transport.bootstrap.BootstrapProtocol.encode;
import static io.jccl.transport.bootstrap.BootstrapProtocol.typeName;

/**
 * A peer's side of the rendezvous, on the caller's thread: connect to rank 0, retrying with backoff until the
 * deadline (rank 0 may start last), present the hello, and wait for the welcome and then the table.
 */
final class RendezvousClient
{
    /** What the rendezvous produced. */
    record Result(BootstrapLink root, List<PeerInfo> peers)
    {
    }

    private static final long FIRST_BACKOFF_NS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_BACKOFF_NS = TimeUnit.MILLISECONDS.toNanos(500);

    private final UniqueId id;
    private final int rank;
    private final int size;
    private final PeerInfo self;
    private final long timeoutMs;
    private final BootstrapListener listener;
    private boolean welcomed;
    private String lastFailure = "no attempt yet";
    private boolean droppedBeforeAdmission;

    private RendezvousClient(
        final UniqueId id,
        final int rank,
        final int size,
        final PeerInfo self,
        final long timeoutMs,
        final BootstrapListener listener)
    {
        this.id = id;
        this.rank = rank;
        this.size = size;
        this.self = self;
        this.timeoutMs = timeoutMs;
        this.listener = listener;
    }

    /**
     * @param id        the rendezvous address and secret.
     * @param rank      this rank, 1..size-1.
     * @param size      the number of ranks.
     * @param self      this rank's info.
     * @param timeoutMs how long to try.
     * @param listener  told of each failed attempt.
     * @return the link to rank 0 and the table.
     * @throws JcclTimeoutException if the table has not come by the deadline.
     * @throws JcclRemoteException  if rank 0 refused this rank, gave up, or closed after welcoming it.
     * @throws JcclAbortedException if the thread is interrupted.
     */
    static Result run(
        final UniqueId id,
        final int rank,
        final int size,
        final PeerInfo self,
        final long timeoutMs,
        final BootstrapListener listener)
    {
        return new RendezvousClient(id, rank, size, self, timeoutMs, listener).run();
    }

    private Result run()
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        final byte[] hello = hello();
        long backoffNs = FIRST_BACKOFF_NS;
        while (true)
        {
            checkInterrupt();
            final Result result = attempt(hello, deadlineNs);
            if (result != null)
            {
                return result;
            }
            listener.attemptFailed(rank, lastFailure);
            final long remainingNs = deadlineNs - System.nanoTime();
            if (remainingNs <= 0)
            {
                throw timeout();
            }
            LockSupport.parkNanos(Math.min(backoffNs, remainingNs));
            backoffNs = Math.min(backoffNs * 2, MAX_BACKOFF_NS);
            if (deadlineNs - System.nanoTime() <= 0)
            {
                throw timeout();
            }
        }
    }

    /** @return the result, or null to try again after {@link #lastFailure}. */
    private Result attempt(final byte[] hello, final long deadlineNs)
    {
        SocketChannel channel = null;
        boolean keep = false;
        try (Selector selector = Selector.open())
        {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            if (!connect(channel, selector, deadlineNs))
            {
                return null;
            }
            final BootstrapLink link = new BootstrapLink(0, channel, MAX_FRAME_FROM_ROOT);
            BootstrapLink.writeFully(channel, ByteBuffer.wrap(hello), deadlineNs);
            final SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
            while (true)
            {
                final BootstrapLink.Frame frame = link.readFrame();
                if (frame == null)
                {
                    checkInterrupt();
                    final long remainingNs = deadlineNs - System.nanoTime();
                    if (remainingNs <= 0)
                    {
                        throw timeout();
                    }
                    selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNs) + 1));
                    selector.selectedKeys().clear();
                    continue;
                }
                if (frame.type() == WELCOME)
                {
                    welcomed = true;
                }
                else if (frame.type() == TABLE)
                {
                    final List<PeerInfo> peers = readTable(frame.payload());
                    key.cancel();
                    keep = true;
                    return new Result(link, peers);
                }
                else if (frame.type() == REJECT)
                {
                    throw new JcclRemoteException("rank " + rank + " of " + size + ": rank 0 at " + endpoint() +
                        " refused it: " + BootstrapProtocol.decode(frame.payload()).readUTF());
                }
                else if (frame.type() == ABORT)
                {
                    final DataInputStream in = BootstrapProtocol.decode(frame.payload());
                    final boolean timedOut = in.readBoolean();
                    final String message = "rank " + rank + " of " + size + ": rank 0 gave up: " + in.readUTF();
                    throw timedOut ? new JcclTimeoutException(message) : new JcclRemoteException(message);
                }
                else
                {
                    throw new JcclRemoteException("rank " + rank + " of " + size + ": rank 0 at " + endpoint() +
                        " sent " + typeName(frame.type()) + " during the rendezvous");
                }
            }
        }
        catch (final IOException | UnresolvedAddressException ex)
        {
            if (welcomed)
            {
                throw new JcclRemoteException("rank " + rank + " of " + size + ": rank 0 at " + endpoint() +
                    " closed the connection during the rendezvous, after admitting this rank: " + ex, ex);
            }
            if (channel != null && channel.isConnected())
            {
                droppedBeforeAdmission = true;
                lastFailure = "rank 0 at " + endpoint() + " closed the connection before admitting this rank";
            }
            else
            {
                lastFailure = "cannot reach " + endpoint() + ": " + ex;
            }
            return null;
        }
        finally
        {
            if (!keep && channel != null)
            {
                try
                {
                    channel.close();
                }
                catch (final IOException ex)
                {
                    // nothing left to release
                }
            }
        }
    }

    private boolean connect(final SocketChannel channel, final Selector selector, final long deadlineNs)
        throws IOException
    {
        if (channel.connect(new InetSocketAddress(id.host(), id.port())))
        {
            return true;
        }
        final SelectionKey key = channel.register(selector, SelectionKey.OP_CONNECT);
        while (!channel.finishConnect())
        {
            checkInterrupt();
            final long remainingNs = deadlineNs - System.nanoTime();
            if (remainingNs <= 0)
            {
                lastFailure = "cannot reach " + endpoint() + ": connecting timed out";
                return false;
            }
            selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remainingNs) + 1));
            selector.selectedKeys().clear();
        }
        key.interestOps(0);
        return true;
    }

    private List<PeerInfo> readTable(final byte[] payload) throws IOException
    {
        final DataInputStream in = BootstrapProtocol.decode(payload);
        final int count = in.readInt();
        if (count != size)
        {
            throw new JcclRemoteException("rank " + rank + ": rank 0 sent a table of " + count + " ranks, not " + size);
        }
        final List<PeerInfo> peers = new ArrayList<>(size);
        for (int r = 0; r < size; r++)
        {
            final int length = in.readInt();
            final byte[] bytes = new byte[length];
            in.readFully(bytes);
            final PeerInfo peer = PeerInfo.readFrom(BootstrapProtocol.decode(bytes));
            if (peer.rank() != r)
            {
                throw new JcclRemoteException("rank " + rank + ": rank 0's table holds rank " + peer.rank() +
                    " at index " + r);
            }
            peers.add(peer);
        }
        if (!peers.get(rank).equals(self))
        {
            throw new JcclRemoteException("rank " + rank + ": rank 0's table holds " + peers.get(rank) +
                " for this rank, which is " + self);
        }
        return List.copyOf(peers);
    }

    private byte[] hello()
    {
        final byte[] info = encode(self::writeTo);
        final byte[] secret = id.secret();
        return encode(
            (out) ->
            {
                out.writeInt(MAGIC);
                out.writeInt(VERSION);
                out.write(secret);
                out.writeInt(rank);
                out.writeInt(size);
                out.writeInt(info.length);
                out.write(info);
            });
    }

    private JcclTimeoutException timeout()
    {
        return new JcclTimeoutException(welcomed ?
            "rank " + rank + " of " + size + " timed out after " + timeoutMs + " ms waiting for rank 0 at " +
            endpoint() + " to hear from every rank" :
            "rank " + rank + " of " + size + " timed out after " + timeoutMs + " ms: rank 0 at " + endpoint() +
            " did not admit it (last: " + lastFailure + ")" + (droppedBeforeAdmission ?
            "; something listening there closed the connection before admitting this rank: a wrong secret or " +
            "protocol version?" : ""));
    }

    private void checkInterrupt()
    {
        if (Thread.currentThread().isInterrupted())
        {
            throw new JcclAbortedException("rank " + rank + " was interrupted during the rendezvous at " + endpoint());
        }
    }

    private String endpoint()
    {
        return id.host() + ":" + id.port();
    }
}
