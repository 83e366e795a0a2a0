package io.jccl.schedules;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Opcodes travel in step records by the wire contract's ids (cuda-src/jccl_wire.def), not by enum position. */
class OpcodeIdTest
{
    @Test
    void shouldReadBackEveryOpcodeFromItsIdWhenDecodingARecord()
    {
        for (final Opcode op : Opcode.values())
        {
            assertSame(op, Opcode.of(op.id()));
            assertSame(op, Opcode.fromMscclName(op.mscclName()));
            assertEquals(StepWire.MSCCL_NAMES[op.id()], op.mscclName());
        }
        assertEquals(StepWire.OP_RECV_REDUCE_COPY_SEND, Opcode.RECV_REDUCE_COPY_SEND.id());
        assertEquals("rrcs", Opcode.RECV_REDUCE_COPY_SEND.mscclName());
    }
}
