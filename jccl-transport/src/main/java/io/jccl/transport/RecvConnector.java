package io.jccl.transport;

/**
 * The receiving end of a connection. Used by one worker at a time; never blocks: callers poll
 * {@link #hasData()}.
 */
public interface RecvConnector
{
    /** @return true when the next slot has arrived. */
    boolean hasData();

    /** @return the address of the arrived slot's data: in the FIFO, or in the sender's buffer for a direct slot. */
    long slotAddress();

    /** @return the arrived slot's data length in bytes. */
    int dataLength();

    /** @return the sequence number of the call that sent the arrived slot. */
    long seq();

    /** @return the shape hash of the call that sent the arrived slot. */
    long shape();

    /** @return the plan hash of the call that sent the arrived slot. */
    long plan();

    /** @return true when the arrived slot references the sender's memory instead of carrying its data. */
    default boolean isDirect()
    {
        return false;
    }

    /** Frees the arrived slot for the sender. */
    void release();

    /** @return the rank this end receives from. */
    int peer();
}
