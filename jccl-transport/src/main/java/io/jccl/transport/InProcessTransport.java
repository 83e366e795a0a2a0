package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.kernels.Device;
import io.jccl.kernels.HostDevice;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Connections among the ranks of one process: one FIFO per (sender, receiver, channel), created when first used
 * and kept until {@link #close()}. Lookups happen when a call is bound, never per slot.
 */
public final class InProcessTransport implements AutoCloseable
{
    /** SIMPLE's connector buffer, as NCCL's: 4 MiB in {@link FifoDescriptor#SLOTS} steps. */
    public static final int SIMPLE_BUFFER_LENGTH = 4 << 20;

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

    /** @return the slot length of a protocol's FIFO. */
    public static int slotLength(final Protocol protocol)
    {
        return SIMPLE_BUFFER_LENGTH / FifoDescriptor.SLOTS;
    }

    /** @return the sending end from {@code from} to {@code to} on {@code channel}. */
    public SendConnector sender(final int from, final int to, final int channel)
    {
        return fifo(from, to, channel).sender();
    }

    /** @return the receiving end from {@code from} to {@code to} on {@code channel}. */
    public RecvConnector receiver(final int from, final int to, final int channel)
    {
        return fifo(from, to, channel).receiver();
    }

    /** @return what the connectors did. */
    public ConnectorCounters counters()
    {
        return counters;
    }

    private InProcessFifo fifo(final int from, final int to, final int channel)
    {
        final long key = ((long)from << 40) | ((long)to << 16) | channel;
        return fifos.computeIfAbsent(key, k ->
        {
            counters.connectorCreated();
            return new InProcessFifo(device, slotLength(Protocol.SIMPLE), from, to);
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
