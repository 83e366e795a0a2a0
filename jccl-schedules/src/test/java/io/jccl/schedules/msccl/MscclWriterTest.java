package io.jccl.schedules.msccl;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Protocol;
import io.jccl.Topology;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.ChunkLayout;
import io.jccl.schedules.Generators;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.Program;
import io.jccl.schedules.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MscclWriterTest
{
    /** What MSCCL's C parser reads: elements with double-quoted attributes separated by single spaces. */
    private static final Pattern C_LINE = Pattern.compile(
        " *</?(algo|gpu|tb|step)( [a-zA-Z_]+=\"[^\"]*\")*/?>");

    private static void assertSameProgram(final Program expected, final Program actual)
    {
        assertEquals(expected.collective(), actual.collective());
        assertEquals(expected.ranks(), actual.ranks());
        assertEquals(expected.root(), actual.root());
        assertEquals(expected.name(), actual.name());
        for (final BufferKind kind : BufferKind.values())
        {
            final ChunkLayout a = expected.layout(kind);
            final ChunkLayout b = actual.layout(kind);
            assertEquals(a == null ? 0 : a.chunks(), b == null ? 0 : b.chunks(), kind.name());
        }
        for (int r = 0; r < expected.ranks(); r++)
        {
            assertEquals(expected.workers(r), actual.workers(r), "rank " + r);
        }
    }

    @Test
    void shouldReadBackTheSameProgramWhenBuiltInsAreWritten()
    {
        int written = 0;
        for (final Algorithm algorithm : Algorithm.values())
        {
            for (final Collective collective : Collective.values())
            {
                if (collective == Collective.ALL_TO_ALL || Generators.effective(algorithm, collective) != algorithm)
                {
                    continue;
                }
                for (final int ranks : new int[] {2, 3, 5, 8})
                {
                    for (final int channels : new int[] {1, 2})
                    {
                        final Program program = Generators.generate(algorithm, collective,
                            Topology.singleProcess(ranks), channels, collective.isRooted() ? 1 : -1);
                        final String xml = MscclWriter.write(program, Protocol.LL128, true, true);
                        final MscclSchedule back = new MscclReader().readString(xml, algorithm + ".xml");
                        // jccl's own steps come back as the MSCCL steps they were written as
                        assertFalse(xml.contains("\"rrcr\""), xml);
                        assertSameProgram(PortableSteps.of(program), back.program());
                        assertTrue(MscclSemanticCheck.check(back).correct(), () -> algorithm + " " + collective +
                            " " + ranks + " written back: " + MscclSemanticCheck.check(back));
                        assertTrue(MscclSemanticCheck.check(MscclSchedule.of(program, Protocol.LL128, true, true))
                            .correct(), () -> algorithm + " " + collective + " " + ranks + " as generated");
                        assertEquals(Protocol.LL128, back.protocol());
                        assertTrue(back.inPlace() && back.outOfPlace());
                        // MSCCL's C loader rules hold: strict mode finds nothing
                        final List<MscclProblem> strict = MscclValidator.check(back, true);
                        // (a rooted collective's root is jccl's extension the C executors do not read)
                        assertTrue(strict.stream().allMatch(p -> collective.isRooted() &&
                            p.severity() == MscclProblem.Severity.C_EXECUTOR &&
                            p.message().contains("no root attribute")), () -> algorithm + " " + collective + " " +
                            ranks + ": " + strict);
                        written++;
                    }
                }
            }
        }
        assertEquals(11 * 8, written,
            "ring x 5 collectives, tree x 3 and direct x 3, ranks {2,3,5,8}, channels {1,2}");
    }

    @Test
    void shouldWriteOnlyWhatTheCParserReadsWhenExporting()
    {
        final Program ring = Generators.generate(Algorithm.RING, Collective.ALL_REDUCE, Topology.singleProcess(8),
            2, -1);
        final String xml = MscclWriter.write(ring, Protocol.SIMPLE, true, true);
        assertTrue(xml.startsWith("<algo name=\"ring\" proto=\"Simple\" nchannels=\"2\" nchunksperloop=\"16\" " +
            "ngpus=\"8\" coll=\"allreduce\" inplace=\"1\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n"), xml);
        assertTrue(xml.contains("\n    <tb id=\"1\" send=\"1\" recv=\"7\" chan=\"1\">\n      <step s=\"0\" type=\"s\" " +
            "srcbuf=\"i\" srcoff=\"15\" dstbuf=\"i\" dstoff=\"-1\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"),
            xml);
        for (final String line : xml.split("\n"))
        {
            assertTrue(C_LINE.matcher(line).matches(), line);
        }
        assertTrue(MscclValidator.check(new MscclReader().readString(xml, "ring.xml"), true).isEmpty());
    }

    @Test
    void shouldMarkEveryStepDependedOnWhenWritingHasdep()
    {
        final Program tree = Generators.generate(Algorithm.TREE, Collective.ALL_REDUCE, Topology.singleProcess(5),
            1, -1);
        final MscclSchedule back = new MscclReader().readString(MscclWriter.write(tree, Protocol.SIMPLE, true,
            false), "tree.xml");
        boolean any = false;
        for (int r = 0; r < 5; r++)
        {
            final boolean[][] expected = MscclSourceMap.dependedOn(tree.workers(r));
            for (int w = 0; w < expected.length; w++)
            {
                for (int s = 0; s < expected[w].length; s++)
                {
                    assertEquals(expected[w][s], back.sourceMap().hasDep(r, w, s));
                    any |= expected[w][s];
                }
            }
        }
        assertTrue(any, "the tree has dependencies");
    }

    @Test
    void shouldRoundTripSharedAndOwnFixturesWhenReadWrittenAndReadAgain()
    {
        final List<MscclSchedule> schedules = new java.util.ArrayList<>();
        for (final String name : MscclTestFiles.soundResourceNames())
        {
            schedules.add(MscclTestFiles.read(name));
        }
        for (final Path file : MscclTestFiles.sharedValidIfPresent())
        {
            schedules.add(new MscclReader().read(file));
        }
        for (final MscclSchedule schedule : schedules)
        {
            final String xml = MscclWriter.write(schedule);
            final MscclSchedule back = new MscclReader().readString(xml, schedule.source());
            assertSameProgram(schedule.program(), back.program());
            assertEquals(schedule.minBytes(), back.minBytes());
            assertEquals(schedule.maxBytes(), back.maxBytes());
            assertEquals(schedule.protocol(), back.protocol());
            assertEquals(schedule.nchunksperloop(), back.nchunksperloop());
            assertTrue(MscclSemanticCheck.check(back).correct(), schedule.source());
            assertFalse(xml.startsWith("<?xml"));
        }
    }

    @Test
    void shouldWriteAFileWhenGivenAPath(@TempDir final Path dir)
    {
        final MscclSchedule schedule = MscclTestFiles.read("reducescatter-ring-4.xml");
        final Path file = dir.resolve("rs.xml");
        MscclWriter.write(schedule, file);
        assertSameProgram(schedule.program(), new MscclReader().read(file).program());
    }

    @Test
    void shouldEscapeTheNameWhenItHasMarkup()
    {
        final Worker.Builder w = new Worker.Builder(Worker.NO_PEER, Worker.NO_PEER, 0);
        w.step(Opcode.COPY, BufferKind.INPUT, 0, BufferKind.OUTPUT, 0);
        final Program program = new Program("a<b & \"c\"", Collective.ALL_REDUCE, 1, -1, new ChunkLayout(1, 1),
            new ChunkLayout(1, 1), null, List.of(List.of(w.build())));
        final MscclSchedule back = new MscclReader().readString(MscclWriter.write(program, Protocol.LL, false,
            true), "n.xml");
        assertEquals("a<b & \"c\"", back.name());
        assertTrue(MscclSemanticCheck.check(back).correct());
    }

    @Test
    void shouldRefuseProgramsWhenTheirBuffersHaveNoCommonChunkSize()
    {
        final Worker.Builder w = new Worker.Builder(Worker.NO_PEER, Worker.NO_PEER, 0);
        w.step(Opcode.COPY, BufferKind.INPUT, 0, BufferKind.OUTPUT, 0);
        final Program program = new Program("odd", Collective.ALL_GATHER, 1, -1, new ChunkLayout(2, 1),
            new ChunkLayout(3, 1), null, List.of(List.of(w.build())));
        assertThrows(JcclInvalidArgumentException.class, () -> MscclWriter.write(program, Protocol.SIMPLE, true,
            true));
    }
}
