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

    /** @return the rank this end sends to. */
    int peer();
}
