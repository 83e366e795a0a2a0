package io.jccl.transport.net;

import io.aeron.logbuffer.FragmentHandler;
import org.agrona.DirectBuffer;

/**
 * What carries a {@link NetTransport}'s frames (jccl's header, then a slot's bytes or none) between processes: Aeron
 * UDP ({@link AeronCarrier}) or TCP ({@link TcpCarrier}). Frames to one peer process arrive in the order offered, or
 * the peer is reported lost. {@link #link(String)} may be called on any thread; everything else runs on the network
 * duty cycle, one thread at a time.
 */
interface Carrier
{
    /** @return where this process receives: {@code address:port}, published to the peers through the bootstrap. */
    String endpoint();

    /**
     * @param endpoint a peer process's {@link #endpoint()}.
     * @return a new link carrying frames to it.
     */
    Link link(String endpoint);

    /**
     * Takes in what has arrived, frame by frame.
     *
     * @param handler told of each frame (its header at the offset; the {@code Header} argument is null on TCP).
     * @param limit   the most frames to take in (TCP reads no further connection once it is reached, but takes in
     *                every whole frame a read brought).
     * @return the frames taken in.
     */
    int poll(FragmentHandler handler, int limit);

    /** @return work done for the carrier itself in this duty cycle (sending what is buffered, liveness). */
    int duty();

    /**
     * @return the carrier's own counters for the debug summary (for Aeron: its media driver's loss, retransmission,
     *         flow-control and send counters, process-wide), or an empty string when it keeps none.
     */
    default String counters()
    {
        return "";
    }

    /** Releases what the carrier holds; runs once no duty cycle runs on it any more. */
    void close();

    /** Told when a peer process is gone. */
    @FunctionalInterface
    interface LossListener
    {
        /**
         * @param peer  the peer's endpoint ({@code address:port}), or only its address when {@code exact} is false.
         * @param exact whether {@code peer} is a whole endpoint.
         * @param how   what was seen, for the error.
         */
        void lost(String peer, boolean exact, String how);
    }

    /** Frames to one peer process. */
    interface Link
    {
        /** @return the most data bytes one frame carries besides jccl's header. */
        int maxPayloadLength();

        /**
         * @return a non-negative value when the whole frame was taken, else {@code Publication.BACK_PRESSURED} (try
         *         again later) or {@code Publication.CLOSED}.
         */
        long offer(DirectBuffer header, int headerLength, DirectBuffer data, int offset, int length);

        /** @return as {@link #offer(DirectBuffer, int, DirectBuffer, int, int)}, for a frame of a header only. */
        long offer(DirectBuffer header, int headerLength);

        /** @return whether frames offered wait to go out with the next ones (so a frame added now costs no packet). */
        boolean pending();

        /** Closes the link (a TCP link tells the peer first, so its end of the stream is no loss). */
        void close();
    }
}
