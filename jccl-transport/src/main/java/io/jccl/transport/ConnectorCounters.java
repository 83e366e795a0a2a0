package io.jccl.transport;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What a process's connectors did, so tests can prove a knob changed what ran. Counted per call by the executor
 * (never per slot on a shared counter), read by tests and printed by {@code JCCL_DEBUG=INFO}.
 */
public final class ConnectorCounters
{
    private final AtomicLong slotsSent = new AtomicLong();
    private final AtomicLong bytesStaged = new AtomicLong();
    private final AtomicLong connectorsCreated = new AtomicLong();

    /** Adds a call's totals. */
    public void add(final long slots, final long bytes)
    {
        slotsSent.addAndGet(slots);
        bytesStaged.addAndGet(bytes);
    }

    void connectorCreated()
    {
        connectorsCreated.incrementAndGet();
    }

    /** @return slots published. */
    public long slotsSent()
    {
        return slotsSent.get();
    }

    /** @return bytes staged through FIFO slots. */
    public long bytesStaged()
    {
        return bytesStaged.get();
    }

    /** @return connectors (one per sender, receiver and channel) created so far. */
    public long connectorsCreated()
    {
        return connectorsCreated.get();
    }

    @Override
    public String toString()
    {
        return "slots=" + slotsSent.get() + " bytesStaged=" + bytesStaged.get() + " connectors=" +
            connectorsCreated.get();
    }
}
