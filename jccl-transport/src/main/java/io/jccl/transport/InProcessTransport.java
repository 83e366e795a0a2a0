package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.kernels.Device;
import io.jccl.kernels.HostDevice;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Connections among the ranks of one process: one FIFO per (sender, receiver, channel, protocol), created when first used
 * and kept until {@link #close()}. Lookups happen when a call is bound, never per slot.
 */
public final class InProcessTransport implements AutoCloseable
{
    private final Device device;
    private final ConcurrentHashMap<Long, InProcessFifo> fifos = new ConcurrentHashMap<>();
    private final ConnectorCounters counters = new ConnectorCounters();

    /** Connections in host memory. */
    public InProcessTransport()
    {
        this(HostDevice.INSTANCE);
    }

    /** @param device where FIFOs are allocated. */
    public InProcessTransport(final Device device)
    {
        this.device = device;
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
     * @return the sending end of that connection, created on first use.
     */
    public SendConnector sender(final int from, final int to, final int channel, final Protocol protocol)
    {
        return fifo(from, to, channel, protocol).sender();
    }

    /**
     * @param from     sending rank.
     * @param to       receiving rank.
     * @param channel  channel.
     * @param protocol framing.
     * @return the receiving end of that connection, created on first use.
     */
    public RecvConnector receiver(final int from, final int to, final int channel, final Protocol protocol)
    {
        return fifo(from, to, channel, protocol).receiver();
    }

    /** @return what the connectors did. */
    public ConnectorCounters counters()
    {
        return counters;
    }

    private InProcessFifo fifo(final int from, final int to, final int channel, final Protocol protocol)
    {
        final long key = ((long)from << 42) | ((long)to << 20) | ((long)channel << 4) | protocol.id();
        return fifos.computeIfAbsent(key, k ->
        {
            counters.connectorCreated();
            return new InProcessFifo(device, protocol, from, to);
        });
    }

    /** Frees every FIFO. */
    @Override
    public void close()
    {
        fifos.values().forEach(InProcessFifo::close);
        fifos.clear();
    }
}
