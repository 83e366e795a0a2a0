package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Protocol;
import io.jccl.Topology;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.Generators;
import io.jccl.schedules.Program;
import io.jccl.schedules.msccl.MscclReader;
import io.jccl.schedules.msccl.MscclSchedule;
import io.jccl.schedules.msccl.MscclSemanticCheck;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jccl-bench export}: the XML on stdout reads back as the very Program the generator builds, and computes its
 * collective.
 */
class ExportCommandTest
{
    private String stdout;
    private String stderr;

    private int export(final String... args)
    {
        final CommandRun run = CommandRun.of("export", args);
        stdout = run.stdout();
        stderr = run.stderr();
        return run.status();
    }

    private static void assertSameProgram(final Program expected, final Program actual)
    {
        assertEquals(expected.collective(), actual.collective());
        assertEquals(expected.ranks(), actual.ranks());
        assertEquals(expected.root(), actual.root());
        assertEquals(expected.name(), actual.name());
        for (final BufferKind kind : BufferKind.values())
        {
            final int a = expected.layout(kind) == null ? 0 : expected.layout(kind).chunks();
            final int b = actual.layout(kind) == null ? 0 : actual.layout(kind).chunks();
            assertEquals(a, b, kind.name());
        }
        for (int r = 0; r < expected.ranks(); r++)
        {
            assertEquals(expected.workers(r), actual.workers(r), "rank " + r);
        }
    }

    @Test
    void shouldReadBackSameProgramWhenRingAllReduceExported()
    {
        assertEquals(0, export("--coll", "allreduce", "--algo", "ring", "-g", "8"), stderr);
        assertTrue(stdout.startsWith("<algo name=\"ring\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"8\" " +
            "ngpus=\"8\" coll=\"allreduce\" inplace=\"1\" outofplace=\"1\""), stdout);
        final MscclSchedule back = new MscclReader().readString(stdout, "ring8.xml");
        assertSameProgram(Generators.generate(Algorithm.RING, Collective.ALL_REDUCE, Topology.singleProcess(8), 1,
            0), back.program());
        assertTrue(MscclSemanticCheck.check(back).correct(), MscclSemanticCheck.check(back).toString());
        assertEquals("", stderr);
    }

    @Test
    void shouldReadBackSameProgramWhenTreeExportedWithChannelsAndProtocol()
    {
        for (final String coll : new String[] {"allreduce", "broadcast", "reduce"})
        {
            final Collective collective = ExportCommand.collective(coll);
            assertEquals(0, export("--coll", coll, "--algo", "tree", "-g", "5", "--channels", "2", "--root", "3",
                "--proto", "ll128"), coll + ": " + stderr);
            final MscclSchedule back = new MscclReader().readString(stdout, "tree5.xml");
            assertEquals(Protocol.LL128, back.protocol());
            assertEquals(2, back.nchannels());
            assertSameProgram(Generators.generate(Algorithm.TREE, collective, Topology.singleProcess(5), 2, 3),
                back.program());
            assertTrue(MscclSemanticCheck.check(back).correct(), coll);
        }
    }

    @Test
    void shouldWriteRingAndSayWhyWhenTreeDoesNotApply()
    {
        assertEquals(0, export("--coll", "all_gather", "--algo", "tree", "-g", "3"));
        assertTrue(stderr.contains("tree does not compute allgather; writing ring"), stderr);
        assertSameProgram(Generators.generate(Algorithm.RING, Collective.ALL_GATHER, Topology.singleProcess(3), 1,
            0), new MscclReader().readString(stdout, "ag.xml").program());
    }

    @Test
    void shouldFindNoDifferenceWhenEveryBuiltInRoundTrips()
    {
        for (final Algorithm algorithm : Algorithm.values())
        {
            for (final Collective collective : Collective.values())
            {
                for (final int ranks : new int[] {2, 3, 5, 8})
                {
                    final Program program = Generators.generate(algorithm, collective, Topology.singleProcess(ranks),
                        2, collective.isRooted() ? 1 : 0);
                    final String xml = io.jccl.schedules.msccl.MscclWriter.write(program, Protocol.SIMPLE, true,
                        true);
                    assertNull(ExportCommand.roundTripDifference(program, xml), program.name() + " " + collective);
                }
            }
        }
    }

    @Test
    void shouldReturnUsageStatusWhenArgumentsBad()
    {
        assertEquals(JcclBench.EXIT_USAGE, export("--algo", "ring", "-g", "8"));
        assertTrue(stderr.contains("--coll"), stderr);
        assertEquals(JcclBench.EXIT_USAGE, export("--coll", "allscatter", "-g", "8"));
        assertTrue(stderr.contains("is not one of [allreduce, allgather, reducescatter, broadcast, reduce, " +
            "alltoall]"), stderr);
        assertEquals(JcclBench.EXIT_USAGE, export("--coll", "allreduce", "--algo", "butterfly", "-g", "8"));
        assertEquals(JcclBench.EXIT_USAGE, export("--coll", "allreduce", "-g", "8", "--proto", "ll64"));
        assertEquals(JcclBench.EXIT_USAGE, export("--coll", "broadcast", "-g", "4", "--root", "4"));
        assertTrue(stderr.contains("--root 4 is outside 0..3"), stderr);
        assertEquals(JcclBench.EXIT_USAGE, export("--coll", "allreduce", "-g", "0"));
        assertEquals("", stdout);
    }
}
