package io.jccl.schedules;

/**
 * The step verbs of a worker: NCCL's primitives under MSCCL's names ({@code s r rcs rrs rrc rrcs cpy re nop}).
 * "Receive" consumes the next slot from the worker's receive peer, "send" fills the next slot to its send peer,
 * "reduce" combines received data with the step's source chunk, "copy" stores into the destination chunk.
 */
public enum Opcode
{
    /** Nothing: a dependency point. */
    NOP("nop", false, false, false, false, false),
    /** Send the source chunk. */
    SEND("s", false, true, true, false, false),
    /** Receive into the destination chunk. */
    RECV("r", true, false, false, true, false),
    /** Receive into the destination chunk and forward what was received. */
    RECV_COPY_SEND("rcs", true, true, false, true, false),
    /** Receive, reduce with the source chunk and send the result (not stored locally). */
    RECV_REDUCE_SEND("rrs", true, true, true, false, true),
    /** Receive, reduce with the source chunk and store into the destination chunk. */
    RECV_REDUCE_COPY("rrc", true, false, true, true, true),
    /** Receive, reduce with the source chunk, store into the destination chunk and send the result. */
    RECV_REDUCE_COPY_SEND("rrcs", true, true, true, true, true),
    /** Copy the source chunk to the destination chunk. */
    COPY("cpy", false, false, true, true, false),
    /** Reduce the source chunk into the destination chunk: dst = op(dst, src). */
    REDUCE("re", false, false, true, true, true);

    private static final Opcode[] VALUES = values();

    private final String mscclName;
    private final boolean receives;
    private final boolean sends;
    private final boolean readsSource;
    private final boolean writesDestination;
    private final boolean reduces;

    Opcode(final String mscclName, final boolean receives, final boolean sends, final boolean readsSource,
        final boolean writesDestination, final boolean reduces)
    {
        this.mscclName = mscclName;
        this.receives = receives;
        this.sends = sends;
        this.readsSource = readsSource;
        this.writesDestination = writesDestination;
        this.reduces = reduces;
    }

    /** @return the name MSCCL XML uses ({@code rrcs}, ...). */
    public String mscclName()
    {
        return mscclName;
    }

    /** @return true if the step consumes a slot from the receive peer. */
    public boolean receives()
    {
        return receives;
    }

    /** @return true if the step fills a slot to the send peer. */
    public boolean sends()
    {
        return sends;
    }

    /** @return true if the step reads its source chunk. */
    public boolean readsSource()
    {
        return readsSource;
    }

    /** @return true if the step writes its destination chunk. */
    public boolean writesDestination()
    {
        return writesDestination;
    }

    /** @return true if the step applies the reduction operator. */
    public boolean reduces()
    {
        return reduces;
    }

    /**
     * @param ordinal an ordinal as stored in step records.
     * @return the opcode of an ordinal, as stored in step records.
     */
    public static Opcode of(final int ordinal)
    {
        return VALUES[ordinal];
    }

    /**
     * @param name an MSCCL step type.
     * @return the opcode, or null if the name is not a step type.
     */
    public static Opcode fromMscclName(final String name)
    {
        for (final Opcode op : VALUES)
        {
            if (op.mscclName.equals(name))
            {
                return op;
            }
        }
        return null;
    }
}
