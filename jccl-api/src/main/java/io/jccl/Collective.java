package io.jccl;

/** The collectives, with stable ids and the lower-case names MSCCL XML uses for them. */
public enum Collective
{
    /** Every rank gets the reduction of all inputs. */
    ALL_REDUCE(0, "allreduce", true),
    /** Every rank gets the concatenation of all inputs, in rank order. */
    ALL_GATHER(1, "allgather", false),
    /** Rank r gets segment r of the reduction of all inputs. */
    REDUCE_SCATTER(2, "reducescatter", true),
    /** Every rank gets the root's input. */
    BROADCAST(3, "broadcast", false),
    /** The root gets the reduction of all inputs. */
    REDUCE(4, "reduce", true),
    /** Rank r gets block r of every rank's input (schedules only for now). */
    ALL_TO_ALL(5, "alltoall", false);

    private final int id;
    private final String xmlName;
    private final boolean reducing;

    Collective(final int id, final String xmlName, final boolean reducing)
    {
        this.id = id;
        this.xmlName = xmlName;
        this.reducing = reducing;
    }

    /** @return the stable id. */
    public int id()
    {
        return id;
    }

    /** @return the stable lower-case name ({@code allreduce}, ...). */
    public String xmlName()
    {
        return xmlName;
    }

    /** @return true when the collective combines inputs with a {@link ReduceOp}. */
    public boolean isReducing()
    {
        return reducing;
    }

    /** @return true for Broadcast and Reduce, which take a root. */
    public boolean isRooted()
    {
        return this == BROADCAST || this == REDUCE;
    }

    /**
     * @param count the call's count as NCCL's API takes it (per-rank send count for AllGather, per-rank receive count
     *              for ReduceScatter, per-peer count for AllToAll).
     * @param ranks the rank count.
     * @return elements of the send buffer.
     */
    public long inputCount(final long count, final int ranks)
    {
        return this == REDUCE_SCATTER || this == ALL_TO_ALL ? Math.multiplyExact(count, ranks) : count;
    }

    /**
     * @param count the call's count as NCCL's API takes it.
     * @param ranks the rank count.
     * @return elements of the receive buffer.
     */
    public long outputCount(final long count, final int ranks)
    {
        return this == ALL_GATHER || this == ALL_TO_ALL ? Math.multiplyExact(count, ranks) : count;
    }

    /**
     * @param count the call's count as NCCL's API takes it.
     * @param ranks the rank count.
     * @return elements of the whole per-rank buffer: NCCL's {@code nBytes} over the type size (DESIGN.md, "Sizes"),
     *         and MSCCL's {@code N}.
     */
    public long totalCount(final long count, final int ranks)
    {
        return Math.max(inputCount(count, ranks), outputCount(count, ranks));
    }
}
