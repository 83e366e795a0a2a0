package io.jccl.transport;

import io.jccl.Protocol;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What a process's connectors did, so tests can prove a knob changed what ran: slots and bytes per protocol, and
 * connectors created. Added once per call by the executor (never per slot on a shared counter), read by tests and
 * printed by {@code JCCL_DEBUG=INFO}.
 */
public final class ConnectorCounters
{
    private final AtomicLongArray slots = new AtomicLongArray(Protocol.values().length);
    private final AtomicLongArray bytes = new AtomicLongArray(Protocol.values().length);
    private final AtomicLongArray connectors = new AtomicLongArray(1);

    /**
     * Adds a call's totals.
     *
     * @param protocol the protocol its slots used.
     * @param slotCount slots published.
     * @param byteCount payload bytes staged through them.
     */
    public void add(final Protocol protocol, final long slotCount, final long byteCount)
    {
        slots.addAndGet(protocol.ordinal(), slotCount);
        bytes.addAndGet(protocol.ordinal(), byteCount);
    }

    void connectorCreated()
    {
        connectors.incrementAndGet(0);
    }

    /**
     * @param protocol a protocol.
     * @return slots published with it.
     */
    public long slotsSent(final Protocol protocol)
    {
        return slots.get(protocol.ordinal());
    }

    /**
     * @param protocol a protocol.
     * @return payload bytes staged through its slots.
     */
    public long bytesStaged(final Protocol protocol)
    {
        return bytes.get(protocol.ordinal());
    }

    /** @return connectors (one per sender, receiver, channel and protocol) created so far. */
    public long connectorsCreated()
    {
        return connectors.get(0);
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
        return sb.append("connectors=").append(connectorsCreated()).toString();
    }
}
