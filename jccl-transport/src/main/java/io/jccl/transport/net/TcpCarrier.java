package io.jccl.transport.net;

import io.aeron.Publication;
import io.aeron.logbuffer.FragmentHandler;
import io.jccl.JcclSystemException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Frames over TCP, as NCCL's socket transport carries them: a listening socket on this process's endpoint, and one
 * connection to each peer process it sends to (frames one way only; the peer's frames come on the peer's own
 * connection). The kernel's segmentation and offloads move up to a megabyte per system call where UDP moves one
 * datagram, so this carries several times what Aeron UDP does between two processes of 2 cores.
 * <p>
 * On the stream, a frame is its length (4 bytes) and then that many bytes: jccl's header and the data. A length of
 * {@value #HEARTBEAT} is a heartbeat, sent when a link has been quiet for a quarter of the deadline (at most a
 * second); {@value #BYE} ends the stream of a link closed on purpose. A connection opens with a hello: a magic
 * number, the communicator's secret and the sender's endpoint; a connection that presents anything else, or nothing
 * within the deadline, is dropped and logged, and cannot touch the communicator. A peer is lost when its
 * connection ends without its goodbye (its process died: the kernel closed the socket) or shows neither data nor
 * heartbeat for the deadline (its host is gone).
 * <p>
 * Frames are copied into a link's buffer of {@value #BUFFER} bytes and written from it, so a slot is one copy and a
 * system call per up to a megabyte on each side, as Aeron's term buffer is; nothing on the path allocates.
 */
final class TcpCarrier implements Carrier
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");
    static final int MAGIC = 0x6A63_7470;
    /** The length that marks a heartbeat. */
    static final int HEARTBEAT = -1;
    /** The length that marks the end of a link closed on purpose. */
    static final int BYE = -2;
    /** Bytes of each link's and each connection's buffer. */
    static final int BUFFER = 1 << 20;
    /** The most data bytes of one frame. */
    static final int MAX_PAYLOAD = 256 << 10;
    /** The most bytes of one frame on the stream: its length, jccl's header and the most data. */
    private static final int MAX_FRAME = 4 + NetTransport.HEADER_LENGTH + MAX_PAYLOAD;
    private static final int MAX_ENDPOINT = 64;
    private static final int HELLO_LENGTH = 4 + 16 + 2;
    /** Duty cycles between looks at the clock for heartbeats and liveness. */
    private static final int CLOCK_EVERY = 256;

    private final NetConfig config;
    private final byte[] token;
    private final LossListener lost;
    private final ServerSocketChannel server;
    private final String endpoint;
    private final long timeoutNs;
    private final long heartbeatNs;
    private final ConcurrentLinkedQueue<TcpLink> newLinks = new ConcurrentLinkedQueue<>();

    // network-thread state
    private final List<TcpLink> links = new ArrayList<>();
    private final List<Connection> connections = new ArrayList<>();
    private FragmentHandler handler;
    private int frames;
    private int cycles;

    /**
     * @param config where to listen and the deadline.
     * @param token  the communicator's secret: peers present it in their hello.
     * @param lost   told when a peer process is gone.
     */
    TcpCarrier(final NetConfig config, final byte[] token, final LossListener lost)
    {
        this.config = config;
        this.token = token.clone();
        this.lost = lost;
        this.timeoutNs = TimeUnit.MILLISECONDS.toNanos(config.timeoutMs());
        this.heartbeatNs = Math.min(TimeUnit.SECONDS.toNanos(1), timeoutNs / 4);
        try
        {
            server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(config.bindAddress(), 0));
            server.configureBlocking(false);
            endpoint = config.bindAddress() + ":" + ((InetSocketAddress)server.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            throw new JcclSystemException("cannot listen for TCP on " + config.bindAddress() + ": " + ex, ex);
        }
    }

    @Override
    public String endpoint()
    {
        return endpoint;
    }

    @Override
    public Link link(final String peer)
    {
        final int colon = peer.lastIndexOf(':');
        final byte[] name = endpoint.getBytes(StandardCharsets.US_ASCII);
        SocketChannel channel = null;
        try
        {
            channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.socket().connect(new InetSocketAddress(peer.substring(0, colon),
                Integer.parseInt(peer.substring(colon + 1))), (int)Math.min(Integer.MAX_VALUE, config.timeoutMs()));
            final ByteBuffer hello = ByteBuffer.allocate(HELLO_LENGTH + name.length).order(ByteOrder.nativeOrder());
            hello.putInt(MAGIC).put(token).putShort((short)name.length).put(name).flip();
            while (hello.hasRemaining())
            {
                channel.write(hello);
            }
            channel.configureBlocking(false);
            final TcpLink link = new TcpLink(peer, channel);
            newLinks.add(link);
            return link;
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(channel);
            throw new JcclSystemException("cannot connect over TCP to " + peer + ": " + ex, ex);
        }
    }

    @Override
    public int poll(final FragmentHandler handler, final int limit)
    {
        // a non-blocking read per connection: cheaper here than a selector's epoll and bookkeeping per cycle, with
        // one connection per peer process
        this.handler = handler;
        frames = 0;
        for (int i = connections.size() - 1; i >= 0 && frames < limit; i--)
        {
            read(connections.get(i));
        }
        return frames;
    }

    @Override
    public int duty()
    {
        int work = 0;
        TcpLink added;
        while ((added = newLinks.poll()) != null)
        {
            links.add(added);
            work++;
        }
        for (int i = 0, n = links.size(); i < n; i++)
        {
            work += links.get(i).flush() > 0 ? 1 : 0;
        }
        if (++cycles >= CLOCK_EVERY)
        {
            cycles = 0;
            accept();
            checkClock(System.nanoTime());
        }
        return work;
    }

    private void checkClock(final long now)
    {
        for (int i = 0, n = links.size(); i < n; i++)
        {
            final TcpLink link = links.get(i);
            if (now - link.lastWriteNs > heartbeatNs && !link.pending())
            {
                link.putMarker(HEARTBEAT);
            }
        }
        for (int i = connections.size() - 1; i >= 0; i--)
        {
            final Connection c = connections.get(i);
            if (now - c.lastReadNs > timeoutNs)
            {
                drop(c);
                if (c.peer == null)
                {
                    LOG.warn("jccl WARN dropped a TCP connection from {}: no hello within {} ms", c.remote,
                        config.timeoutMs());
                }
                else
                {
                    lost.lost(c.peer, true, "no data or heartbeat for " + config.timeoutMs() + " ms");
                }
            }
        }
    }

    private void accept()
    {
        try
        {
            SocketChannel channel;
            while ((channel = server.accept()) != null)
            {
                channel.configureBlocking(false);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                connections.add(new Connection(channel, System.nanoTime()));
            }
        }
        catch (final IOException ex)
        {
            LOG.warn("jccl WARN accepting a TCP connection on {}: {}", endpoint, ex.toString());
        }
    }

    private void read(final Connection c)
    {
        final int n;
        try
        {
            n = c.channel.read(c.in);
        }
        catch (final IOException ex)
        {
            end(c, "its connection failed: " + ex.getMessage());
            return;
        }
        if (n <= 0)
        {
            if (n < 0)
            {
                end(c, "its connection closed without a goodbye");
            }
            return;
        }
        c.lastReadNs = System.nanoTime();
        final int end = c.in.position();
        int at = c.parsed;
        if (c.peer == null)
        {
            at = hello(c, end);
            if (at <= 0)
            {
                return;
            }
        }
        while (end - at >= 4)
        {
            final int length = c.view.getInt(at);
            if (length == HEARTBEAT)
            {
                at += 4;
            }
            else if (length == BYE)
            {
                c.bye = true;
                at += 4;
            }
            else if (length < NetTransport.HEADER_LENGTH || length > NetTransport.HEADER_LENGTH + MAX_PAYLOAD)
            {
                drop(c);
                lost.lost(c.peer, true, "its stream is corrupt (a frame of " + length + " bytes)");
                return;
            }
            else if (end - at - 4 >= length)
            {
                handler.onFragment(c.view, at + 4, length, null);
                frames++;
                at += 4 + length;
            }
            else
            {
                break;
            }
        }
        c.parsed = at;
        c.makeRoom();
    }

    /** @return where the frames after a good hello begin, 0 while it is incomplete, -1 when it was bad. */
    private int hello(final Connection c, final int end)
    {
        if (end < HELLO_LENGTH)
        {
            return 0;
        }
        final byte[] presented = new byte[token.length];
        c.view.getBytes(4, presented);
        final int nameLength = c.view.getShort(20);
        if (c.view.getInt(0) != MAGIC || !MessageDigest.isEqual(presented, token) || nameLength <= 0 ||
            nameLength > MAX_ENDPOINT)
        {
            drop(c);
            LOG.warn("jccl WARN dropped a TCP connection from {}: it did not present this communicator's secret",
                c.remote);
            return -1;
        }
        if (end < HELLO_LENGTH + nameLength)
        {
            return 0;
        }
        c.peer = c.view.getStringWithoutLengthAscii(HELLO_LENGTH, nameLength);
        return HELLO_LENGTH + nameLength;
    }

    private void end(final Connection c, final String how)
    {
        drop(c);
        if (c.peer != null && !c.bye)
        {
            lost.lost(c.peer, true, how);
        }
    }

    private void drop(final Connection c)
    {
        connections.remove(c);
        closeQuietly(c.channel);
    }

    @Override
    public void close()
    {
        for (final TcpLink link : links)
        {
            link.close();
        }
        TcpLink pending;
        while ((pending = newLinks.poll()) != null)
        {
            pending.close();
        }
        for (final Connection c : connections)
        {
            closeQuietly(c.channel);
        }
        connections.clear();
        closeQuietly(server);
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        if (closeable != null)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ignored)
            {
                // closing anyway
            }
        }
    }

    /** Moves a buffer's bytes from {@code from} to its position to its front, and the position with them. */
    private static void moveToFront(final UnsafeBuffer view, final ByteBuffer buffer, final int from)
    {
        final int end = buffer.position();
        view.putBytes(0, view, from, end - from);
        buffer.position(end - from);
    }

    /** An accepted connection: frames from one peer process. */
    private static final class Connection
    {
        final SocketChannel channel;
        final ByteBuffer in = ByteBuffer.allocateDirect(BUFFER);
        final UnsafeBuffer view = new UnsafeBuffer(in);
        final String remote;
        /** The peer's endpoint, from its hello; null until then. */
        String peer;
        boolean bye;
        long lastReadNs;
        /** Where the first frame not yet taken in starts; the buffer's position is where the next read goes. */
        int parsed;

        Connection(final SocketChannel channel, final long now)
        {
            this.channel = channel;
            this.lastReadNs = now;
            String address;
            try
            {
                address = String.valueOf(channel.getRemoteAddress());
            }
            catch (final IOException ex)
            {
                address = "an unknown address";
            }
            this.remote = address;
        }

        /**
         * Moves a partial frame to the front only when the space behind it could not hold a whole frame, so a frame
         * is copied within the buffer at most once, not after every read.
         */
        void makeRoom()
        {
            final int end = in.position();
            if (parsed == end)
            {
                in.position(0);
                parsed = 0;
            }
            else if (in.capacity() - end < MAX_FRAME)
            {
                moveToFront(view, in, parsed);
                parsed = 0;
            }
        }
    }

    /** A connection to one peer process, with the buffer frames are written from. */
    private final class TcpLink implements Link
    {
        final String peer;
        final SocketChannel channel;
        final ByteBuffer out = ByteBuffer.allocateDirect(BUFFER);
        final UnsafeBuffer view = new UnsafeBuffer(out);
        long lastWriteNs = System.nanoTime();
        boolean broken;
        /** Bytes at the front of the buffer already written; frames are appended at its position. */
        int written;

        TcpLink(final String peer, final SocketChannel channel)
        {
            this.peer = peer;
            this.channel = channel;
        }

        @Override
        public int maxPayloadLength()
        {
            return MAX_PAYLOAD;
        }

        @Override
        public long offer(final DirectBuffer header, final int headerLength, final DirectBuffer data, final int offset,
            final int length)
        {
            final int need = 4 + headerLength + length;
            if (out.remaining() < need)
            {
                flush();
                if (broken)
                {
                    return Publication.CLOSED;
                }
                if (out.remaining() < need && written > 0)
                {
                    // only now move what the socket has not taken to the front, once
                    moveToFront(view, out, written);
                    written = 0;
                }
                if (out.remaining() < need)
                {
                    return Publication.BACK_PRESSURED;
                }
            }
            final int at = out.position();
            view.putInt(at, headerLength + length);
            view.putBytes(at + 4, header, 0, headerLength);
            if (length > 0)
            {
                view.putBytes(at + 4 + headerLength, data, offset, length);
            }
            out.position(at + need);
            return at + need;
        }

        @Override
        public long offer(final DirectBuffer header, final int headerLength)
        {
            return offer(header, headerLength, header, 0, 0);
        }

        @Override
        public boolean pending()
        {
            return out.position() > written;
        }

        void putMarker(final int marker)
        {
            final int at = out.position();
            if (out.remaining() >= 4)
            {
                view.putInt(at, marker);
                out.position(at + 4);
            }
        }

        /** @return the bytes written. */
        int flush()
        {
            final int fill = out.position();
            if (fill == written || broken)
            {
                return 0;
            }
            out.limit(fill).position(written);
            int n = 0;
            try
            {
                n = channel.write(out);
            }
            catch (final IOException ex)
            {
                broken = true;
                lost.lost(peer, true, "writing to it failed: " + ex.getMessage());
            }
            written += n;
            out.limit(out.capacity());
            if (written == fill)
            {
                out.position(0);
                written = 0;
            }
            else
            {
                out.position(fill);
            }
            if (n > 0)
            {
                lastWriteNs = System.nanoTime();
            }
            return n;
        }

        @Override
        public void close()
        {
            // closed by the transport and then again by the carrier: the goodbye goes once
            if (!channel.isOpen())
            {
                return;
            }
            putMarker(BYE);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (pending() && !broken && System.nanoTime() - deadline < 0)
            {
                if (flush() == 0)
                {
                    Thread.yield();
                }
            }
            closeQuietly(channel);
        }
    }
}
