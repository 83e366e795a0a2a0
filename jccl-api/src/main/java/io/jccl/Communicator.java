package io.jccl;

/**
 * One rank's view of a group of ranks, with NCCL's collectives and their argument and count semantics.
 * <p>
 * Every collective is asynchronous: it validates its arguments (throwing {@link JcclInvalidArgumentException}
 * naming the argument, before anything is sent), queues the call on this rank and returns a {@link Work}. Calls
 * on one {@link Stream} run in order. The blocking forms without a stream wait for completion. Inside a group
 * ({@code Jccl.groupStart()}/{@code groupEnd()}) calls start together at {@code groupEnd}; a blocking form there
 * is an {@link JcclInvalidUsageException}.
 * <p>
 * In-place as NCCL defines it: AllReduce, Broadcast, Reduce when {@code send} and {@code recv} are the same memory;
 * AllGather when {@code send} is slice {@code rank} of {@code recv}; ReduceScatter when {@code recv} is slice
 * {@code rank} of {@code send}. Any other overlap of {@code send} and {@code recv} is an error. The receive buffer
 * of a non-root Reduce and the send buffer of a non-root Broadcast are ignored and may be null.
 */
public interface Communicator extends AutoCloseable
{
    /** @return this rank, 0..size()-1. */
    int rank();

    /** The color of {@link #split(int, int)} that joins no new communicator ({@code NCCL_SPLIT_NOCOLOR}). */
    int SPLIT_NOCOLOR = -1;

    /** @return the rank count. */
    int size();

    /**
     * @param send  count elements.
     * @param recv  count elements; receives the reduction of every rank's send.
     * @param count elements per rank.
     * @param type  element type.
     * @param op    reduction.
     * @param stream ordering domain.
     * @return the call's handle.
     */
    Work allReduce(Buffer send, Buffer recv, long count, DataType type, ReduceOp op, Stream stream);

    /**
     * @param send      sendCount elements.
     * @param recv      size() x sendCount elements; slice r receives rank r's send.
     * @param sendCount elements each rank contributes.
     * @param type      element type.
     * @param stream    ordering domain.
     * @return the call's handle.
     */
    Work allGather(Buffer send, Buffer recv, long sendCount, DataType type, Stream stream);

    /**
     * @param send      size() x recvCount elements.
     * @param recv      recvCount elements; receives slice rank() of the reduction.
     * @param recvCount elements each rank receives.
     * @param type      element type.
     * @param op        reduction.
     * @param stream    ordering domain.
     * @return the call's handle.
     */
    Work reduceScatter(Buffer send, Buffer recv, long recvCount, DataType type, ReduceOp op, Stream stream);

    /**
     * @param send   count elements on the root; ignored (may be null) elsewhere.
     * @param recv   count elements; receives the root's send.
     * @param count  elements.
     * @param type   element type.
     * @param root   the rank whose data is sent.
     * @param stream ordering domain.
     * @return the call's handle.
     */
    Work broadcast(Buffer send, Buffer recv, long count, DataType type, int root, Stream stream);

    /**
     * @param send   count elements.
     * @param recv   count elements on the root, receiving the reduction; ignored (may be null) elsewhere.
     * @param count  elements.
     * @param type   element type.
     * @param op     reduction.
     * @param root   the rank that receives.
     * @param stream ordering domain.
     * @return the call's handle.
     */
    Work reduce(Buffer send, Buffer recv, long count, DataType type, ReduceOp op, int root, Stream stream);

    /**
     * Every rank sends block {@code p} of its send buffer to rank {@code p}, which stores it as block {@code rank()}
     * of its receive buffer (nccl-tests' {@code alltoall_perf}). In place when send and recv are the same memory.
     *
     * @param send   size() x count elements.
     * @param recv   size() x count elements.
     * @param count  elements sent to each rank.
     * @param type   element type.
     * @param stream ordering domain.
     * @return the call's handle.
     */
    Work allToAll(Buffer send, Buffer recv, long count, DataType type, Stream stream);

    /**
     * Blocking AllToAll on the default stream.
     *
     * @param send  size() x count elements.
     * @param recv  size() x count elements.
     * @param count elements sent to each rank.
     * @param type  element type.
     */
    default void allToAll(final Buffer send, final Buffer recv, final long count, final DataType type)
    {
        allToAll(send, recv, count, type, Stream.DEFAULT).join();
    }

    /**
     * Blocking AllReduce on the default stream.
     *
     * @param send  count elements.
     * @param recv  count elements; receives the reduction of every rank's send.
     * @param count elements per rank.
     * @param type  element type.
     * @param op    reduction.
     */
    default void allReduce(final Buffer send, final Buffer recv, final long count, final DataType type,
        final ReduceOp op)
    {
        allReduce(send, recv, count, type, op, Stream.DEFAULT).join();
    }

    /**
     * Blocking AllGather on the default stream.
     *
     * @param send      sendCount elements.
     * @param recv      size() x sendCount elements; slice r receives rank r's send.
     * @param sendCount elements each rank contributes.
     * @param type      element type.
     */
    default void allGather(final Buffer send, final Buffer recv, final long sendCount, final DataType type)
    {
        allGather(send, recv, sendCount, type, Stream.DEFAULT).join();
    }

    /**
     * Blocking ReduceScatter on the default stream.
     *
     * @param send      size() x recvCount elements.
     * @param recv      recvCount elements; receives slice rank() of the reduction.
     * @param recvCount elements each rank receives.
     * @param type      element type.
     * @param op        reduction.
     */
    default void reduceScatter(final Buffer send, final Buffer recv, final long recvCount, final DataType type,
        final ReduceOp op)
    {
        reduceScatter(send, recv, recvCount, type, op, Stream.DEFAULT).join();
    }

    /**
     * Blocking Broadcast on the default stream.
     *
     * @param send  count elements on the root; ignored (may be null) elsewhere.
     * @param recv  count elements; receives the root's send.
     * @param count elements.
     * @param type  element type.
     * @param root  the rank whose data is sent.
     */
    default void broadcast(final Buffer send, final Buffer recv, final long count, final DataType type, final int root)
    {
        broadcast(send, recv, count, type, root, Stream.DEFAULT).join();
    }

    /**
     * Blocking Reduce on the default stream.
     *
     * @param send  count elements.
     * @param recv  count elements on the root, receiving the reduction; ignored (may be null) elsewhere.
     * @param count elements.
     * @param type  element type.
     * @param op    reduction.
     * @param root  the rank that receives.
     */
    default void reduce(final Buffer send, final Buffer recv, final long count, final DataType type,
        final ReduceOp op, final int root)
    {
        reduce(send, recv, count, type, op, root, Stream.DEFAULT).join();
    }

    /**
     * Sends {@code count} elements to {@code peer} ({@code ncclSend}). The k-th send from rank a to rank b meets the
     * k-th receive at b from a; it must receive the same count and type, or both ranks' calls fail with an error that
     * names both sides. Inside a group ({@code Jccl.groupStart()}/{@code groupEnd()}) every send and receive of this
     * rank progresses together and starts after the group's collectives, so a ring shift or an all-to-all written as
     * one group cannot deadlock whatever the order of its calls; a send to this rank itself needs its receive in
     * the same group. A count of 0 is legal and still meets its receive. Host memory only for now.
     *
     * @param buffer count elements, read until the call completes (may be null when count is 0).
     * @param count  elements.
     * @param type   element type.
     * @param peer   the receiving rank, 0..size()-1 (this rank included).
     * @param stream ordering domain.
     * @return the call's handle (inside a group, the handle of every send and receive of this rank in the group).
     * @throws JcclInvalidArgumentException naming the argument, before anything is sent.
     * @throws JcclInvalidUsageException    where this kind of communicator has no point-to-point calls.
     */
    default Work send(final Buffer buffer, final long count, final DataType type, final int peer,
        final Stream stream)
    {
        throw new JcclInvalidUsageException(getClass().getSimpleName() + " has no send");
    }

    /**
     * Receives {@code count} elements from {@code peer} ({@code ncclRecv}); see {@link #send}.
     *
     * @param buffer count elements, written by the call (may be null when count is 0).
     * @param count  elements.
     * @param type   element type.
     * @param peer   the sending rank, 0..size()-1 (this rank included).
     * @param stream ordering domain.
     * @return the call's handle (inside a group, the handle of every send and receive of this rank in the group).
     * @throws JcclInvalidArgumentException naming the argument, before anything is sent.
     * @throws JcclInvalidUsageException    where this kind of communicator has no point-to-point calls.
     */
    default Work recv(final Buffer buffer, final long count, final DataType type, final int peer,
        final Stream stream)
    {
        throw new JcclInvalidUsageException(getClass().getSimpleName() + " has no recv");
    }

    /**
     * Blocking {@link #send} on the default stream (outside a group: a send to another rank waits for its receive).
     *
     * @param buffer count elements.
     * @param count  elements.
     * @param type   element type.
     * @param peer   the receiving rank.
     */
    default void send(final Buffer buffer, final long count, final DataType type, final int peer)
    {
        send(buffer, count, type, peer, Stream.DEFAULT).join();
    }

    /**
     * Blocking {@link #recv} on the default stream.
     *
     * @param buffer count elements.
     * @param count  elements.
     * @param type   element type.
     * @param peer   the sending rank.
     */
    default void recv(final Buffer buffer, final long count, final DataType type, final int peer)
    {
        recv(buffer, count, type, peer, Stream.DEFAULT).join();
    }

    /**
     * All-to-all with a count and a displacement per peer, as {@code MPI_Alltoallv}: this rank sends
     * {@code sendCounts[p]} elements from element {@code sendDispls[p]} of {@code send} to every rank p and receives
     * {@code recvCounts[p]} elements from p at element {@code recvDispls[p]} of {@code recv}; one group of sends and
     * receives. Rank p's {@code sendCounts[q]} must equal rank q's {@code recvCounts[p]}.
     *
     * @param send       the data to send.
     * @param sendCounts elements to each rank, one per rank.
     * @param sendDispls where each rank's elements start in {@code send}, in elements.
     * @param recv       where received data goes; must not overlap {@code send}.
     * @param recvCounts elements from each rank, one per rank.
     * @param recvDispls where each rank's elements go in {@code recv}, in elements.
     * @param type       element type.
     * @param stream     ordering domain.
     * @return the call's handle.
     * @throws JcclInvalidArgumentException naming the argument, before anything is sent.
     * @throws JcclInvalidUsageException    where this kind of communicator has no point-to-point calls.
     */
    default Work allToAllv(final Buffer send, final long[] sendCounts, final long[] sendDispls, final Buffer recv,
        final long[] recvCounts, final long[] recvDispls, final DataType type, final Stream stream)
    {
        throw new JcclInvalidUsageException(getClass().getSimpleName() + " has no allToAllv");
    }

    /**
     * Gather to a root, as {@code MPI_Gather}: the root receives every rank's {@code count} elements into
     * {@code recv}, rank r's at element {@code r * count}; one group of sends and receives.
     *
     * @param send   count elements.
     * @param recv   count x size elements on the root; ignored (may be null) elsewhere.
     * @param count  elements per rank.
     * @param type   element type.
     * @param root   the rank that receives.
     * @param stream ordering domain.
     * @return the call's handle.
     * @throws JcclInvalidArgumentException naming the argument, before anything is sent.
     * @throws JcclInvalidUsageException    where this kind of communicator has no point-to-point calls.
     */
    default Work gather(final Buffer send, final Buffer recv, final long count, final DataType type, final int root,
        final Stream stream)
    {
        throw new JcclInvalidUsageException(getClass().getSimpleName() + " has no gather");
    }

    /**
     * Scatter from a root, as {@code MPI_Scatter}: rank r receives the root's elements {@code r * count} to
     * {@code (r + 1) * count - 1}; one group of sends and receives.
     *
     * @param send   count x size elements on the root; ignored (may be null) elsewhere.
     * @param recv   count elements.
     * @param count  elements per rank.
     * @param type   element type.
     * @param root   the rank that sends.
     * @param stream ordering domain.
     * @return the call's handle.
     * @throws JcclInvalidArgumentException naming the argument, before anything is sent.
     * @throws JcclInvalidUsageException    where this kind of communicator has no point-to-point calls.
     */
    default Work scatter(final Buffer send, final Buffer recv, final long count, final DataType type, final int root,
        final Stream stream)
    {
        throw new JcclInvalidUsageException(getClass().getSimpleName() + " has no scatter");
    }

    /**
     * Registers a buffer with this communicator (NCCL's {@code ncclCommRegister}); closing the registration
     * deregisters it. The registration says whether the ranks in other processes read the buffer in place: yes for
     * memory from jccl's shared allocator ({@code Jccl.allocate}), no for memory private to this process, which is
     * staged. This default, for communicators that are not jccl's, says no.
     *
     * @param buffer the buffer.
     * @return the registration.
     * @throws JcclInvalidArgumentException if the buffer is null.
     */
    default BufferRegistration register(final Buffer buffer)
    {
        return new BufferRegistration(buffer, false);
    }

    /**
     * Ends every pending call of this communicator and of the ranks it shares calls with, with
     * {@link JcclAbortedException}, and wakes every waiter. Ranks in other processes are told, within milliseconds:
     * their pending and later calls fail with a {@link JcclAbortedException} that names this rank as the one that
     * aborted (not as dead). The communicator is unusable afterwards.
     */
    void abort();

    /**
     * Splits this communicator ({@code ncclCommSplit}): every rank calls it, blocking, with a color and a key; ranks
     * of the same color form a new communicator, ranked by key and then by rank here. The new communicators share
     * nothing with this one (their own connections, the same settings); this one stays usable.
     *
     * @param color {@link #SPLIT_NOCOLOR} to join none, else 0 or more.
     * @param key   orders the ranks of one color.
     * @return this rank's new communicator, or null for {@link #SPLIT_NOCOLOR}.
     * @throws JcclInvalidArgumentException if the color is negative but not {@link #SPLIT_NOCOLOR}.
     * @throws JcclTimeoutException         if some rank does not call it within the deadline.
     * @throws JcclInvalidUsageException    where this kind of communicator cannot split.
     */
    default Communicator split(final int color, final int key)
    {
        throw new JcclInvalidUsageException(getClass().getSimpleName() + " cannot split");
    }

    /** @return the error that broke this communicator (as {@code ncclCommGetAsyncError}), or null if none. */
    JcclException asyncError();

    /**
     * Waits for this rank's pending calls, then releases its resources. Later calls throw
     * {@link JcclInvalidUsageException}.
     */
    @Override
    void close();
}
