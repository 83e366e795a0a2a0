package io.jccl.core;

import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.kernels.HostReducer;

/**
 * One rank's executor of one Program under one protocol and transport, rebound for every call: the Java executor on
 * the host ({@link RankExecution}) or the interpreter kernel on a CUDA device ({@link CudaExecution}).
 */
interface Execution
{
    /**
     * Binds a call and starts it where the executor runs asynchronously (a kernel launch).
     *
     * @param call           the call.
     * @param reducer        the arithmetic, or null for collectives that only move data.
     * @param premulInput    true when reads of the input buffer are premultiplied (PreMulSum, AVG on floats).
     * @param inputAddress   address of the input, 0 if none.
     * @param outputAddress  address of the output, 0 if none.
     * @param scratchAddress host scratch of the Program's size, 0 if none or if the executor keeps its own.
     * @param inputElements  elements of the input buffer.
     * @param outputElements elements of the output buffer.
     * @param chunkBytes     the plan's pipelining grain.
     * @param planHash       the plan's hash, carried in slot headers.
     */
    void bind(Call call, HostReducer reducer, boolean premulInput, long inputAddress, long outputAddress,
        long scratchAddress, long inputElements, long outputElements, int chunkBytes, long planHash);

    /** @return true when the executor keeps its own scratch memory (the caller passes none). */
    boolean ownScratch();

    /** @return work done by this thread; 0 if it waits. */
    int doWork();

    /** @return true when the call is complete and its buffers are the caller's again. */
    boolean isComplete();

    /**
     * Stops the call where it waits.
     *
     * @param timeoutMs the deadline that passed.
     * @return the error naming where it waits.
     */
    io.jccl.JcclTimeoutException timeout(long timeoutMs);

    /**
     * Where a stalled call waits, for the ranks that follow the chain of waits ({@link WhoIsBehind}): read on a
     * stalled poll, so it may scan the call's state but must not block or allocate much.
     *
     * @return the peer rank the call waits on (to receive from it, or for room at it), or -1 where it waits on none
     *         or cannot tell (a kernel on a device).
     */
    default int waitsOn()
    {
        return -1;
    }

    /** Stops what still runs of a call that failed (a kernel still waiting on a dead peer); nothing on the host. */
    default void abandon()
    {
    }

    /** @return the protocol. */
    Protocol protocol();

    /** @return the transport. */
    TransportKind transport();

    /** @return channels the Program uses. */
    int channels();

    /** @return slots sent by the latest call. */
    long slotsSent();

    /** @return bytes copied into slots by the latest call. */
    long bytesStaged();

    /** @return bytes read in place by peers in the latest call. */
    long bytesDirect();

    /** @return true when integer AVG's division already ran (on the device). */
    boolean dividesAverage();
}
