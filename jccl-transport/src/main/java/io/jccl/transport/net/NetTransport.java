package io.jccl.transport.net;

import io.aeron.Publication;
import io.aeron.logbuffer.FragmentHandler;
import io.aeron.logbuffer.Header;
import io.jccl.JcclException;
import io.jccl.JcclRemoteException;
import io.jccl.JcclSystemException;
import io.jccl.Protocol;
import io.jccl.kernels.Device;
import io.jccl.kernels.HostDevice;
import io.jccl.TransportKind;
import io.jccl.transport.FifoDescriptor;
import io.jccl.transport.HostConnection;
import io.jccl.transport.Link;
import io.jccl.transport.MemoryFifo;
import io.jccl.transport.ProtocolDescriptor;
import io.jccl.transport.RankPlacement;
import io.jccl.transport.RecvConnector;
import io.jccl.transport.SendConnector;
import io.jccl.transport.Transport;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Connections between ranks over the network: the transport between hosts (and, when pinned, between any two ranks),
 * carried by TCP ({@link TcpCarrier}, the default) or Aeron UDP ({@link AeronCarrier}; {@code JCCL_NET=aeron}).
 * <p>
 * Over Aeron, each communicator's process has one subscription on its own UDP endpoint (an ephemeral port on the
 * bound address, published through the bootstrap) and one exclusive publication per peer process it talks to,
 * carrying every channel and protocol of every rank pair between the two processes. A connection (sender, receiver, channel,
 * protocol) is two rings of {@link FifoDescriptor#SLOTS} slots, each a plain SIMPLE-framed FIFO in process memory:
 * <ul>
 *     <li>the <b>send ring</b>: the sending rank's worker fills and publishes slots as on any connector; this
 *     transport's network thread offers each slot to the publication in MTU-sized fragments (one copy, into Aeron's
 *     term buffer) and releases it;</li>
 *     <li>the <b>receive ring</b>: the network thread polls the subscription and writes each fragment straight into its slot
 *     of the ring (one copy, out of the term buffer), publishing the slot with its call sequence, shape and plan
 *     hash when its last fragment arrives; the receiving rank's worker reads it as from any connector.</li>
 * </ul>
 * Flow control is per connection, by credits: a send ring transmits slot {@code k} only once the receiver has
 * released slot {@code k - SLOTS} (the receiver's network thread reports released slots back on its publication to the
 * sender's process). So a full receive ring never blocks the shared stream, and one slow channel cannot stall
 * another channel or another rank pair riding the same publication. Aeron's own flow control and retransmission
 * make the stream reliable and ordered under packet loss.
 * <p>
 * The work runs on the process's one network thread ({@link NetRuntime}), which also runs Aeron's driver and client
 * conductor. Nothing on its path allocates per fragment.
 * <p>
 * Over 600 lines on purpose: one job, the wire protocol of slots and credits; its send and receive rings share the
 * connection keys, the header layout and the failure path, and their fields are read by the network thread alone.
 */
public final class NetTransport implements Transport<HostConnection>
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");
    /** Aeron stream id of jccl's traffic (each communicator has its own port). */
    static final int STREAM_ID = 0x6A63;
    static final int TYPE_OFFSET = 0;
    static final int LENGTH_OFFSET = 4;
    static final int KEY_OFFSET = 8;
    static final int NUMBER_OFFSET = 16;
    static final int AT_OFFSET = 24;
    static final int SEQ_OFFSET = 32;
    static final int SHAPE_OFFSET = 40;
    static final int PLAN_OFFSET = 48;
    /** The bytes of jccl's header in front of every fragment's data. */
    static final int HEADER_LENGTH = 56;
    /** A fragment of a slot: key, slot number, slot length, offset in the slot, then data. */
    static final int DATA = 1;
    /** A credit: key and the receiver's released head, to the sender's process. */
    static final int CREDIT = 2;
    private static final int FRAGMENT_LIMIT = 64;

    private final NetConfig config;
    private final NetRuntime runtime;
    private final Device device;
    private final Carrier carrier;
    private final ConcurrentHashMap<Long, SendRing> sendByKey = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, RecvRing> recvByKey = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Carrier.Link> links = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Object> newRings = new ConcurrentLinkedQueue<>();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicLong backPressured = new AtomicLong();
    private volatile String[] endpointOfRank;
    private volatile boolean running = true;
    private volatile boolean closing;
    /** Set on the network thread when this transport failed: it does no more work. */
    private boolean broken;
    private volatile Consumer<JcclException> failureListener = e -> { };

    // network-thread state
    private final Long2ObjectHashMap<SendRing> agentSend = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<RecvRing> agentRecv = new Long2ObjectHashMap<>();
    private final List<SendRing> sendList = new ArrayList<>();
    private final List<RecvRing> recvList = new ArrayList<>();
    private final UnsafeBuffer header = new UnsafeBuffer(new byte[HEADER_LENGTH]);
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private final FragmentHandler handler = this::onFragment;

    private NetTransport(final NetConfig config, final NetRuntime runtime, final Device device, final byte[] token)
    {
        this.config = config;
        this.runtime = runtime;
        this.device = device;
        this.carrier = config.wire() == NetConfig.Wire.TCP ? new TcpCarrier(config, token, this::lost) :
            new AeronCarrier(config, runtime.aeron(config), this::lost);
        runtime.add(this);
    }

    /**
     * Starts the transport with a random secret, for ranks of one process (every connection is to itself).
     *
     * @param config the settings.
     * @return a transport receiving on its own endpoint, served by the process's network thread.
     * @throws JcclSystemException if the media driver, the client or the socket cannot start.
     */
    public static NetTransport start(final NetConfig config)
    {
        final byte[] token = new byte[16];
        new java.security.SecureRandom().nextBytes(token);
        return start(config, token);
    }

    /**
     * @param config the settings.
     * @param token  the communicator's secret: what a TCP peer presents before its frames count.
     * @return a transport receiving on its own endpoint, served by the process's network thread.
     * @throws JcclSystemException if the media driver, the client or the socket cannot start.
     */
    public static NetTransport start(final NetConfig config, final byte[] token)
    {
        final NetRuntime runtime = NetRuntime.acquire();
        try
        {
            return new NetTransport(config, runtime, HostDevice.INSTANCE, token);
        }
        catch (final RuntimeException ex)
        {
            runtime.release();
            throw ex instanceof JcclException ? ex : new JcclSystemException("cannot start the network transport on " +
                config.bindAddress() + ": " + ex, ex);
        }
    }

    /** @return where this process receives: {@code address:port}. */
    public String endpoint()
    {
        return carrier.endpoint();
    }

    /** @return the settings. */
    public NetConfig config()
    {
        return config;
    }

    /**
     * Names every rank's endpoint (the same for ranks of one process) and checks that {@code /dev/shm} holds the
     * log buffers of a publication and an image per peer process.
     *
     * @param endpoints by rank, as {@link #endpoint()} returned in that rank's process.
     * @throws JcclSystemException if {@code /dev/shm} lacks the space, with what is needed.
     */
    public void connect(final String[] endpoints)
    {
        final long peers = java.util.Arrays.stream(endpoints).distinct().count();
        if (config.wire() == NetConfig.Wire.AERON)
        {
            checkSpace(Path.of(runtime.directory()).getParent() == null ? Path.of("/dev/shm") :
                Path.of(runtime.directory()).getParent(), peers * 2 * logLength(config.termLength()),
                "the network transport's log buffers (a publication and an image of 3 terms of " +
                config.termLength() + " bytes per peer process; lower " + NetConfig.TERM_LENGTH_ENV + ")");
        }
        this.endpointOfRank = endpoints.clone();
    }

    /** @param listener told once when a peer's stream is lost (its process or host died). */
    public void onFailure(final Consumer<JcclException> listener)
    {
        this.failureListener = listener;
    }

    /**
     * @param from     sending rank, in this process.
     * @param to       receiving rank.
     * @param channel  channel.
     * @param protocol the plan's protocol: slots hold its payload, so steps are cut as on any connector.
     * @return the sending end, created on first use.
     */
    public SendConnector sender(final int from, final int to, final int channel, final Protocol protocol)
    {
        final long key = key(from, to, channel, protocol);
        return sendByKey.computeIfAbsent(key, k ->
        {
            final SendRing ring = new SendRing(k, MemoryFifo.staging(device,
                ProtocolDescriptor.payloadLength(protocol), from, to), link(to), runtime);
            newRings.add(ring);
            return ring;
        }).workerEnd;
    }

    /**
     * @param from     sending rank.
     * @param to       receiving rank, in this process.
     * @param channel  channel.
     * @param protocol the plan's protocol.
     * @return the receiving end, created on first use.
     */
    public RecvConnector receiver(final int from, final int to, final int channel, final Protocol protocol)
    {
        return recvRing(key(from, to, channel, protocol)).workerEnd;
    }

    @Override
    public String name()
    {
        return "net";
    }

    /** The ranks live on two hosts, or the plan asks for NET. */
    @Override
    public boolean canConnect(final Link link, final RankPlacement placement)
    {
        return link.kind() == TransportKind.NET || !placement.sameHost(link.from(), link.to());
    }

    /** The ends are made when first asked for: this process holds one of them, or both on one host. */
    @Override
    public HostConnection connect(final Link link, final RankPlacement placement)
    {
        return new HostConnection()
        {
            @Override
            public SendConnector sender()
            {
                return NetTransport.this.sender(link.from(), link.to(), link.channel(), link.protocol());
            }

            @Override
            public RecvConnector receiver()
            {
                return NetTransport.this.receiver(link.from(), link.to(), link.channel(), link.protocol());
            }
        };
    }

    /** @return bytes sent and received, and how often a publication pushed back, for the debug summary. */
    public String describe()
    {
        return "net " + carrier.endpoint() + " " + config.wireSummary() + ": sent " + bytesSent.get() +
            " B, received " + bytesReceived.get() + " B, back-pressured " + backPressured.get() + " times" +
            (carrier.counters().isEmpty() ? "" : "; " + carrier.counters());
    }

    /**
     * Stops serving this communicator, closes the subscription and publications, and releases the process's Aeron (the last user
     * closes the embedded driver and deletes its directory). The caller makes sure no peer still needs this
     * process's data (every rank finished its calls, or the communicator failed).
     */
    @Override
    public void close()
    {
        if (!running)
        {
            return;
        }
        closing = true;
        running = false;
        runtime.remove(this);
        links.values().forEach(Carrier.Link::close);
        carrier.close();
        runtime.release();
        sendByKey.values().forEach(r -> r.fifo.close());
        recvByKey.values().forEach(r -> r.fifo.close());
    }

    /**
     * @param from     sending rank.
     * @param to       receiving rank.
     * @param channel  channel.
     * @param protocol protocol.
     * @return the connection's key, as carried in every fragment.
     */
    public static long key(final int from, final int to, final int channel, final Protocol protocol)
    {
        return ((long)from << 40) | ((long)to << 16) | ((long)channel << 4) | protocol.id();
    }

    private static int keyFrom(final long key)
    {
        return (int)(key >>> 40);
    }

    private static int keyTo(final long key)
    {
        return (int)((key >>> 16) & 0xFF_FFFF);
    }

    private static Protocol keyProtocol(final long key)
    {
        return Protocol.values()[(int)(key & 0xF)];
    }

    private RecvRing recvRing(final long key)
    {
        final RecvRing existing = recvByKey.get(key);
        if (existing != null)
        {
            return existing;
        }
        return recvByKey.computeIfAbsent(key, k ->
        {
            final RecvRing ring = new RecvRing(k, MemoryFifo.staging(device,
                ProtocolDescriptor.payloadLength(keyProtocol(k)), keyFrom(k), keyTo(k)), link(keyFrom(k)),
                runtime);
            newRings.add(ring);
            return ring;
        });
    }

    private Carrier.Link link(final int rank)
    {
        final String[] endpoints = endpointOfRank;
        if (endpoints == null)
        {
            throw new IllegalStateException("the network transport is not connected yet");
        }
        return links.computeIfAbsent(endpoints[rank], carrier::link);
    }

    // ---- on the network thread ----

    /**
     * The outbound half of a pass of this communicator's network work: new rings, slots to send, credits to return,
     * all offered to the publications. The duty cycle runs it before the media driver, whose sender then puts them on
     * the wire in the same cycle (offered after it, a slot waited a whole cycle, receive polls included).
     *
     * @return how much was done; 0 when idle.
     */
    int doOutbound()
    {
        if (broken)
        {
            return 0;
        }
        int work = 0;
        try
        {
            work += drainNewRings();
            for (int i = 0, n = sendList.size(); i < n; i++)
            {
                work += transmit(sendList.get(i));
            }
            for (int i = 0, n = recvList.size(); i < n; i++)
            {
                work += credit(recvList.get(i));
            }
            work += carrier.duty();
        }
        catch (final RuntimeException ex)
        {
            breakOn(ex);
        }
        return work;
    }

    /**
     * The inbound half: fragments the media driver's receiver took in, into their receive rings. The duty cycle runs
     * it after the driver, so what arrived in the cycle reaches its ring in the same cycle.
     *
     * @return how much was done; 0 when idle.
     */
    int doInbound()
    {
        if (broken)
        {
            return 0;
        }
        try
        {
            return carrier.poll(handler, FRAGMENT_LIMIT);
        }
        catch (final RuntimeException ex)
        {
            breakOn(ex);
            return 0;
        }
    }

    private void breakOn(final RuntimeException ex)
    {
        broken = true;
        fail(new JcclSystemException("the network transport failed: " + ex, ex));
    }

    private int drainNewRings()
    {
        int work = 0;
        Object ring;
        while ((ring = newRings.poll()) != null)
        {
            if (ring instanceof SendRing s)
            {
                agentSend.put(s.key, s);
                sendList.add(s);
            }
            else
            {
                final RecvRing r = (RecvRing)ring;
                agentRecv.put(r.key, r);
                recvList.add(r);
            }
            work++;
        }
        return work;
    }

    /** Offers the send ring's published slots whose receive slot is free, fragment by fragment. */
    private int transmit(final SendRing r)
    {
        int work = 0;
        final RecvConnector src = r.agentEnd;
        final int maxData = r.link.maxPayloadLength() - HEADER_LENGTH;
        while (r.sent - r.credit < FifoDescriptor.SLOTS && src.hasData())
        {
            final int length = src.dataLength();
            final long address = src.slotAddress();
            header.putInt(TYPE_OFFSET, DATA);
            header.putInt(LENGTH_OFFSET, length);
            header.putLong(KEY_OFFSET, r.key);
            header.putLong(NUMBER_OFFSET, r.sent);
            header.putLong(SEQ_OFFSET, src.seq());
            header.putLong(SHAPE_OFFSET, src.shape());
            header.putLong(PLAN_OFFSET, src.plan());
            do
            {
                final int n = Math.min(maxData, length - r.at);
                header.putInt(AT_OFFSET, r.at);
                view.wrap(address + r.at, n);
                final long result = r.link.offer(header, HEADER_LENGTH, view, 0, n);
                if (result < 0)
                {
                    if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
                    {
                        throw new IllegalStateException("publication to rank " + keyTo(r.key) + " is closed");
                    }
                    backPressured.incrementAndGet();
                    return work;
                }
                r.at += n;
                work++;
            }
            while (r.at < length);
            bytesSent.addAndGet(length);
            r.at = 0;
            r.sent++;
            src.release();
        }
        return work;
    }

    /** Tells the sender's process how far the receiving rank has released this ring. */
    private int credit(final RecvRing r)
    {
        final long head = r.fifo.released();
        // credit by halves of the ring, or along with frames going to the sender anyway: a packet per released
        // slot costs small calls a third of their packets (the sender never waits on it: with the whole ring
        // unreleased-yet-uncredited it has at least half a ring of credit coming)
        if (head - r.credited < FifoDescriptor.SLOTS / 2 && (head == r.credited || !r.link.pending()))
        {
            return 0;
        }
        header.putInt(TYPE_OFFSET, CREDIT);
        header.putInt(LENGTH_OFFSET, 0);
        header.putLong(KEY_OFFSET, r.key);
        header.putLong(NUMBER_OFFSET, head);
        if (r.link.offer(header, HEADER_LENGTH) < 0)
        {
            backPressured.incrementAndGet();
            return 0;
        }
        r.credited = head;
        return 1;
    }

    private void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header aeronHeader)
    {
        final int type = buffer.getInt(offset + TYPE_OFFSET);
        final long key = buffer.getLong(offset + KEY_OFFSET);
        if (type == CREDIT)
        {
            final SendRing s = agentSend.get(key);
            if (s != null)
            {
                s.credit = Math.max(s.credit, buffer.getLong(offset + NUMBER_OFFSET));
            }
            return;
        }
        RecvRing r = agentRecv.get(key);
        if (r == null)
        {
            // data for a connection this process has not bound yet: make its ring now
            r = recvRing(key);
            drainNewRings();
        }
        final int total = buffer.getInt(offset + LENGTH_OFFSET);
        final int at = buffer.getInt(offset + AT_OFFSET);
        final int n = length - HEADER_LENGTH;
        final SendConnector dst = r.agentEnd;
        if (at == 0 && (!dst.hasSpace() || buffer.getLong(offset + NUMBER_OFFSET) != r.received))
        {
            fail(new JcclSystemException("network stream from rank " + keyFrom(key) + " to rank " + keyTo(key) +
                ": slot " + buffer.getLong(offset + NUMBER_OFFSET) + " arrived where slot " + r.received +
                " was due, or beyond the receiver's credit"));
            return;
        }
        buffer.getBytes(offset + HEADER_LENGTH, wrapView(dst.slotAddress() + at, n), 0, n);
        if (at + n >= total)
        {
            dst.publish(total, buffer.getLong(offset + SEQ_OFFSET), buffer.getLong(offset + SHAPE_OFFSET),
                buffer.getLong(offset + PLAN_OFFSET));
            r.received++;
            bytesReceived.addAndGet(total);
        }
    }

    private UnsafeBuffer wrapView(final long address, final int length)
    {
        view.wrap(address, length);
        return view;
    }

    /** A peer process is gone: every rank it holds is named in the error. */
    private void lost(final String peer, final boolean exact, final String how)
    {
        final StringBuilder ranks = new StringBuilder();
        final String[] endpoints = endpointOfRank;
        for (int r = 0; endpoints != null && r < endpoints.length; r++)
        {
            if (exact ? endpoints[r].equals(peer) : endpoints[r].startsWith(peer + ":"))
            {
                ranks.append(ranks.length() == 0 ? "" : ", ").append(r);
            }
        }
        fail(new JcclRemoteException("the network stream from " + peer + " (rank " +
            (ranks.length() == 0 ? "unknown" : ranks) + ") was lost: " + how +
            "; the peer process or its host is gone"));
    }

    /**
     * The network thread ended on an error: what it would have moved never will, so the communicators fail.
     *
     * @param thread the thread's name.
     * @param cause  what ended it.
     */
    void agentFailed(final String thread, final Throwable cause)
    {
        if (!closing)
        {
            // the thread's runner logged the cause
            failureListener.accept(new JcclSystemException("the network thread " + thread + " failed: " + cause,
                cause));
        }
    }

    private void fail(final JcclException error)
    {
        if (!closing)
        {
            LOG.warn("jccl WARN {}", error.getMessage());
            failureListener.accept(error);
        }
    }

    /**
     * @param directory    where the files go.
     * @param bytes        what they need.
     * @param what         what they are, for the error.
     * @throws JcclSystemException if the directory's file system has less space free.
     */
    static void checkSpace(final Path directory, final long bytes, final String what)
    {
        try
        {
            final long free = Files.getFileStore(directory).getUsableSpace();
            if (free < bytes)
            {
                throw new JcclSystemException(directory + " has " + (free >> 20) + " MiB free, " + (bytes >> 20) +
                    " MiB are needed for " + what + ": free space there (leftover files?) or make it larger");
            }
        }
        catch (final IOException ex)
        {
            LOG.warn("jccl WARN cannot check the free space of {}: {}", directory, ex.toString());
        }
    }

    /** @return the bytes of one Aeron log buffer: 3 terms and its metadata page. */
    static long logLength(final int termLength)
    {
        return 3L * termLength + 4096;
    }

    private static final class SendRing
    {
        final long key;
        final MemoryFifo fifo;
        final RecvConnector agentEnd;
        final Carrier.Link link;
        /** Slots fully offered. */
        long sent;
        /** The receiver's released head: slot {@code k} may go once {@code k - credit < SLOTS}. */
        long credit;
        /** Bytes of the current slot already offered. */
        int at;

        /** The rank's end: the FIFO's, driving a duty cycle after each publish. */
        final SendConnector workerEnd;

        SendRing(final long key, final MemoryFifo fifo, final Carrier.Link link, final NetRuntime runtime)
        {
            this.key = key;
            this.fifo = fifo;
            this.agentEnd = fifo.receiver();
            this.link = link;
            this.workerEnd = new ProgressingSender(fifo.sender(), runtime);
        }
    }

    private static final class RecvRing
    {
        final long key;
        final MemoryFifo fifo;
        final SendConnector agentEnd;
        /** Back to the sender's process, for credits. */
        final Carrier.Link link;
        /** Slots fully received. */
        long received;
        /** The head last reported to the sender. */
        long credited;

        /** The rank's end: the FIFO's, driving a duty cycle while it finds no data. */
        final RecvConnector workerEnd;

        RecvRing(final long key, final MemoryFifo fifo, final Carrier.Link link, final NetRuntime runtime)
        {
            this.key = key;
            this.fifo = fifo;
            this.agentEnd = fifo.sender();
            this.link = link;
            this.workerEnd = new ProgressingReceiver(fifo.receiver(), runtime);
        }
    }

    /** A send ring's rank end that offers what it publishes at once, if no other thread runs the duty cycle. */
    private static final class ProgressingSender implements SendConnector
    {
        private final SendConnector fifo;
        private final NetRuntime runtime;

        ProgressingSender(final SendConnector fifo, final NetRuntime runtime)
        {
            this.fifo = fifo;
            this.runtime = runtime;
        }

        @Override
        public boolean hasSpace()
        {
            if (fifo.hasSpace())
            {
                return true;
            }
            runtime.progress();
            return fifo.hasSpace();
        }

        @Override
        public long slotAddress()
        {
            return fifo.slotAddress();
        }

        @Override
        public int slotLength()
        {
            return fifo.slotLength();
        }

        @Override
        public void publish(final int length, final long seq, final long shape, final long plan)
        {
            fifo.publish(length, seq, shape, plan);
            runtime.progress();
        }

        @Override
        public int peer()
        {
            return fifo.peer();
        }
    }

    /** A receive ring's rank end that runs the duty cycle itself while it waits, instead of waking another thread. */
    private static final class ProgressingReceiver implements RecvConnector
    {
        private final RecvConnector fifo;
        private final NetRuntime runtime;

        ProgressingReceiver(final RecvConnector fifo, final NetRuntime runtime)
        {
            this.fifo = fifo;
            this.runtime = runtime;
        }

        @Override
        public boolean hasData()
        {
            if (fifo.hasData())
            {
                return true;
            }
            runtime.progress();
            return fifo.hasData();
        }

        @Override
        public long slotAddress()
        {
            return fifo.slotAddress();
        }

        @Override
        public int dataLength()
        {
            return fifo.dataLength();
        }

        @Override
        public long seq()
        {
            return fifo.seq();
        }

        @Override
        public long shape()
        {
            return fifo.shape();
        }

        @Override
        public long plan()
        {
            return fifo.plan();
        }

        @Override
        public void release()
        {
            fifo.release();
        }

        @Override
        public int peer()
        {
            return fifo.peer();
        }
    }
}
