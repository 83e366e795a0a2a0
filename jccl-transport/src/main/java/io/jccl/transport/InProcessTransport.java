package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.kernels.Device;
import io.jccl.kernels.HostDevice;

import io.jccl.transport.net.NetTransport;

import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;

/**
 * Connections among the ranks of one process: one FIFO per (sender, receiver, channel, protocol, transport), created
 * when first used and kept until {@link #close()}. Lookups happen when a call is bound, never per slot. P2P FIFOs
 * live in process memory and, with SIMPLE, let the receiver read the sender's buffers directly; SHM FIFOs live in a
 * shared-memory mapping and stage every byte. Between processes both live in a {@link SharedFifoFile}; there P2P
 * with SIMPLE reads in place the data that lies in jccl's shared buffers ({@link SharedBuffers}, mapped by the
 * receiving process through {@link PeerBuffers}) and stages the rest, SHM stages every byte.
 */
public final class InProcessTransport implements AutoCloseable
{
    private final Device device;
    private final Device sharedDevice;
    private final IntPredicate local;
    private final Path sharedDirectory;
    private final String sharedPrefix;
    private final long attachTimeoutMs;
    private final SharedBuffers ownBuffers;
    private final PeerBuffers peerBuffers;
    /** Host of each rank, or null when every rank shares this host. */
    private final int[] hostOfRank;
    /** Network connections (TCP or Aeron UDP), or null where no rank pair needs the network. */
    private final NetTransport net;
    private final ConcurrentHashMap<Long, InProcessFifo> fifos = new ConcurrentHashMap<>();
    private final ConnectorCounters counters = new ConnectorCounters();
    private final java.util.Set<Long> netConnections = ConcurrentHashMap.newKeySet();

    /** Connections in host memory. */
    public InProcessTransport()
    {
        this(HostDevice.INSTANCE);
    }

    /** @param device where FIFOs are allocated. */
    public InProcessTransport(final Device device)
    {
        this(device, SharedMemoryDevice.INSTANCE);
    }

    /**
     * @param device       where P2P FIFOs are allocated.
     * @param sharedDevice where SHM FIFOs are allocated.
     */
    public InProcessTransport(final Device device, final Device sharedDevice)
    {
        this(device, sharedDevice, rank -> true, null, null, 0, null, null, null);
    }

    /**
     * Connections of ranks in this process where every pair, whatever the plan says, goes through the network
     * transport (the transport NET pinned on one host: over loopback or the host's address).
     *
     * @param net the network transport, connected.
     */
    public InProcessTransport(final NetTransport net)
    {
        this(HostDevice.INSTANCE, SharedMemoryDevice.INSTANCE, rank -> true, null, null, 0, null, null, net);
    }

    /**
     * Connections of a communicator whose ranks live in several processes of this host: pairs of ranks in this
     * process as above; a pair with a rank in another process shares a {@link SharedFifoFile}, direct for the data
     * in {@link SharedBuffers#INSTANCE}'s buffers with P2P and SIMPLE, staged otherwise.
     *
     * @param local           which ranks live in this process.
     * @param sharedDirectory where shared FIFO files are made and peers' buffer files are found ({@code /dev/shm}).
     * @param sharedPrefix    a name unique to the communicator, the same in every process.
     * @param attachTimeoutMs how long to wait for a peer process to create a shared FIFO.
     */
    public InProcessTransport(final IntPredicate local, final Path sharedDirectory, final String sharedPrefix,
        final long attachTimeoutMs)
    {
        this(local, sharedDirectory, sharedPrefix, attachTimeoutMs, SharedBuffers.INSTANCE);
    }

    /**
     * As {@link #InProcessTransport(IntPredicate, Path, String, long)}, with the shared allocator whose buffers this
     * process's senders publish in place (tests make one in a directory of their own).
     *
     * @param local           which ranks live in this process.
     * @param sharedDirectory where shared FIFO files are made and peers' buffer files are found.
     * @param sharedPrefix    a name unique to the communicator, the same in every process.
     * @param attachTimeoutMs how long to wait for a peer process to create a shared FIFO.
     * @param ownBuffers      this process's shared allocator, making its files in {@code sharedDirectory}.
     */
    public InProcessTransport(final IntPredicate local, final Path sharedDirectory, final String sharedPrefix,
        final long attachTimeoutMs, final SharedBuffers ownBuffers)
    {
        this(HostDevice.INSTANCE, SharedMemoryDevice.INSTANCE, local, sharedDirectory, sharedPrefix,
            attachTimeoutMs, ownBuffers, null, null);
    }

    /**
     * Connections of a communicator whose ranks live in several processes and possibly several hosts: as
     * {@link #InProcessTransport(IntPredicate, Path, String, long)} on this host; a pair whose ranks live on
     * different hosts, or any pair when the plan's transport is NET, goes through the network transport.
     *
     * @param local           which ranks live in this process.
     * @param hostOfRank      the host of every rank (any numbering; equal numbers share a host).
     * @param sharedDirectory where shared FIFO files are made ({@code /dev/shm}).
     * @param sharedPrefix    a name unique to the communicator, the same in every process.
     * @param attachTimeoutMs how long to wait for a peer process to create a shared FIFO.
     * @param net             the network transport, connected; null when every rank shares this host and NET is
     *                        not wanted.
     */
    public InProcessTransport(final IntPredicate local, final int[] hostOfRank, final Path sharedDirectory,
        final String sharedPrefix, final long attachTimeoutMs, final NetTransport net)
    {
        this(HostDevice.INSTANCE, SharedMemoryDevice.INSTANCE, local, sharedDirectory, sharedPrefix,
            attachTimeoutMs, SharedBuffers.INSTANCE, hostOfRank.clone(), net);
    }

    private InProcessTransport(final Device device, final Device sharedDevice, final IntPredicate local,
        final Path sharedDirectory, final String sharedPrefix, final long attachTimeoutMs,
        final SharedBuffers ownBuffers, final int[] hostOfRank, final NetTransport net)
    {
        this.hostOfRank = hostOfRank;
        this.net = net;
        this.device = device;
        this.sharedDevice = sharedDevice;
        this.local = local;
        this.sharedDirectory = sharedDirectory;
        this.sharedPrefix = sharedPrefix;
        this.attachTimeoutMs = attachTimeoutMs;
        this.ownBuffers = ownBuffers;
        this.peerBuffers = sharedDirectory == null ? null : new PeerBuffers(sharedDirectory);
    }

    /**
     * @param protocol a protocol.
     * @return the payload of one slot of the protocol's FIFO: the most one step moves.
     */
    public static int slotLength(final Protocol protocol)
    {
        return ProtocolDescriptor.payloadLength(protocol);
    }

    /**
     * @param from     sending rank.
     * @param to       receiving rank.
     * @param channel  channel.
     * @param protocol framing.
     * @return the sending end of that P2P connection, created on first use.
     */
    public SendConnector sender(final int from, final int to, final int channel, final Protocol protocol)
    {
        return sender(from, to, channel, protocol, TransportKind.P2P);
    }

    /**
     * @param from     sending rank.
     * @param to       receiving rank.
     * @param channel  channel.
     * @param protocol framing.
     * @return the receiving end of that P2P connection, created on first use.
     */
    public RecvConnector receiver(final int from, final int to, final int channel, final Protocol protocol)
    {
        return receiver(from, to, channel, protocol, TransportKind.P2P);
    }

    /**
     * @param from      sending rank.
     * @param to        receiving rank.
     * @param channel   channel.
     * @param protocol  framing.
     * @param transport P2P (FIFO in process memory; direct reads of the sender's buffers with SIMPLE, between
     *                  processes of its shared buffers) or SHM (FIFO in a shared-memory mapping, always staged).
     * @return the sending end of that connection, created on first use.
     * @throws IllegalArgumentException for NET where this communicator has no network transport.
     */
    public SendConnector sender(final int from, final int to, final int channel, final Protocol protocol,
        final TransportKind transport)
    {
        if (overNetwork(from, to, transport))
        {
            countNet(from, to, channel, protocol);
            return net.sender(from, to, channel, protocol);
        }
        return fifo(from, to, channel, protocol, transport).sender();
    }

    /**
     * @param from      sending rank.
     * @param to        receiving rank.
     * @param channel   channel.
     * @param protocol  framing.
     * @param transport P2P or SHM, as for {@link #sender(int, int, int, Protocol, TransportKind)}.
     * @return the receiving end of that connection, created on first use.
     * @throws IllegalArgumentException for NET where this communicator has no network transport.
     */
    public RecvConnector receiver(final int from, final int to, final int channel, final Protocol protocol,
        final TransportKind transport)
    {
        if (overNetwork(from, to, transport))
        {
            countNet(from, to, channel, protocol);
            return net.receiver(from, to, channel, protocol);
        }
        return fifo(from, to, channel, protocol, transport).receiver();
    }

    /**
     * @return the shared allocator whose buffers the ranks of other processes read in place, or null when every
     *         rank lives in this process (where any memory is read in place).
     */
    public SharedBuffers ownBuffers()
    {
        return ownBuffers;
    }

    /** @return where this process maps peers' buffers, or null in one process (for tests). */
    PeerBuffers peerBuffers()
    {
        return peerBuffers;
    }

    /** @return what the connectors did. */
    public ConnectorCounters counters()
    {
        return counters;
    }

    /** Counts a network connection once, whichever of its ends this process asks for first. */
    private void countNet(final int from, final int to, final int channel, final Protocol protocol)
    {
        if (netConnections.add(NetTransport.key(from, to, channel, protocol)))
        {
            counters.connectorCreated();
        }
    }

    /** @return the network transport, or null. */
    public NetTransport net()
    {
        return net;
    }

    /** @return true when the pair's ranks live on different hosts, or NET is asked and the network is there. */
    private boolean overNetwork(final int from, final int to, final TransportKind transport)
    {
        final boolean crossHost = hostOfRank != null && hostOfRank[from] != hostOfRank[to];
        if ((crossHost || transport == TransportKind.NET) && net == null)
        {
            throw new IllegalArgumentException("transport NET between ranks " + from + " and " + to +
                " needs the network transport, which this communicator did not start");
        }
        return crossHost || transport == TransportKind.NET;
    }

    private InProcessFifo fifo(final int from, final int to, final int channel, final Protocol protocol,
        final TransportKind transport)
    {
        final long key = ((long)from << 42) | ((long)to << 20) | ((long)channel << 6) | (transport.ordinal() << 3) |
            protocol.id();
        final boolean crossProcess = !local.test(from) || !local.test(to);
        return fifos.computeIfAbsent(key, k ->
        {
            counters.connectorCreated();
            if (crossProcess)
            {
                final String name = sharedPrefix + "-" + from + "-" + to + "-" + channel + "-" +
                    protocol.lowerName() + "-" + transport.lowerName();
                return transport == TransportKind.P2P && protocol == Protocol.SIMPLE ?
                    SharedFifoFile.attachDirect(sharedDirectory, name, from, to, attachTimeoutMs, ownBuffers,
                        peerBuffers) :
                    SharedFifoFile.attach(sharedDirectory, name, protocol, from, to, attachTimeoutMs);
            }
            return transport == TransportKind.SHM ? new InProcessFifo(sharedDevice, protocol, false, from, to) :
                new InProcessFifo(device, protocol, protocol == Protocol.SIMPLE && device == HostDevice.INSTANCE,
                from, to);
        });
    }

    /** Frees every FIFO and unmaps the peers' buffers. */
    @Override
    public void close()
    {
        if (net != null)
        {
            net.close();
        }
        fifos.values().forEach(InProcessFifo::close);
        fifos.clear();
        if (peerBuffers != null)
        {
            peerBuffers.close();
        }
    }
}
