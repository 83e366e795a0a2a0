package io.jccl.transport;

/**
 * One way of connecting two ranks (NCCL's transports: P2P, SHM, NET, and on GPUs CUDA P2P/IPC). A communicator
 * asks its transports in order whether they {@link #canConnect} a {@link Link} and connects it with the first that
 * can, once per link, when a call is bound; nothing here runs per slot.
 * <p>
 * Host transports give a {@link HostConnection} (the two connectors the executor drives); the CUDA transport gives
 * the FIFO a kernel drives. Implementations: {@link MemoryTransport} (ranks of one process), {@link
 * SharedFileTransport} (ranks of two processes of a host), {@link io.jccl.transport.net.NetTransport} (ranks of two
 * hosts, or any pair when the plan asks for NET) and {@link io.jccl.transport.cuda.CudaTransport}.
 *
 * @param <C> what a connection is to its user.
 */
public interface Transport<C> extends AutoCloseable
{
    /** @return a short name for logs: {@code p2p/shm}, {@code shm-file}, {@code net}, {@code cuda}. */
    String name();

    /**
     * Says, without side effects, whether this transport connects the link.
     *
     * @param link      the connection a plan needs.
     * @param placement where the communicator's ranks live.
     * @return true when it can.
     */
    boolean canConnect(Link link, RankPlacement placement);

    /**
     * Connects a link {@link #canConnect} accepted. Called once per link by the communicator, which keeps the result.
     *
     * @param link      the connection a plan needs.
     * @param placement where the communicator's ranks live.
     * @return the connection.
     */
    C connect(Link link, RankPlacement placement);

    /** Frees what the connections made hold; their users have finished. */
    @Override
    void close();
}
