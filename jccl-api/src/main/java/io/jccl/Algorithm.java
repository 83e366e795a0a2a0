package io.jccl;

/** The algorithm a collective runs: a generator of Programs.
 * Ids and names are stable: they reach files and the wire. */
public enum Algorithm
{
    /** Ring: ranks in a cycle, each rank-segment pipelined by channel and chunk. */
    RING(0, "ring"),
    /** Tree: a pipelined binary tree (AllReduce, Broadcast, Reduce). */
    TREE(1, "tree"),
    /**
     * Direct (AllReduce, AllGather, ReduceScatter; jccl's own, not one of NCCL's): every rank sends every other rank
     * what it needs in one message and reduces what it receives in rank order, so every rank computes the same
     * bits. One message on the critical path instead of the ring's n-1 (2(n-1) for AllReduce) or the tree's 2 log2(n);
     * for AllReduce at n-1 times the ring's traffic (an algorithm for small calls, as TensorRT-LLM's and vLLM's
     * one-shot AllReduce), for AllGather and ReduceScatter at the ring's.
     */
    DIRECT(2, "direct");

    private final int id;
    private final String lowerName;

    Algorithm(final int id, final String lowerName)
    {
        this.id = id;
        this.lowerName = lowerName;
    }

    /** @return the stable id. */
    public int id()
    {
        return id;
    }

    /** @return the stable lower-case name. */
    public String lowerName()
    {
        return lowerName;
    }

    /**
     * @param name a lower-case name or a constant's name, in any case.
     * @return the constant of that name.
     * @throws JcclInvalidArgumentException if none has that name.
     */
    public static Algorithm fromName(final String name)
    {
        return EnumNames.lookup(values(), Algorithm::lowerName, name, "algorithm");
    }
}
