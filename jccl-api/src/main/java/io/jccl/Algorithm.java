package io.jccl;

/** The algorithm a collective runs: a generator of Programs.
 * Ids and names are stable: they reach files and the wire. */
public enum Algorithm
{
    /** Ring: ranks in a cycle, each rank-segment pipelined by channel and chunk. */
    RING(0, "ring"),
    /** Tree: a pipelined binary tree (AllReduce, Broadcast, Reduce). */
    TREE(1, "tree");

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
