package io.jccl.bench;

/**
 * Element counts of one call for one message size, as nccl-tests' {@code getCollByteCount} computes them.
 *
 * @param sendCount         elements in each rank's send buffer.
 * @param recvCount         elements in each rank's receive buffer.
 * @param paramCount        the count passed to the collective (per rank for AllGather and ReduceScatter); the
 *                          table's {@code count} column.
 * @param sendInplaceOffset in-place: the send buffer starts {@code sendInplaceOffset x rank} elements into the
 *                          receive buffer.
 * @param recvInplaceOffset in-place: the receive buffer starts {@code recvInplaceOffset x rank} elements into the
 *                          receive buffer.
 */
public record CollByteCount(long sendCount, long recvCount, long paramCount, long sendInplaceOffset,
    long recvInplaceOffset)
{
    /**
     * @param elementSize bytes per element.
     * @return the table's {@code size} column: the larger of the send and receive buffers, in bytes.
     */
    public long tableBytes(final int elementSize)
    {
        return Math.max(sendCount, recvCount) * elementSize;
    }
}
