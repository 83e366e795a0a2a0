package io.jccl.transport;

/**
 * The sending end of a connection (rank to rank on one channel). Used by one worker at a time; never blocks:
 * callers poll {@link #hasSpace()} and do other work when it is false.
 */
public interface SendConnector
{
    /** @return true when the next slot may be written. */
    boolean hasSpace();

    /** @return the address of the next slot's data (valid while {@link #hasSpace()} is true). */
    long slotAddress();

    /**
     * Where to write the next slot when its length is known: a connector may place a small slot where it travels
     * cheaper (SIMPLE between ranks puts one of at most {@link FifoDescriptor#INLINE_MAX} bytes in its header line).
     * The slot must then be published with {@link #publish} and exactly that length.
     *
     * @param length the bytes the slot will hold.
     * @return the address to write them to (valid while {@link #hasSpace()} is true).
     */
    default long slotAddress(final int length)
    {
        return slotAddress();
    }

    /** @return the capacity of a slot in bytes. */
    int slotLength();

    /**
     * Publishes the next slot.
     *
     * @param length bytes written.
     * @param seq    the call's sequence number.
     * @param shape  hash of the call's collective, type, op, count and root.
     * @param plan   hash of the call's plan.
     */
    void publish(int length, long seq, long shape, long plan);

    /**
     * @return true when the receiver can read this sender's memory directly (P2P with SIMPLE), so a step whose data
     * already lies in a buffer may publish its address with {@link #publishDirect} instead of copying it.
     */
    default boolean direct()
    {
        return false;
    }

    /**
     * @param address the first byte of a range of this rank's memory.
     * @param length  the range's bytes.
     * @return true when the receiver can read that range in place ({@link #publishDirect}): any memory when both
     *         ranks share a process, only jccl's shared buffers ({@link SharedBuffers}) when they do not; never when
     *         {@link #direct()} is false.
     */
    default boolean readableInPlace(final long address, final long length)
    {
        return direct();
    }

    /**
     * Publishes the next slot as a reference to {@code length} bytes at {@code address} in this rank's memory, a
     * range {@link #readableInPlace(long, long)} accepts. The sender must not change those bytes until the receiver
     * has released the slot (see {@link #drained()}).
     *
     * @param address where the receiver reads the data.
     * @param length  bytes.
     * @param seq     the call's sequence number.
     * @param shape   hash of the call's collective, type, op, count and root.
     * @param plan    hash of the call's plan.
     * @throws UnsupportedOperationException when {@link #direct()} is false.
     */
    default void publishDirect(long address, int length, long seq, long shape, long plan)
    {
        throw new UnsupportedOperationException("this connector stages every slot");
    }

    /**
     * @return true when the receiver has released every direct slot published so far (until then it may read the
     *         sender's buffer); staged slots hold their own copy and never keep the sender waiting.
     */
    default boolean drained()
    {
        return true;
    }

    /** @return the rank this end sends to. */
    int peer();
}
