package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TunerChainTest
{
    private static final PlanRequest TINY = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 8, 4);
    private static final PlanRequest LARGE = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 64L << 20, 4);

    private static TunerChain chain(final PlanConstraints constraints, final String... lines)
    {
        final CostModelTuner model = new CostModelTuner(Calibration.defaults(), constraints);
        final TableTuner table = lines.length == 0 ? null : TableTuner.parse("t.csv", List.of(lines), model);
        return new TunerChain(constraints, table, model);
    }

    @Test
    void shouldAnswerTheCostModelWhenThereIsNoTable()
    {
        final TunerChain chain = chain(PlanConstraints.none());
        assertNull(chain.table());
        assertEquals(CostModelTuner.defaults().choose(LARGE), chain.choose(LARGE));
        assertEquals("cost model -> " + chain.model().choose(TINY).id(), chain.explain(TINY));
    }

    @Test
    void shouldAnswerTheTableWhenALineMatchesAndThePinsAllowIt()
    {
        final TunerChain chain = chain(PlanConstraints.none(), "allreduce,0,4294967295,tree,ll128,2,-1,-1");
        final Plan plan = chain.choose(LARGE);
        assertEquals(Algorithm.TREE, plan.algorithm());
        assertEquals(Protocol.LL128, plan.protocol());
        assertEquals(2, plan.channels());
        // the rest comes from the cost model, the table's fallback
        assertEquals(chain.model().choose(LARGE).transport(), plan.transport());
        assertEquals("table t.csv:1 -> " + plan.id(), chain.explain(LARGE));
    }

    @Test
    void shouldAnswerTheCostModelWhenThePinsRejectTheTablesPlan()
    {
        final PlanConstraints noLl = PlanConstraints.parse(null, "^ll", null, null, null, null, null);
        final TunerChain chain = chain(noLl, "allreduce,0,100,ring,ll,-1,-1,-1");
        final Plan plan = chain.choose(TINY);
        assertEquals(chain.model().choose(TINY), plan);
        assertNotEquals(Protocol.LL, plan.protocol());
        assertTrue(noLl.allows(Collective.ALL_REDUCE, plan));
        final String explanation = chain.explain(TINY);
        assertTrue(explanation.startsWith("cost model -> " + plan.id() + " (table t.csv:1 gave ring/ll/"),
            explanation);
        assertTrue(explanation.endsWith("not allowed by JCCL_PROTO=simple,ll128)"), explanation);
    }

    @Test
    void shouldAnswerTheCostModelWhenNoLineMatches()
    {
        final TunerChain chain = chain(PlanConstraints.none(), "broadcast,0,100,ring,ll,-1,-1,-1");
        assertEquals(chain.model().choose(TINY), chain.choose(TINY));
    }

    @Test
    void shouldLoadTheTableOverTheCostModelWhenCreatedFromSettings(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("tuner.csv");
        Files.write(file, List.of("# jccl table", "allreduce,0,100,ring,ll,-1,-1,-1 # jccl: threads=128",
            "allreduce,0,100,nvls,ll,-1,-1,-1"), StandardCharsets.UTF_8);
        final PlanConstraints constraints = PlanConstraints.parse("nvls,ring,tree", null, null, null, "4", null,
            null);
        final TunerChain chain = TunerChain.create(constraints, Calibration.defaults(), file);
        assertEquals(2, chain.warnings().size(), chain.warnings().toString());
        assertTrue(chain.warnings().get(0).startsWith("JCCL_ALGO: 'nvls'"));
        assertTrue(chain.warnings().get(1).startsWith(file + ":3: algorithm 'nvls'"));
        final Plan plan = chain.choose(TINY);
        assertEquals(128, plan.threads());
        assertEquals(Protocol.LL, plan.protocol());
        assertTrue(plan.channels() <= 4);
        assertEquals(chain.model(), chain.table().fallback());
        assertNull(TunerChain.create(constraints, Calibration.defaults(), null).table());
    }

    @Test
    void shouldHashWhatDecidesThePlan()
    {
        final long none = chain(PlanConstraints.none()).stableHash();
        assertEquals(none, chain(PlanConstraints.none()).stableHash());
        assertNotEquals(none, chain(PlanConstraints.none(), "allreduce,0,1,ring,ll,-1,-1,-1").stableHash());
        assertNotEquals(none, chain(PlanConstraints.none().withThreads(64)).stableHash());
        assertNotEquals(none, new TunerChain(PlanConstraints.none(), null,
            new CostModelTuner(Calibration.defaults(8), PlanConstraints.none())).stableHash());
    }

    @Test
    void shouldRejectMissingParts()
    {
        assertThrows(JcclInvalidArgumentException.class,
            () -> new TunerChain(null, null, CostModelTuner.defaults()));
        assertThrows(JcclInvalidArgumentException.class, () -> new TunerChain(PlanConstraints.none(), null, null));
    }
}
