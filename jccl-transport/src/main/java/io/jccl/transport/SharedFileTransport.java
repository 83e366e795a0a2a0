package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;

import java.nio.file.Path;

/**
 * P2P and SHM between ranks of two processes of one host: a {@link MemoryFifo} in a file both map
 * ({@link SharedFifoFile}, named after the communicator and the link). With P2P and SIMPLE it is direct for the
 * data in the sender's shared buffers ({@link SharedBuffers}), which the receiver maps by name ({@link PeerBuffers});
 * other data, and every byte with SHM, LL or LL128, is staged.
 */
public final class SharedFileTransport implements Transport<HostConnection>
{
    private final Path directory;
    private final String prefix;
    private final long attachTimeoutMs;
    private final SharedBuffers ownBuffers;
    private final PeerBuffers peerBuffers;

    /**
     * @param directory       where shared FIFO files are made and peers' buffer files are found ({@code /dev/shm}).
     * @param prefix          a name unique to the communicator, the same in every process.
     * @param attachTimeoutMs how long to wait for a peer process to create a shared FIFO.
     * @param ownBuffers      this process's shared allocator, whose buffers its senders publish in place.
     */
    public SharedFileTransport(final Path directory, final String prefix, final long attachTimeoutMs,
        final SharedBuffers ownBuffers)
    {
        this.directory = directory;
        this.prefix = prefix;
        this.attachTimeoutMs = attachTimeoutMs;
        this.ownBuffers = ownBuffers;
        this.peerBuffers = new PeerBuffers(directory);
    }

    @Override
    public String name()
    {
        return "shm-file";
    }

    /** One rank lives in another process of this host, and the plan asks for P2P or SHM. */
    @Override
    public boolean canConnect(final Link link, final RankPlacement placement)
    {
        return link.kind() != TransportKind.NET && !placement.bothInProcess(link.from(), link.to()) &&
            placement.sameHost(link.from(), link.to());
    }

    @Override
    public HostConnection connect(final Link link, final RankPlacement placement)
    {
        final String name = prefix + "-" + link.fileSuffix();
        return link.kind() == TransportKind.P2P && link.protocol() == Protocol.SIMPLE ?
            SharedFifoFile.attachDirect(directory, name, link.from(), link.to(), attachTimeoutMs, ownBuffers,
                peerBuffers) :
            SharedFifoFile.attach(directory, name, link.protocol(), link.from(), link.to(), attachTimeoutMs);
    }

    /** @return the shared allocator whose buffers the ranks of other processes read in place. */
    public SharedBuffers ownBuffers()
    {
        return ownBuffers;
    }

    /** @return where this process maps peers' buffers. */
    PeerBuffers peerBuffers()
    {
        return peerBuffers;
    }

    /** Unmaps the peers' buffers; the FIFOs are freed by their owner ({@link Connections}). */
    @Override
    public void close()
    {
        peerBuffers.close();
    }
}
