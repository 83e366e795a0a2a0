package io.jccl.autotune;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlanRequestTest
{
    @Test
    void shouldDefaultToOneNodeOneOpUnregisteredWhenBuiltWithFourArguments()
    {
        final PlanRequest request = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 4096, 4);
        assertEquals(1, request.nodes());
        assertEquals(1, request.pipeOps());
        assertFalse(request.registered());
        assertEquals(new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 4096, 4, 1, 1, false), request);
    }

    @Test
    void shouldCountRanksPerNodeRoundingUpWhenNodesAreUneven()
    {
        assertEquals(3, new PlanRequest(Collective.ALL_GATHER, DataType.INT8, 0, 5, 2, 1, true).ranksPerNode());
        assertEquals(4, new PlanRequest(Collective.ALL_GATHER, DataType.INT8, 0, 8, 2, 1, true).ranksPerNode());
    }

    @Test
    void shouldRejectOutOfRangeFieldsNamingThem()
    {
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new PlanRequest(null, DataType.INT8, 1, 1)).getMessage().contains("collective"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new PlanRequest(Collective.REDUCE, DataType.INT8, -1, 1)).getMessage().contains("bytes"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new PlanRequest(Collective.REDUCE, DataType.INT8, 1, 0)).getMessage().contains("ranks"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new PlanRequest(Collective.REDUCE, DataType.INT8, 1, 2, 3, 1, false)).getMessage()
            .contains("nodes"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new PlanRequest(Collective.REDUCE, DataType.INT8, 1, 2, 1, 0, false)).getMessage()
            .contains("pipeOps"));
    }
}
