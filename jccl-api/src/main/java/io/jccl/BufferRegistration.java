package io.jccl;

/**
 * A buffer registered with a communicator (NCCL's {@code ncclCommRegister}; {@link #close()} is
 * {@code ncclCommDeregister}). Registration tells whether the ranks of the communicator that live in other
 * processes read the buffer in place (P2P with SIMPLE, no staging copy): they do when the buffer lies in memory
 * jccl allocated as shared ({@code Jccl.allocate}), which the peers map by name; memory private to this process
 * is staged through shared FIFOs instead. jccl's shared memory needs nothing more than its allocation, so a
 * registration changes no transfer: it reports, and holds nothing that its close has to free.
 */
public final class BufferRegistration implements AutoCloseable
{
    private final Buffer buffer;
    private final boolean peersReadInPlace;
    private volatile boolean closed;

    /**
     * @param buffer           the registered buffer.
     * @param peersReadInPlace true when the communicator's other ranks read the buffer in place.
     * @throws JcclInvalidArgumentException if the buffer is null.
     */
    public BufferRegistration(final Buffer buffer, final boolean peersReadInPlace)
    {
        if (buffer == null)
        {
            throw new JcclInvalidArgumentException("buffer is null");
        }
        this.buffer = buffer;
        this.peersReadInPlace = peersReadInPlace;
    }

    /** @return the registered buffer. */
    public Buffer buffer()
    {
        return buffer;
    }

    /**
     * @return true when the communicator's other ranks read the buffer in place (P2P with SIMPLE): ranks of this
     *         process read any host buffer so, ranks of other processes of this host only jccl's shared memory.
     */
    public boolean peersReadInPlace()
    {
        return peersReadInPlace;
    }

    /** @return true once deregistered. */
    public boolean isClosed()
    {
        return closed;
    }

    /** Deregisters the buffer; idempotent. */
    @Override
    public void close()
    {
        closed = true;
    }

    @Override
    public String toString()
    {
        return "BufferRegistration{" + buffer + (peersReadInPlace ? ", peers read in place" : ", staged") +
            (closed ? ", closed" : "") + '}';
    }
}
