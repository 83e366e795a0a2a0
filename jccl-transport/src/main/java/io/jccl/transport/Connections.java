package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.kernels.Device;
import io.jccl.kernels.HostDevice;

import io.jccl.transport.net.NetTransport;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;

/**
 * The connections of this process's ranks of a communicator, made through its {@link Transport}s: for each
 * {@link Link} a plan needs, the first transport that {@link Transport#canConnect can connect} it, in the order
 * network ({@link NetTransport}: ranks on two hosts, or NET asked for), shared file ({@link SharedFileTransport}:
 * ranks of two processes of a host), memory ({@link MemoryTransport}: ranks of this process). A connection is made
 * on first use and kept until {@link #close()}; lookups happen when a call is bound, never per slot.
 * <p>
 * It also says which of this process's memory the other ranks read in place ({@link #inPlaceReads()}): any, in one
 * process; jccl's shared buffers ({@link SharedBuffers}), between processes.
 */
public final class Connections implements AutoCloseable
{
    private final RankPlacement placement;
    /** The transports, asked in order. */
    private final List<Transport<HostConnection>> transports = new ArrayList<>();
    /** Null where every rank lives in this process. */
    private final SharedFileTransport sharedFiles;
    /** Network connections (TCP or Aeron UDP), or null where no rank pair needs the network. */
    private final NetTransport net;
    private final ConcurrentHashMap<Long, HostConnection> connections = new ConcurrentHashMap<>();
    private final ConnectorCounters counters = new ConnectorCounters();

    /** Connections in host memory. */
    public Connections()
    {
        this(HostDevice.INSTANCE);
    }

    /** @param device where FIFOs are allocated. */
    public Connections(final Device device)
    {
        this(device, SharedMemoryDevice.INSTANCE);
    }

    /**
     * @param device       where P2P FIFOs are allocated.
     * @param sharedDevice where SHM FIFOs are allocated.
     */
    public Connections(final Device device, final Device sharedDevice)
    {
        this(device, sharedDevice, rank -> true, null, null, 0, null, null, null);
    }

    /**
     * Connections of ranks in this process where every pair, whatever the plan says, goes through the network
     * transport (the transport NET pinned on one host: over loopback or the host's address).
     *
     * @param net the network transport, connected.
     */
    public Connections(final NetTransport net)
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
    public Connections(final IntPredicate local, final Path sharedDirectory, final String sharedPrefix,
        final long attachTimeoutMs)
    {
        this(local, sharedDirectory, sharedPrefix, attachTimeoutMs, SharedBuffers.INSTANCE);
    }

    /**
     * As {@link #Connections(IntPredicate, Path, String, long)}, with the shared allocator whose buffers this
     * process's senders publish in place (tests make one in a directory of their own).
     *
     * @param local           which ranks live in this process.
     * @param sharedDirectory where shared FIFO files are made and peers' buffer files are found.
     * @param sharedPrefix    a name unique to the communicator, the same in every process.
     * @param attachTimeoutMs how long to wait for a peer process to create a shared FIFO.
     * @param ownBuffers      this process's shared allocator, making its files in {@code sharedDirectory}.
     */
    public Connections(final IntPredicate local, final Path sharedDirectory, final String sharedPrefix,
        final long attachTimeoutMs, final SharedBuffers ownBuffers)
    {
        this(HostDevice.INSTANCE, SharedMemoryDevice.INSTANCE, local, sharedDirectory, sharedPrefix,
            attachTimeoutMs, ownBuffers, null, null);
    }

    /**
     * Connections of a communicator whose ranks live in several processes and possibly several hosts: as
     * {@link #Connections(IntPredicate, Path, String, long)} on this host; a pair whose ranks live on
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
    public Connections(final IntPredicate local, final int[] hostOfRank, final Path sharedDirectory,
        final String sharedPrefix, final long attachTimeoutMs, final NetTransport net)
    {
        this(HostDevice.INSTANCE, SharedMemoryDevice.INSTANCE, local, sharedDirectory, sharedPrefix,
            attachTimeoutMs, SharedBuffers.INSTANCE, hostOfRank.clone(), net);
    }

    private Connections(final Device device, final Device sharedDevice, final IntPredicate local,
        final Path sharedDirectory, final String sharedPrefix, final long attachTimeoutMs,
        final SharedBuffers ownBuffers, final int[] hostOfRank, final NetTransport net)
    {
        this.placement = RankPlacement.of(local, hostOfRank);
        this.net = net;
        this.sharedFiles = sharedDirectory == null ? null :
            new SharedFileTransport(sharedDirectory, sharedPrefix, attachTimeoutMs, ownBuffers);
        if (net != null)
        {
            transports.add(net);
        }
        if (sharedFiles != null)
        {
            transports.add(sharedFiles);
        }
        transports.add(new MemoryTransport(device, sharedDevice));
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
        return connection(new Link(from, to, channel, protocol, transport)).sender();
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
        return connection(new Link(from, to, channel, protocol, transport)).receiver();
    }

    /**
     * @return the shared allocator whose buffers the ranks of other processes read in place, or null when every
     *         rank lives in this process (where any memory is read in place).
     */
    public SharedBuffers ownBuffers()
    {
        return sharedFiles == null ? null : sharedFiles.ownBuffers();
    }

    /**
     * @return which of this process's memory the other ranks of the communicator read in place: any memory when
     *         every rank lives in this process, else jccl's shared buffers.
     */
    public InPlaceReads inPlaceReads()
    {
        return sharedFiles == null ? InPlaceReads.ANY : sharedFiles.ownBuffers();
    }

    /** @return where this process maps peers' buffers, or null in one process (for tests). */
    PeerBuffers peerBuffers()
    {
        return sharedFiles == null ? null : sharedFiles.peerBuffers();
    }

    /** @return where the communicator's ranks live, as its transports are told. */
    public RankPlacement placement()
    {
        return placement;
    }

    /** @return what the connectors did. */
    public ConnectorCounters counters()
    {
        return counters;
    }

    /** @return the network transport, or null. */
    public NetTransport net()
    {
        return net;
    }

    /**
     * @return the link's connection, made by the first transport that can connect it (once per link; links the
     *         network carries are one connection whatever kind the plan asked for).
     * @throws IllegalArgumentException where no transport connects the link: NET, or ranks on two hosts, without
     *                                  the network transport.
     */
    private HostConnection connection(final Link asked)
    {
        final HostConnection known = connections.get(asked.key());
        if (known != null)
        {
            return known;
        }
        final Transport<HostConnection> transport = transportFor(asked);
        final Link link = transport == net ? new Link(asked.from(), asked.to(), asked.channel(), asked.protocol(),
            TransportKind.NET) : asked;
        final HostConnection connection = connections.computeIfAbsent(link.key(), k ->
        {
            counters.connectorCreated();
            return transport.connect(link, placement);
        });
        connections.putIfAbsent(asked.key(), connection);
        return connection;
    }

    /**
     * @param link a link.
     * @return the transport that connects it: the first that can.
     * @throws IllegalArgumentException where none can.
     */
    Transport<HostConnection> transportFor(final Link link)
    {
        for (final Transport<HostConnection> transport : transports)
        {
            if (transport.canConnect(link, placement))
            {
                return transport;
            }
        }
        throw new IllegalArgumentException("transport " + link.kind() + " between ranks " + link.from() + " and " +
            link.to() + " needs the network transport, which this communicator did not start");
    }

    /** Frees every FIFO and unmaps the peers' buffers. */
    @Override
    public void close()
    {
        if (net != null)
        {
            net.close();
        }
        for (final HostConnection connection : connections.values())
        {
            if (connection instanceof MemoryFifo fifo)
            {
                fifo.close();
            }
        }
        connections.clear();
        if (sharedFiles != null)
        {
            sharedFiles.close();
        }
    }
}
