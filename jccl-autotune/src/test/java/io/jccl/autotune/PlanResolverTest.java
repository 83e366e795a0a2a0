package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.schedules.msccl.ScheduleRegistry;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DESIGN.md's precedence, resolved in one place: pin, schedule, table, online tuner, cost model. */
class PlanResolverTest
{
    /** jccl-schedules' own 2-rank in-place AllReduce (2 chunks per loop). */
    private static final Path SCHEDULE = Path.of("..", "jccl-schedules", "src", "test", "resources", "msccl",
        "allreduce-2.xml");
    private static final int SLOT = 64 << 10;
    /** 1 KiB of floats on 2 ranks: the schedule serves it in place. */
    private static final PlanRequest REQUEST = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 1024, 2, 1, 1,
        false);
    private static final String TABLE_LINE = "allreduce,0,65536,tree,ll,1,-1,-1";

    @Test
    void shouldRunTheScheduleUnderAPlanNamingItWhenNothingPinsTheAlgorithm()
    {
        final PlanResolver.Resolution resolution = resolver(PlanConstraints.none(), true, null, TABLE_LINE)
            .resolve(REQUEST, true, 256);
        assertEquals(PlanResolver.Source.SCHEDULE, resolution.source(), "a schedule beats the table and the tuner");
        assertEquals("allreduce_2", resolution.plan().schedule());
        assertTrue(resolution.plan().id().startsWith("schedule:allreduce_2/simple/p2p/c1/"), resolution.plan()::id);
        assertNotEquals(resolution.plan().withAlgorithm(Algorithm.RING).stableHash(), resolution.plan().stableHash(),
            "slot headers tell a schedule's plan from the ring's");
        assertEquals(Math.min(SLOT, 128 << 10), resolution.plan().chunkBytes());
    }

    @Test
    void shouldFallToTheTableThenTheTunerThenTheModelWhenNoScheduleServesTheCall()
    {
        // out of place: the schedule serves in-place calls only
        final PlanResolver.Resolution table = resolver(PlanConstraints.none(), true, null, TABLE_LINE)
            .resolve(REQUEST, false, 256);
        assertEquals(PlanResolver.Source.TABLE, table.source());
        assertEquals(new Plan(Algorithm.TREE, Protocol.LL, table.plan().transport(), 1, table.plan().threads(),
            table.plan().chunkBytes()), table.plan());
        assertNull(table.plan().schedule());
        final PlanResolver.Resolution online = resolver(PlanConstraints.none(), true, null).resolve(REQUEST, false,
            256);
        assertEquals(PlanResolver.Source.ONLINE, online.source());
        assertNull(online.plan(), "the online tuner's plans come call by call");
        final PlanResolver.Resolution model = resolver(PlanConstraints.none(), false, null).resolve(REQUEST, false,
            256);
        assertEquals(PlanResolver.Source.MODEL, model.source());
        assertEquals(resolver(PlanConstraints.none(), false, null).runnable(
            CostModelTuner.defaults().choose(REQUEST), Collective.ALL_REDUCE), model.plan());
    }

    @Test
    void shouldAskNeitherScheduleNorTunerWhenTheAlgorithmIsPinned()
    {
        final PlanConstraints ring = PlanConstraints.parse("ring", null, null, null, null, null, null);
        final PlanResolver.Resolution resolution = resolver(ring, true, null).resolve(REQUEST, true, 256);
        assertEquals(PlanResolver.Source.PIN, resolution.source());
        assertEquals(Algorithm.RING, resolution.plan().algorithm());
        assertNull(resolution.schedule());
        assertNull(resolution.plan().schedule());
    }

    @Test
    void shouldShapeUnpinnedKnobsForTheDeviceButNeverAScheduleWhenOnAGpu()
    {
        final DeviceCostModel gpu = new DeviceCostModel(132, 2, 1 << 20, 16 << 10, 512);
        final PlanResolver.Resolution model = resolver(PlanConstraints.none(), false, gpu).resolve(REQUEST, false, 256);
        assertEquals(512, model.plan().threads());
        assertEquals(1, model.plan().channels(), "1 KiB runs on one block");
        final PlanResolver.Resolution schedule = resolver(PlanConstraints.none(), false, gpu).resolve(REQUEST, true,
            256);
        assertEquals(PinnedTuner.HOST_THREADS, schedule.plan().threads(), "a schedule keeps the file's plan");
        final Plan big = gpu.shape(new Plan(Algorithm.RING, Protocol.LL128, TransportKind.P2P, 1, 256, 4096),
            64L << 20, PlanConstraints.none());
        assertEquals(16, big.channels());
        assertEquals(Protocol.SIMPLE, big.protocol(), "LL128 is not built for CUDA: SIMPLE unless pinned");
        assertEquals(1 << 20, big.chunkBytes());
    }

    private static PlanResolver resolver(final PlanConstraints constraints, final boolean online,
        final DeviceCostModel device, final String... table)
    {
        final CostModelTuner model = new CostModelTuner(Calibration.defaults(), constraints);
        final TunerChain chain = new TunerChain(constraints, table.length == 0 ? null :
            TableTuner.parse("t.csv", List.of(table), model), model);
        return new PlanResolver(chain, ScheduleRegistry.load(List.of(SCHEDULE)), online, device, 128 << 10,
            protocol -> SLOT);
    }
}
