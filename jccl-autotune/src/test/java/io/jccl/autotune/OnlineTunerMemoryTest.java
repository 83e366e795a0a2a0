package io.jccl.autotune;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.jccl.autotune.OnlineTunerHarness.Landscape;
import static io.jccl.autotune.OnlineTunerHarness.Leader;
import static io.jccl.autotune.OnlineTunerHarness.REQUEST;
import static io.jccl.autotune.OnlineTunerHarness.bowl;
import static io.jccl.autotune.OnlineTunerHarness.ringSimpleP2p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OnlineTunerMemoryTest
{
    private static final Plan DEFAULT = ringSimpleP2p(1, 32 << 10);
    private static final OnlineTunerConfig CONFIG = OnlineTunerConfig.defaults();
    private static final Tuner DEFAULT_TUNER = request -> DEFAULT;
    private static final PlanRequest SMALL = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 4096, 4);
    private static final PlanRequest GATHER = new PlanRequest(Collective.ALL_GATHER, DataType.INT8, 65536, 4);
    /** Each protocol and transport costs differently, and the bowl's bottom is at 4 channels and 64K. */
    private static final Landscape LANDSCAPE = bowl(0.2, 4, 64 << 10, plan ->
        1000 + 400 * plan.protocol().ordinal() + 250 * plan.transport().ordinal() + 150 * plan.algorithm().ordinal());

    @TempDir
    Path directory;

    private static OnlineTuner converged(final PlanRequest... requests)
    {
        final OnlineTuner tuner = new OnlineTuner(CONFIG, DEFAULT_TUNER, PlanConstraints.none());
        for (final PlanRequest request : requests)
        {
            assertTrue(leader(tuner, request).converge(10_000).converged());
        }
        return tuner;
    }

    private static Leader leader(final OnlineTuner tuner, final PlanRequest request)
    {
        return new Leader(tuner, request, LANDSCAPE);
    }

    @Test
    void shouldLoadSavedPlansConvergedAndNeverTuneThemAgain()
    {
        final OnlineTuner first = converged(REQUEST, GATHER);
        final Path file = directory.resolve("memory").resolve("tuner.tsv");
        first.save(file, "host-a:4x2c");

        final OnlineTuner second = OnlineTuner.load(file, "host-a:4x2c", CONFIG, DEFAULT_TUNER,
            PlanConstraints.none());
        for (final PlanRequest request : List.of(REQUEST, GATHER))
        {
            final TaskKey key = second.key(request, ReduceOp.SUM, 7);
            final TaskState saved = first.state(key);
            final TaskState loaded = second.state(key);
            assertNotNull(loaded, key.toString());
            assertTrue(loaded.converged());
            assertEquals(saved.bestPlan(), loaded.bestPlan());
            assertEquals(saved.bestNs(), loaded.bestNs());

            final Leader leader = leader(second, request);
            leader.run(500);
            assertEquals(List.of(saved.bestPlan()), leader.distinct());
            assertEquals(0, second.state(key).trials());
            assertEquals(0, second.state(key).retunes());
        }
        assertTrue(second.warnings().isEmpty());
        assertEquals(2, second.reports().size());
    }

    @Test
    void shouldStartFreshWithAnotherFingerprintOrNoFile()
    {
        final Path file = directory.resolve("tuner.tsv");
        converged(REQUEST).save(file, "host-a");

        final OnlineTuner other = OnlineTuner.load(file, "host-b", CONFIG, DEFAULT_TUNER, PlanConstraints.none());
        final TaskKey key = other.key(REQUEST, ReduceOp.SUM, 7);
        assertNull(other.state(key));
        assertEquals(DEFAULT, other.planFor(key, REQUEST, 0));
        assertTrue(!other.state(key).converged());

        final OnlineTuner none = OnlineTuner.load(directory.resolve("absent.tsv"), "host-a", CONFIG, DEFAULT_TUNER,
            PlanConstraints.none());
        assertTrue(none.reports().isEmpty());
    }

    @Test
    void shouldKeepTheEntriesOfOtherFingerprintsWhenSaving()
    {
        final Path file = directory.resolve("tuner.tsv");
        final OnlineTuner a = converged(REQUEST);
        a.save(file, "host-a");
        final OnlineTuner b = converged(SMALL);
        b.save(file, "host-b");
        b.save(file, "host-b");

        final OnlineTuner loadedA = OnlineTuner.load(file, "host-a", CONFIG, DEFAULT_TUNER, PlanConstraints.none());
        final OnlineTuner loadedB = OnlineTuner.load(file, "host-b", CONFIG, DEFAULT_TUNER, PlanConstraints.none());
        assertEquals(1, loadedA.reports().size());
        assertEquals(REQUEST.bytes(), loadedA.reports().get(0).key().minBytes());
        assertEquals(1, loadedB.reports().size());
        assertEquals(4096, loadedB.reports().get(0).key().minBytes());
    }

    @Test
    void shouldGiveANewCommunicatorThePlanOfATaskOfTheSameShape()
    {
        final Path file = directory.resolve("tuner.tsv");
        final OnlineTuner first = converged(REQUEST);
        first.save(file, "host-a");
        final Plan best = first.state(first.key(REQUEST, ReduceOp.SUM, 7)).bestPlan();

        final OnlineTuner second = OnlineTuner.load(file, "host-a", CONFIG, DEFAULT_TUNER, PlanConstraints.none());
        final TaskKey other = second.key(REQUEST, ReduceOp.SUM, 99);
        assertNull(second.state(other));
        assertEquals(best, second.planFor(other, REQUEST, 0));
        assertTrue(second.state(other).converged());
        final TaskKey otherOp = second.key(REQUEST, ReduceOp.MAX, 7);
        assertEquals(DEFAULT, second.planFor(otherOp, REQUEST, 0), "another operator is another task");
    }

    @Test
    void shouldSkipRememberedPlansTheConstraintsNoLongerAllow()
    {
        final Path file = directory.resolve("tuner.tsv");
        final OnlineTuner first = converged(REQUEST);
        first.save(file, "host-a");
        final Protocol saved = first.reports().get(0).state().bestPlan().protocol();
        final Protocol other = saved == Protocol.LL ? Protocol.SIMPLE : Protocol.LL;

        final OnlineTuner second = OnlineTuner.load(file, "host-a", CONFIG, DEFAULT_TUNER,
            PlanConstraints.none().withProtocols(Set.of(other)));
        assertTrue(second.reports().isEmpty());
        assertEquals(1, second.warnings().size());
        assertTrue(second.warnings().get(0).contains(PlanConstraints.PROTO_ENV), second.warnings().get(0));
    }

    @Test
    void shouldReportEveryMalformedLineOfTheMemoryFile() throws IOException
    {
        final Path file = directory.resolve("bad.tsv");
        final String good = TunerMemory.format(new TunerMemory.Entry("host-a",
            new TaskKey(Collective.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 4, 1, 1024, 2047),
            new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 1024, 4), DEFAULT, 12.5));
        Files.write(file, List.of(TunerMemory.HEADER, good, good.replace("ring/", "spiral/"),
            "host-a\tallreduce", good.replace("\t1024\t1\t", "\t9999\t1\t")), StandardCharsets.UTF_8);

        final TunerConfigException ex = assertThrows(TunerConfigException.class,
            () -> OnlineTuner.load(file, "host-a", CONFIG, DEFAULT_TUNER, PlanConstraints.none()));
        assertEquals(3, ex.errors().size(), ex.getMessage());
        assertTrue(ex.errors().get(0).startsWith(file + ":3: algorithm 'spiral'"), ex.errors().get(0));
        assertTrue(ex.errors().get(1).startsWith(file + ":4: 2 tab-separated fields"), ex.errors().get(1));
        assertTrue(ex.errors().get(2).startsWith(file + ":5: bytes 9999 is outside"), ex.errors().get(2));
    }

    @Test
    void shouldRoundTripAnEntryThroughItsLine()
    {
        final TunerMemory.Entry entry = new TunerMemory.Entry("host a/8 ranks",
            new TaskKey(Collective.BROADCAST, null, null, 8, -3, 0, 0),
            new PlanRequest(Collective.BROADCAST, null, 0, 8, 2, 3, true), ringSimpleP2p(32, 512 << 10), Double.NaN);
        assertEquals(entry, TunerMemory.parse(TunerMemory.format(entry)));
    }

    @Test
    void shouldExportATableThatTableTunerLoadsToTheSamePlans()
    {
        final OnlineTuner tuner = converged(REQUEST, SMALL, GATHER);
        final List<String> lines = tuner.exportTable();
        final TableTuner table = TableTuner.parse("export", lines, null);

        assertEquals(3, table.rows().size(), String.join("\n", lines));
        for (final PlanRequest request : List.of(REQUEST, SMALL, GATHER))
        {
            final TaskKey key = tuner.key(request, ReduceOp.SUM, 7);
            final Plan best = tuner.state(key).bestPlan();
            assertEquals(best, table.lookup(request), key.toString());
            final PlanRequest largest = new PlanRequest(request.collective(), request.type(), key.maxBytes(),
                request.ranks());
            assertEquals(best, table.lookup(largest), "the whole bucket");
        }
        assertNull(table.lookup(new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 4096, 8)));
    }

    @Test
    void shouldLeaveOutOfTheTableTasksItCannotTellApart()
    {
        final OnlineTuner tuner = new OnlineTuner(CONFIG, DEFAULT_TUNER, PlanConstraints.none());
        final Leader first = leader(tuner, REQUEST);
        first.converge(10_000);
        final Leader second = new Leader(tuner, REQUEST, bowl(0.2, 16, 512 << 10, plan -> 1000));
        final TaskKey secondKey = tuner.key(REQUEST, ReduceOp.MAX, 7);
        final List<Plan> plans = new ArrayList<>();
        long k = 0;
        do
        {
            final Plan plan = tuner.planFor(secondKey, REQUEST, k);
            plans.add(plan);
            tuner.record(secondKey, k++, plan, Math.round(second.landscape.nanos(plan)));
        }
        while (!tuner.state(secondKey).converged());
        final List<String> lines = tuner.exportTable();

        assertTrue(!plans.get(plans.size() - 1).equals(tuner.state(first.key).bestPlan()), "the plans differ");

        assertEquals(1, TableTuner.parse("export", lines, null).rows().size(), String.join("\n", lines));
        assertTrue(lines.get(lines.size() - 1).startsWith("# left out"), String.join("\n", lines));
    }
}
