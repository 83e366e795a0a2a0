package io.jccl.transport.bootstrap;

import io.jccl.JcclAbortedException;
import io.jccl.JcclSystemException;
import io.jccl.JcclTimeoutException;
import io.jccl.UniqueId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.jccl.transport.bootstrap.BootstrapProtocol.ABORT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.HELLO_HEADER_LENGTH;
import static io.jccl.transport.bootstrap.BootstrapProtocol.HELLO_TIMEOUT_MS;
import static io.jccl.transport.bootstrap.BootstrapProtocol.MAGIC;
import static io.jccl.transport.bootstrap.BootstrapProtocol.MAX_FRAME_TO_ROOT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.REJECT;
import static io.jccl.transport.bootstrap.BootstrapProtocol.TABLE;
import static io.jccl.transport.bootstrap.BootstrapProtocol.VERSION;
import static io.jccl.transport.bootstrap.BootstrapProtocol.WELCOME;
import static io.jccl.transport.bootstrap.BootstrapProtocol.encode;
import static io.jccl.transport.bootstrap.BootstrapProtocol.typeName;

/**
 * Rank 0's side of the rendezvous, on the caller's thread: listen on the id's port, admit each rank that presents
 * the magic, the version and the secret within {@link BootstrapProtocol#HELLO_TIMEOUT_MS}, drop everything else
 * (logged) and keep listening, then send every rank the table. One selector serves the listening socket, the
 * strangers and the admitted ranks, so a silent or slow stranger holds up nobody.
 * <p>
 * About 600 lines on purpose: one job, the server side of the rendezvous; most of it is refusing hostile or broken
 * input, each case with its own message, on the one selector.
 */
final class RendezvousServer
{
    /** What the rendezvous produced. */
    record Result(BootstrapLink[] links, List<PeerInfo> peers)
    {
    }

    private static final Logger LOGGER = LoggerFactory.getLogger("io.jccl");
    private static final int BACKLOG = 256;

    private final UniqueId id;
    private final byte[] secret;
    private final int size;
    private final long timeoutMs;
    private final BootstrapListener listener;
    private final PeerInfo[] infos;
    private final BootstrapLink[] links;
    private final List<HelloReader> pending = new ArrayList<>();
    private int accepted;

    private RendezvousServer(
        final UniqueId id, final int size, final long timeoutMs, final BootstrapListener listener)
    {
        this.id = id;
        this.secret = id.secret();
        this.size = size;
        this.timeoutMs = timeoutMs;
        this.listener = listener;
        this.infos = new PeerInfo[size];
        this.links = new BootstrapLink[size];
    }

    /**
     * @param id        the rendezvous address and secret.
     * @param size      the number of ranks, 2 or more.
     * @param self      rank 0's own info.
     * @param timeoutMs how long to wait for every rank.
     * @param listener  told of each admitted rank.
     * @return a link per peer (none at index 0) and the table.
     * @throws JcclTimeoutException if some rank is missing at the deadline, naming it.
     * @throws JcclSystemException  if the port cannot be bound or the selector fails.
     * @throws JcclAbortedException if the thread is interrupted.
     */
    static Result run(
        final UniqueId id, final int size, final PeerInfo self, final long timeoutMs, final BootstrapListener listener)
    {
        return new RendezvousServer(id, size, timeoutMs, listener).run(self);
    }

    /**
     * @param id the rendezvous address.
     * @return the id's address where it is one of this host's, else the wildcard address, with the id's port.
     */
    static InetSocketAddress bindAddress(final UniqueId id)
    {
        try
        {
            final InetAddress address = InetAddress.getByName(id.host());
            if (address.isAnyLocalAddress() || address.isLoopbackAddress() ||
                NetworkInterface.getByInetAddress(address) != null)
            {
                return new InetSocketAddress(address, id.port());
            }
            LOGGER.info("jccl bootstrap: {} ({}) is not an address of this host; rank 0 listens on every interface",
                id.host(), address.getHostAddress());
        }
        catch (final IOException ex)
        {
            LOGGER.info("jccl bootstrap: cannot resolve {} ({}); rank 0 listens on every interface", id.host(), ex);
        }
        return new InetSocketAddress(id.port());
    }

    private Result run(final PeerInfo self)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        final InetSocketAddress address = bindAddress(id);
        boolean complete = false;
        try (ServerSocketChannel server = ServerSocketChannel.open(); Selector selector = Selector.open())
        {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            try
            {
                server.bind(address, BACKLOG);
            }
            catch (final IOException ex)
            {
                throw new JcclSystemException("rank 0 cannot listen on " + address + " (uniqueId port " + id.port() +
                    "): " + ex.getMessage(), ex);
            }
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
            while (accepted < size - 1)
            {
                step(server, selector, deadlineNs);
            }
            complete = true;
        }
        catch (final IOException ex)
        {
            throw new JcclSystemException("rank 0: the rendezvous at " + address + " failed: " + ex, ex);
        }
        finally
        {
            dropAllPending(complete ? "the rendezvous is complete" : "the rendezvous failed");
            if (!complete)
            {
                closeLinks();
            }
        }
        infos[0] = self;
        final List<PeerInfo> peers = List.of(infos);
        sendTable(peers);
        return new Result(links, peers);
    }

    private void step(final ServerSocketChannel server, final Selector selector, final long deadlineNs)
        throws IOException
    {
        if (Thread.currentThread().isInterrupted())
        {
            abortPeers(false, "rank 0 was interrupted during the rendezvous");
            throw new JcclAbortedException("rank 0 was interrupted during the rendezvous at " + endpoint());
        }
        final long nowNs = System.nanoTime();
        expirePending(nowNs);
        if (nowNs - deadlineNs >= 0)
        {
            final String message = "rank 0 timed out after " + timeoutMs + " ms at " + endpoint() +
                " waiting for ranks " + missingRanks() + " of " + size + " (connected: " + connectedRanks() + ")";
            abortPeers(true, message);
            throw new JcclTimeoutException(message);
        }
        long waitNs = deadlineNs - nowNs;
        for (final HelloReader reader : pending)
        {
            waitNs = Math.min(waitNs, reader.deadlineNs - nowNs);
        }
        selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNs) + 1));
        final Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
        while (keys.hasNext())
        {
            final SelectionKey key = keys.next();
            keys.remove();
            if (!key.isValid())
            {
                continue;
            }
            if (key.isAcceptable())
            {
                acceptOne(server, selector);
            }
            else if (key.attachment() instanceof HelloReader reader)
            {
                readHello(reader);
            }
            else if (key.attachment() instanceof BootstrapLink link)
            {
                readAdmitted(link, key);
            }
        }
    }

    private void acceptOne(final ServerSocketChannel server, final Selector selector)
    {
        SocketChannel channel = null;
        try
        {
            channel = server.accept();
            if (channel != null)
            {
                channel.configureBlocking(false);
                final HelloReader reader = new HelloReader(
                    channel, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HELLO_TIMEOUT_MS));
                reader.key = channel.register(selector, SelectionKey.OP_READ, reader);
                pending.add(reader);
            }
        }
        catch (final IOException ex)
        {
            // one connection's trouble (reset at once, out of descriptors) must not end the rendezvous
            LOGGER.warn("jccl bootstrap: rank 0 at {} could not accept a connection: {}", endpoint(), ex.toString());
            if (channel != null)
            {
                try
                {
                    channel.close();
                }
                catch (final IOException closeEx)
                {
                    // nothing left to release
                }
            }
        }
    }

    private void readHello(final HelloReader reader)
    {
        try
        {
            final PeerInfo info = reader.read();
            if (info != null)
            {
                admit(reader, info);
            }
        }
        catch (final Rejected ex)
        {
            drop(reader, ex.getMessage(), ex.tell);
        }
        catch (final IOException ex)
        {
            drop(reader, "it closed or failed before a complete hello (" + ex.getMessage() + ")", false);
        }
    }

    private void admit(final HelloReader reader, final PeerInfo info) throws IOException
    {
        final int rank = info.rank();
        if (links[rank] != null)
        {
            drop(reader, duplicate(rank), true);
            return;
        }
        pending.remove(reader);
        final BootstrapLink link = new BootstrapLink(rank, reader.channel, MAX_FRAME_TO_ROOT);
        reader.key.attach(link);
        links[rank] = link;
        infos[rank] = info;
        accepted++;
        try
        {
            link.send(WELCOME, new byte[0], System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HELLO_TIMEOUT_MS));
        }
        catch (final IOException ex)
        {
            release(link, reader.key, "it failed before its welcome: " + ex.getMessage());
            return;
        }
        LOGGER.debug("jccl bootstrap: rank 0 admitted rank {} ({} pid {}) from {}",
            rank, info.hostname(), info.pid(), reader.remote);
        listener.accepted(rank);
    }

    private void readAdmitted(final BootstrapLink link, final SelectionKey key)
    {
        try
        {
            final BootstrapLink.Frame frame = link.readFrame();
            if (frame != null)
            {
                release(link, key, "it sent " + typeName(frame.type()) + " before the table");
            }
        }
        catch (final IOException ex)
        {
            release(link, key, "its connection ended (" + ex.getMessage() + ")");
        }
    }

    private void release(final BootstrapLink link, final SelectionKey key, final String reason)
    {
        final int rank = link.peer();
        LOGGER.warn("jccl bootstrap: rank 0 lost rank {} during the rendezvous: {}; waiting for rank {} again",
            rank, reason, rank);
        key.cancel();
        link.close();
        links[rank] = null;
        infos[rank] = null;
        accepted--;
    }

    private void expirePending(final long nowNs)
    {
        for (final HelloReader reader : new ArrayList<>(pending))
        {
            if (nowNs - reader.deadlineNs >= 0)
            {
                drop(reader, "no valid hello within " + HELLO_TIMEOUT_MS + " ms", false);
            }
        }
    }

    private void drop(final HelloReader reader, final String reason, final boolean tell)
    {
        LOGGER.warn("jccl bootstrap: rank 0 at {} dropped a connection from {}: {}", endpoint(), reader.remote, reason);
        if (tell)
        {
            try
            {
                final ByteBuffer frame = BootstrapLink.frame(REJECT, encode((out) -> out.writeUTF(reason)));
                BootstrapLink.writeFully(
                    reader.channel, frame, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HELLO_TIMEOUT_MS));
            }
            catch (final IOException ex)
            {
                // it hears of the refusal by the close instead
            }
        }
        pending.remove(reader);
        reader.key.cancel();
        try
        {
            reader.channel.close();
        }
        catch (final IOException ex)
        {
            // nothing left to release
        }
    }

    private void dropAllPending(final String reason)
    {
        for (final HelloReader reader : new ArrayList<>(pending))
        {
            drop(reader, reason, false);
        }
    }

    private void abortPeers(final boolean timedOut, final String message)
    {
        final byte[] payload = encode(
            (out) ->
            {
                out.writeBoolean(timedOut);
                out.writeUTF(message);
            });
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HELLO_TIMEOUT_MS);
        for (final BootstrapLink link : links)
        {
            if (link != null)
            {
                try
                {
                    link.send(ABORT, payload, deadlineNs);
                }
                catch (final IOException ex)
                {
                    // it hears of the failure by the close instead
                }
            }
        }
    }

    private void sendTable(final List<PeerInfo> peers)
    {
        final byte[] table = encode(
            (out) ->
            {
                out.writeInt(peers.size());
                for (final PeerInfo peer : peers)
                {
                    final byte[] bytes = encode(peer::writeTo);
                    out.writeInt(bytes.length);
                    out.write(bytes);
                }
            });
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (final BootstrapLink link : links)
        {
            if (link != null)
            {
                try
                {
                    link.send(TABLE, table, deadlineNs);
                }
                catch (final IOException ex)
                {
                    // the watch sees this link's end and reports the rank
                    LOGGER.warn("jccl bootstrap: rank 0 could not send the table to rank {}: {}", link.peer(), ex);
                }
            }
        }
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

    private String duplicate(final int rank)
    {
        return "rank " + rank + " is already connected (" + infos[rank].hostname() + " pid " + infos[rank].pid() + ")";
    }

    private List<Integer> missingRanks()
    {
        final List<Integer> missing = new ArrayList<>();
        for (int rank = 1; rank < size; rank++)
        {
            if (links[rank] == null)
            {
                missing.add(rank);
            }
        }
        return missing;
    }

    private List<Integer> connectedRanks()
    {
        final List<Integer> connected = new ArrayList<>();
        for (int rank = 1; rank < size; rank++)
        {
            if (links[rank] != null)
            {
                connected.add(rank);
            }
        }
        return connected;
    }

    private String endpoint()
    {
        return id.host() + ":" + id.port();
    }

    /** A connection that did not present a valid hello; {@code tell} when it proved the secret. */
    private static final class Rejected extends Exception
    {
        private static final long serialVersionUID = 1L;
        private final boolean tell;

        Rejected(final String message, final boolean tell)
        {
            super(message, null, false, false);
            this.tell = tell;
        }
    }

    /** A connection not yet admitted: reads its hello as it arrives and judges it as early as it can. */
    private final class HelloReader
    {
        private final SocketChannel channel;
        private final String remote;
        private final long deadlineNs;
        private final ByteBuffer header = ByteBuffer.allocate(HELLO_HEADER_LENGTH);
        private ByteBuffer info;
        private SelectionKey key;

        HelloReader(final SocketChannel channel, final long deadlineNs)
        {
            this.channel = channel;
            this.remote = remoteAddress(channel);
            this.deadlineNs = deadlineNs;
        }

        /** @return the peer's info once the hello is complete and valid, else null. */
        PeerInfo read() throws IOException, Rejected
        {
            if (info == null)
            {
                readSome(header);
                checkHeader();
                if (header.hasRemaining())
                {
                    return null;
                }
                info = ByteBuffer.allocate(header.getInt(32));
            }
            readSome(info);
            if (info.hasRemaining())
            {
                return null;
            }
            // judged only now, with every byte it sent read, so that its socket closes cleanly after the REJECT
            final int rank = header.getInt(24);
            final int peerSize = header.getInt(28);
            if (peerSize != size)
            {
                throw new Rejected("rank " + rank + " has size " + peerSize + ", rank 0 has size " + size, true);
            }
            if (rank < 1 || rank >= size)
            {
                throw new Rejected("rank " + rank + " is outside 1.." + (size - 1), true);
            }
            if (links[rank] != null)
            {
                throw new Rejected(duplicate(rank), true);
            }
            final PeerInfo peer;
            try
            {
                final DataInputStream in = BootstrapProtocol.decode(info.array());
                peer = PeerInfo.readFrom(in);
                if (in.available() != 0)
                {
                    throw new IOException(in.available() + " bytes after the peer info");
                }
            }
            catch (final IOException ex)
            {
                throw new Rejected("rank " + rank + " sent a malformed hello: " + ex.getMessage(), true);
            }
            if (peer.rank() != rank)
            {
                throw new Rejected("rank " + rank + " sent the peer info of rank " + peer.rank(), true);
            }
            return peer;
        }

        private void checkHeader() throws Rejected
        {
            final int have = header.position();
            if (have >= 4 && header.getInt(0) != MAGIC)
            {
                throw new Rejected("not a jccl hello (magic 0x" + Integer.toHexString(header.getInt(0)) + ")", false);
            }
            if (have >= 8 && header.getInt(4) != VERSION)
            {
                throw new Rejected("protocol version " + header.getInt(4) + ", rank 0 speaks " + VERSION, false);
            }
            if (have >= 24)
            {
                final byte[] presented = new byte[UniqueId.SECRET_LENGTH];
                header.get(8, presented);
                final boolean match = MessageDigest.isEqual(presented, secret);
                Arrays.fill(presented, (byte)0);
                if (!match)
                {
                    throw new Rejected("wrong secret", false);
                }
            }
            if (have == HELLO_HEADER_LENGTH)
            {
                final int infoLength = header.getInt(32);
                if (infoLength < 1 || infoLength > PeerInfo.MAX_ENCODED_LENGTH)
                {
                    throw new Rejected("a peer info of " + infoLength + " bytes is announced", false);
                }
            }
        }

        private void readSome(final ByteBuffer buffer) throws IOException
        {
            if (channel.read(buffer) < 0)
            {
                throw new EOFException("end of stream after " + (header.position() +
                    (info == null ? 0 : info.position())) + " bytes");
            }
        }
    }

    private static String remoteAddress(final SocketChannel channel)
    {
        try
        {
            final SocketAddress address = channel.getRemoteAddress();
            return String.valueOf(address);
        }
        catch (final IOException ex)
        {
            return "an unknown address";
        }
    }
}
