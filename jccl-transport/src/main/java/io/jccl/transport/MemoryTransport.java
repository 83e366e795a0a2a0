package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.kernels.Device;
import io.jccl.kernels.HostDevice;

/**
 * P2P and SHM between two ranks of this process: a {@link MemoryFifo} in process memory (P2P; with SIMPLE in host
 * memory the receiver reads the sender's buffers in place) or in a shared-memory mapping (SHM, every byte staged).
 */
public final class MemoryTransport implements Transport<HostConnection>
{
    private final Device device;
    private final Device sharedDevice;

    /**
     * @param device       where P2P FIFOs are allocated.
     * @param sharedDevice where SHM FIFOs are allocated.
     */
    public MemoryTransport(final Device device, final Device sharedDevice)
    {
        this.device = device;
        this.sharedDevice = sharedDevice;
    }

    @Override
    public String name()
    {
        return "p2p/shm";
    }

    /** Both ranks live in this process and the plan asks for P2P or SHM. */
    @Override
    public boolean canConnect(final Link link, final RankPlacement placement)
    {
        return link.kind() != TransportKind.NET && placement.bothInProcess(link.from(), link.to());
    }

    @Override
    public HostConnection connect(final Link link, final RankPlacement placement)
    {
        final Protocol protocol = link.protocol();
        return link.kind() == TransportKind.SHM ?
            new MemoryFifo(sharedDevice, protocol, false, link.from(), link.to()) :
            new MemoryFifo(device, protocol, protocol == Protocol.SIMPLE && device == HostDevice.INSTANCE,
                link.from(), link.to());
    }

    /** The FIFOs are freed by their owner ({@link Connections}). */
    @Override
    public void close()
    {
    }
}
