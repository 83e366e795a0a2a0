package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;

/**
 * One connection a plan needs: from a sending rank to a receiving rank, on a channel, framed by a protocol, over
 * the kind of transport the plan asks for. The unit a {@link Transport} is asked about and connects.
 *
 * @param from     the sending rank.
 * @param to       the receiving rank.
 * @param channel  the channel, 0 to 1023.
 * @param protocol the framing of its slots.
 * @param kind     what the plan asks for: P2P (read in place where the pair can), SHM (stage every byte) or NET
 *                 (through the network even on one host).
 */
public record Link(int from, int to, int channel, Protocol protocol, TransportKind kind)
{
    /**
     * Checks the fields.
     *
     * @param from     the sending rank.
     * @param to       the receiving rank.
     * @param channel  the channel, 0 to 1023.
     * @param protocol the framing of its slots.
     * @param kind     the transport the plan asks for.
     */
    public Link
    {
        if (from < 0 || to < 0 || from >= 1 << 20 || to >= 1 << 20)
        {
            throw new IllegalArgumentException("ranks from=" + from + " and to=" + to + " must be 0.." +
                ((1 << 20) - 1));
        }
        if (channel < 0 || channel >= 1024)
        {
            throw new IllegalArgumentException("channel=" + channel + " must be 0..1023");
        }
        if (protocol == null || kind == null)
        {
            throw new IllegalArgumentException("protocol and kind must be given (protocol=" + protocol + ", kind=" +
                kind + ")");
        }
    }

    /** @return a key unique to the link, for caches of connections. */
    public long key()
    {
        return ((long)from << 42) | ((long)to << 20) | ((long)channel << 6) | ((long)kind.ordinal() << 3) |
            protocol.id();
    }

    /** @return the name of the link's FIFO file between processes: its ranks, channel, protocol and kind. */
    String fileSuffix()
    {
        return from + "-" + to + "-" + channel + "-" + protocol.lowerName() + "-" + kind.lowerName();
    }
}
