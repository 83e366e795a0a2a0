package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PinnedTunerTest
{
    @Test
    void shouldAnswerThePinsWhenAsked()
    {
        final Plan plan = new PinnedTuner(Algorithm.TREE, Protocol.LL, 3, 4096)
            .choose(new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 1 << 20, 4));
        assertEquals(new Plan(Algorithm.TREE, Protocol.LL, TransportKind.P2P, 3, PinnedTuner.HOST_THREADS, 4096),
            plan);
    }

    @Test
    void shouldRunRingWhenNoAlgorithmIsPinned()
    {
        assertEquals(Algorithm.RING, new PinnedTuner(null, null, 1, 1)
            .choose(new PlanRequest(Collective.BROADCAST, DataType.INT8, 8, 2)).algorithm());
    }
}
