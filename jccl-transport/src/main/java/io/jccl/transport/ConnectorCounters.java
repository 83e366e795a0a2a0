package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What a process's connectors did, so tests can prove a knob changed what ran: slots per protocol, bytes staged
 * through FIFO slots and bytes read directly from a peer's buffer per transport, the most channels a call used, and
 * connectors created. Added once per call by the executor into the counters of its rank ({@link #newPart()}, so
 * ranks driven by different threads never share a counter's cache line); read as totals by tests and printed by
 * {@code JCCL_DEBUG=INFO}.
 */
public final class ConnectorCounters
{
    private static final int PROTOCOLS = Protocol.values().length;
    private static final int TRANSPORTS = TransportKind.values().length;
    private static final int CONNECTORS = 0;
    private static final int CHANNELS = 1;

    private final AtomicLongArray slots = new AtomicLongArray(PROTOCOLS);
    private final AtomicLongArray protocolBytes = new AtomicLongArray(PROTOCOLS);
    private final AtomicLongArray stagedBytes = new AtomicLongArray(TRANSPORTS);
    private final AtomicLongArray directBytes = new AtomicLongArray(TRANSPORTS);
    private final AtomicLongArray misc = new AtomicLongArray(2);
    private final CopyOnWriteArrayList<ConnectorCounters> parts = new CopyOnWriteArrayList<>();

    /** @return counters of one rank, written by it alone, whose counts these counters' totals include. */
    public ConnectorCounters newPart()
    {
        final ConnectorCounters part = new ConnectorCounters();
        parts.add(part);
        return part;
    }

    private long sum(final AtomicLongArray own, final int index, final java.util.function.Function<
        ConnectorCounters, AtomicLongArray> field)
    {
        long total = own.get(index);
        for (final ConnectorCounters part : parts)
        {
            total += part.sum(field.apply(part), index, field);
        }
        return total;
    }

    /**
     * Adds a call's totals to a rank's part ({@link #newPart()}), from the thread holding the rank's claim.
     *
     * @param protocol    the protocol its slots used.
     * @param transport   the transport its connectors used.
     * @param slotCount   slots published, staged or direct.
     * @param staged      payload bytes copied through FIFO slots.
     * @param direct      payload bytes the receivers read straight from the senders' buffers.
     * @param channels    channels the call's program ran on.
     */
    public void add(final Protocol protocol, final TransportKind transport, final long slotCount, final long staged,
        final long direct, final int channels)
    {
        // one writer at a time (the rank's claim holder, whose claim orders it with the next): plain increments
        // published by release stores, no locked instruction per call
        addSingleWriter(slots, protocol.ordinal(), slotCount);
        addSingleWriter(protocolBytes, protocol.ordinal(), staged + direct);
        addSingleWriter(stagedBytes, transport.ordinal(), staged);
        addSingleWriter(directBytes, transport.ordinal(), direct);
        if (misc.get(CHANNELS) < channels)
        {
            misc.lazySet(CHANNELS, channels);
        }
    }

    private static void addSingleWriter(final AtomicLongArray counters, final int index, final long delta)
    {
        if (delta != 0)
        {
            counters.lazySet(index, counters.get(index) + delta);
        }
    }

    void connectorCreated()
    {
        misc.incrementAndGet(CONNECTORS);
    }

    /**
     * @param protocol a protocol.
     * @return slots published with it.
     */
    public long slotsSent(final Protocol protocol)
    {
        return sum(slots, protocol.ordinal(), c -> c.slots);
    }

    /**
     * @param protocol a protocol.
     * @return payload bytes its slots carried, staged or direct.
     */
    public long bytesStaged(final Protocol protocol)
    {
        return sum(protocolBytes, protocol.ordinal(), c -> c.protocolBytes);
    }

    /**
     * @param transport a transport.
     * @return payload bytes copied through its FIFO slots.
     */
    public long bytesStaged(final TransportKind transport)
    {
        return sum(stagedBytes, transport.ordinal(), c -> c.stagedBytes);
    }

    /**
     * @param transport a transport.
     * @return payload bytes receivers read straight from senders' buffers over it.
     */
    public long bytesDirect(final TransportKind transport)
    {
        return sum(directBytes, transport.ordinal(), c -> c.directBytes);
    }

    /** @return the most channels one call used. */
    public long channelsUsed()
    {
        long most = misc.get(CHANNELS);
        for (final ConnectorCounters part : parts)
        {
            most = Math.max(most, part.channelsUsed());
        }
        return most;
    }

    /** @return connectors (one per sender, receiver, channel, protocol and transport) created so far. */
    public long connectorsCreated()
    {
        return sum(misc, CONNECTORS, c -> c.misc);
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder();
        for (final Protocol p : Protocol.values())
        {
            sb.append(p.lowerName()).append(": slots=").append(slotsSent(p)).append(" bytes=").append(bytesStaged(p))
                .append("; ");
        }
        for (final TransportKind t : TransportKind.values())
        {
            if (bytesStaged(t) + bytesDirect(t) > 0)
            {
                sb.append(t.lowerName()).append(": staged=").append(bytesStaged(t)).append(" direct=")
                    .append(bytesDirect(t)).append("; ");
            }
        }
        return sb.append("channels=").append(channelsUsed()).append(" connectors=").append(connectorsCreated())
            .toString();
    }
}
