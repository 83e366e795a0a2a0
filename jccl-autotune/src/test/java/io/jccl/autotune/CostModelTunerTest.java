package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CostModelTunerTest
{
    private static final long MIB_64 = 64L << 20;
    private static final CostModelTuner TUNER = CostModelTuner.defaults();

    private static PlanRequest request(final Collective collective, final long bytes, final int ranks)
    {
        return new PlanRequest(collective, DataType.FLOAT32, bytes, ranks);
    }

    @Test
    void shouldChooseSimpleOverP2pWhenTheCallIsEightBytes()
    {
        for (final int ranks : new int[] {2, 4, 8})
        {
            final Plan plan = TUNER.choose(request(Collective.ALL_REDUCE, 8, ranks));
            // on the host LL's flagged words save no handoff, only add work (2 processes, 128 B-1 KiB: 1.2-2.0x)
            assertEquals(Protocol.SIMPLE, plan.protocol(), plan.id());
            assertEquals(TransportKind.P2P, plan.transport(), plan.id());
        }
    }

    @Test
    void shouldChooseSimpleWhenTheCallIs64MiB()
    {
        for (final Collective collective : new Collective[] {Collective.ALL_REDUCE, Collective.ALL_GATHER,
            Collective.REDUCE_SCATTER, Collective.BROADCAST, Collective.REDUCE})
        {
            final Plan plan = TUNER.choose(request(collective, MIB_64, 4));
            assertEquals(Protocol.SIMPLE, plan.protocol(), collective + " " + plan.id());
            assertEquals(Algorithm.RING, plan.algorithm(), collective + " " + plan.id());
        }
    }

    @Test
    void shouldRespectAConstraintForbiddingLl()
    {
        final CostModelTuner noLl = new CostModelTuner(Calibration.defaults(),
            PlanConstraints.parse(null, "^LL", null, null, null, null, null));
        final Plan plan = noLl.choose(request(Collective.ALL_REDUCE, 8, 2));
        assertNotEquals(Protocol.LL, plan.protocol());
        assertTrue(noLl.constraints().allows(Collective.ALL_REDUCE, plan));
        for (final Prediction prediction : noLl.table(request(Collective.ALL_REDUCE, 8, 2)))
        {
            assertNotEquals(Protocol.LL, prediction.plan().protocol());
        }
    }

    @Test
    void shouldChooseThePinnedPlanWhenEveryKnobIsPinned()
    {
        final CostModelTuner pinned = new CostModelTuner(Calibration.defaults(),
            PlanConstraints.parse("tree", "ll128", "shm", "3", "3", "512", "100K"));
        assertEquals(new Plan(Algorithm.TREE, Protocol.LL128, TransportKind.SHM, 3, 512, 100 << 10),
            pinned.choose(request(Collective.ALL_REDUCE, MIB_64, 4)));
        assertEquals(new Plan(Algorithm.RING, Protocol.LL128, TransportKind.SHM, 3, 512, 100 << 10),
            pinned.choose(request(Collective.ALL_GATHER, MIB_64, 4)));
    }

    @Test
    void shouldNeverChooseTreeWhenTheCollectiveCannotRunOne()
    {
        final CostModelTuner treeWanted = new CostModelTuner(Calibration.defaults(),
            PlanConstraints.parse("tree", null, null, null, null, null, null));
        for (final Collective collective : new Collective[] {Collective.ALL_GATHER, Collective.REDUCE_SCATTER,
            Collective.ALL_TO_ALL})
        {
            for (final int ranks : new int[] {2, 3, 8})
            {
                for (long bytes = 1; bytes <= MIB_64; bytes *= 16)
                {
                    assertEquals(Algorithm.RING, TUNER.choose(request(collective, bytes, ranks)).algorithm());
                    assertEquals(Algorithm.RING, treeWanted.choose(request(collective, bytes, ranks)).algorithm());
                }
            }
        }
    }

    @Test
    void shouldChooseTheSamePlanWhateverTheInstanceWhenAskedTheSameRequest()
    {
        final CostModelTuner other = new CostModelTuner(Calibration.defaults(2), PlanConstraints.none());
        for (final Collective collective : Collective.values())
        {
            for (final int ranks : new int[] {1, 2, 5, 8})
            {
                for (long bytes = 0; bytes <= MIB_64; bytes = bytes == 0 ? 1 : bytes * 32)
                {
                    final PlanRequest request = request(collective, bytes, ranks);
                    final Plan plan = TUNER.choose(request);
                    assertEquals(plan, other.choose(request));
                    assertEquals(plan, TUNER.choose(request));
                    assertEquals(plan, TUNER.table(request).get(0).plan());
                }
            }
        }
    }

    @Test
    void shouldBreakTiesByTheCandidateOrderWhenPredictionsAreEqual()
    {
        final PlanRequest single = request(Collective.ALL_REDUCE, 1 << 20, 1);
        assertEquals(KnobSpace.candidates(single, PlanConstraints.none()).get(0), TUNER.choose(single));
        assertEquals(new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1, 256, 32 << 10),
            TUNER.choose(single));
    }

    @Test
    void shouldListEveryCandidateFastestFirstWhenAskedForTheTable()
    {
        final PlanRequest request = request(Collective.BROADCAST, 1 << 20, 5);
        final List<Prediction> table = TUNER.table(request);
        assertEquals(KnobSpace.candidates(request, PlanConstraints.none()).size(), table.size());
        for (int i = 1; i < table.size(); i++)
        {
            assertTrue(table.get(i - 1).nanos() <= table.get(i).nanos());
        }
        assertEquals(TUNER.model().predictNanos(request, table.get(0).plan()), table.get(0).nanos());
    }

    @Test
    void shouldRenderTheFastestPredictionsWhenDescribing()
    {
        final PlanRequest request = request(Collective.ALL_REDUCE, 1 << 20, 4);
        final String text = TUNER.describe(request);
        final String[] lines = text.split("\\R");
        assertEquals(2 + CostModelTuner.DESCRIBE_ROWS, lines.length, text);
        assertTrue(lines[0].startsWith("cost model: allreduce 1048576 bytes, 4 ranks on 1 node, pins: none;"),
            lines[0]);
        assertTrue(lines[2].contains(" 1  " + TUNER.choose(request).id()), lines[2]);
        assertEquals(3 + 2, TUNER.describe(request, 3).split("\\R").length);
        assertThrows(JcclInvalidArgumentException.class, () -> TUNER.describe(request, 0));
    }
}
