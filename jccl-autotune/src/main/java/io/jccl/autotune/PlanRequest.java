package io.jccl.autotune;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;

/**
 * What a tuner is asked to decide for: one call shape on one communicator. The fields after {@code ranks} are
 * the inputs NCCL's tuner plugin receives ({@code nNodes}, {@code numPipeOps}, {@code regBuff}), so a tuner table
 * written for NCCL matches the same way.
 *
 * @param collective the collective.
 * @param type       the element type (informational: no tuner here decides by it).
 * @param bytes      NCCL's {@code nBytes}: the whole buffer for AllGather (output) and ReduceScatter (input), the
 *                   buffer for the others (DESIGN.md, "Sizes"); at least 0.
 * @param ranks      the communicator's rank count, at least 1.
 * @param nodes      the hosts the ranks span, 1..{@code ranks}.
 * @param pipeOps    calls aggregated into one launch (NCCL's {@code numPipeOps}), at least 1.
 * @param registered true when the user buffers are registered, so a peer may read them directly (NCCL's
 *                   {@code regBuff}).
 */
public record PlanRequest(Collective collective, DataType type, long bytes, int ranks, int nodes, int pipeOps,
    boolean registered)
{
    /**
     * Validates every field, naming it.
     *
     * @param collective the collective.
     * @param type       the element type (informational: no tuner here decides by it).
     * @param bytes      NCCL's {@code nBytes}, at least 0.
     * @param ranks      the communicator's rank count, at least 1.
     * @param nodes      the hosts the ranks span, 1..{@code ranks}.
     * @param pipeOps    calls aggregated into one launch, at least 1.
     * @param registered true when the user buffers are registered.
     * @throws JcclInvalidArgumentException on a null collective or an out-of-range count.
     */
    public PlanRequest
    {
        if (collective == null)
        {
            throw new JcclInvalidArgumentException("collective is null");
        }
        if (bytes < 0)
        {
            throw new JcclInvalidArgumentException("bytes=" + bytes + " is negative");
        }
        if (ranks < 1)
        {
            throw new JcclInvalidArgumentException("ranks=" + ranks + " is not positive");
        }
        if (nodes < 1 || nodes > ranks)
        {
            throw new JcclInvalidArgumentException("nodes=" + nodes + " is outside 1..ranks (" + ranks + ")");
        }
        if (pipeOps < 1)
        {
            throw new JcclInvalidArgumentException("pipeOps=" + pipeOps + " is not positive");
        }
    }

    /**
     * A call on one host, not aggregated, on unregistered buffers.
     *
     * @param collective the collective.
     * @param type       the element type.
     * @param bytes      NCCL's {@code nBytes}, at least 0.
     * @param ranks      the communicator's rank count, at least 1.
     * @throws JcclInvalidArgumentException on a null collective or an out-of-range count.
     */
    public PlanRequest(final Collective collective, final DataType type, final long bytes, final int ranks)
    {
        this(collective, type, bytes, ranks, 1, 1, false);
    }

    /** @return the ranks on one host: {@code ceil(ranks / nodes)}, the ranks that share its cores. */
    public int ranksPerNode()
    {
        return (ranks + nodes - 1) / nodes;
    }
}
