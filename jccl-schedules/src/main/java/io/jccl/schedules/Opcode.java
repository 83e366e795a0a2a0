package io.jccl.schedules;

/**
 * The step verbs of a worker: NCCL's primitives under MSCCL's names ({@code s r rcs rrs rrc rrcs cpy re nop}), and
 * jccl's {@code rrcr}.
 * "Receive" consumes the next slot from the worker's receive peer, "send" fills the next slot to its send peer,
 * "reduce" combines received data with the step's source chunk, "copy" stores into the destination chunk.
 */
public enum Opcode
{
    /** Nothing: a dependency point. */
    NOP(StepWire.OP_NOP, false, false, false, false, false),
    /** Send the source chunk. */
    SEND(StepWire.OP_SEND, false, true, true, false, false),
    /** Receive into the destination chunk. */
    RECV(StepWire.OP_RECV, true, false, false, true, false),
    /** Receive into the destination chunk and forward what was received. */
    RECV_COPY_SEND(StepWire.OP_RECV_COPY_SEND, true, true, false, true, false),
    /** Receive, reduce with the source chunk and send the result (not stored locally). */
    RECV_REDUCE_SEND(StepWire.OP_RECV_REDUCE_SEND, true, true, true, false, true),
    /** Receive, reduce with the source chunk and store into the destination chunk. */
    RECV_REDUCE_COPY(StepWire.OP_RECV_REDUCE_COPY, true, false, true, true, true),
    /** Receive, reduce with the source chunk, store into the destination chunk and send the result. */
    RECV_REDUCE_COPY_SEND(StepWire.OP_RECV_REDUCE_COPY_SEND, true, true, true, true, true),
    /** Copy the source chunk to the destination chunk. */
    COPY(StepWire.OP_COPY, false, false, true, true, false),
    /** Reduce the source chunk into the destination chunk: dst = op(dst, src). */
    REDUCE(StepWire.OP_REDUCE, false, false, true, true, true),
    /**
     * Receive, reduce with the source chunk as the first operand and store into the destination chunk:
     * dst = op(src, received), where {@link #RECV_REDUCE_COPY} computes op(received, src). jccl's own step (MSCCL
     * name {@code rrcr}): it lets a rank put its own input first in one step, where the same order otherwise takes a
     * copy, a receive into scratch and a reduce.
     */
    RECV_REDUCE_COPY_REVERSED(StepWire.OP_RECV_REDUCE_COPY_REVERSED, true, false, true, true, true);

    private static final Opcode[] VALUES = values();
    /** The opcodes by their id in step records (cuda-src/jccl_wire.def). */
    private static final Opcode[] BY_ID = new Opcode[StepWire.MSCCL_NAMES.length];

    static
    {
        for (final Opcode op : VALUES)
        {
            BY_ID[op.id] = op;
        }
    }

    private final int id;
    private final String mscclName;
    private final boolean receives;
    private final boolean sends;
    private final boolean readsSource;
    private final boolean writesDestination;
    private final boolean reduces;

    Opcode(final int id, final boolean receives, final boolean sends, final boolean readsSource,
        final boolean writesDestination, final boolean reduces)
    {
        this.id = id;
        this.mscclName = StepWire.MSCCL_NAMES[id];
        this.receives = receives;
        this.sends = sends;
        this.readsSource = readsSource;
        this.writesDestination = writesDestination;
        this.reduces = reduces;
    }

    /** @return the id step records carry, from the wire contract (cuda-src/jccl_wire.def). */
    public int id()
    {
        return id;
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
     * @param id an opcode's id, as stored in step records.
     * @return the opcode of that id.
     */
    public static Opcode of(final int id)
    {
        return BY_ID[id];
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
