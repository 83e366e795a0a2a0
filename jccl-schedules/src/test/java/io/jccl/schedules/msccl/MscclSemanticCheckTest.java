package io.jccl.schedules.msccl;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Protocol;
import io.jccl.Topology;
import io.jccl.schedules.Generators;
import io.jccl.schedules.Program;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MscclSemanticCheckTest
{
    @Test
    void shouldAcceptOwnReduceScatterFixturesWhenCheckedInPlaceAndOutOfPlace()
    {
        for (final String name : List.of("reducescatter-ring-4.xml", "reducescatter-direct-4.xml"))
        {
            final MscclVerdict verdict = MscclSemanticCheck.check(MscclTestFiles.read(name));
            assertTrue(verdict.correct(), verdict::toString);
            assertEquals("OK: computes reducescatter on 4 ranks (in place and out of place)", verdict.summary());
            assertTrue(verdict.problems().isEmpty(), verdict::toString);
        }
    }

    @Test
    void shouldAcceptEverySoundOwnFixtureWhenChecked()
    {
        for (final String name : MscclTestFiles.soundResourceNames())
        {
            final MscclSchedule schedule = MscclTestFiles.read(name);
            final MscclVerdict verdict = MscclSemanticCheck.check(schedule);
            assertTrue(verdict.correct(), () -> name + ": " + verdict);
            assertTrue(verdict.problems().isEmpty(), () -> name + ": " + verdict);
            assertTrue(verdict.summary().startsWith("OK: computes " + schedule.collective().xmlName() + " on " +
                schedule.ngpus() + " ranks"), verdict::summary);
        }
    }

    @Test
    void shouldNameRankChunkAndDuplicateWhenAContributionIsAddedTwice()
    {
        final MscclVerdict verdict = MscclSemanticCheck.check(MscclTestFiles.read("reducescatter-double-count.xml"));
        assertFalse(verdict.correct());
        assertEquals("WRONG in place: rank 0 o[0] holds i[0] of ranks 0 (x2), 1-3; it should hold i[0] of ranks " +
            "0-3 (extra i[0] of rank 0) (last written by this step) [declared: reducescatter on 4 ranks (in place " +
            "and out of place)]", verdict.summary());
        final MscclProblem first = verdict.errors().get(0);
        assertEquals("algo/gpu[id=0]/tb[id=3]/step[s=4]", first.path());
        assertEquals(21, first.line());
        assertTrue(verdict.problems().stream().anyMatch(p -> p.message().equals("out of place: 8 of 8 output " +
            "chunks wrong: this is not reducescatter")), verdict::toString);
    }

    @Test
    void shouldReportARaceWhenAReductionIsNotOrderedAfterTheSendOfItsTarget()
    {
        final MscclSchedule schedule = MscclTestFiles.read("racy-allreduce.xml");
        MscclValidator.validate(schedule);
        final MscclVerdict verdict = MscclSemanticCheck.check(schedule);
        assertFalse(verdict.correct());
        assertTrue(verdict.summary().startsWith("WRONG in place: race on rank "), verdict::summary);
        assertTrue(verdict.summary().contains("the result depends on timing"), verdict::summary);
        // and the race is real: some order of the same steps gives a wrong output chunk
        boolean wrongSomewhere = false;
        for (int seed = 0; seed < 200 && !wrongSomewhere; seed++)
        {
            wrongSomewhere = MscclSemanticCheck.check(schedule, new Random(seed)).problems().stream()
                .anyMatch(p -> p.message().contains("o[0] holds"));
        }
        assertTrue(wrongSomewhere, "no random order showed the race");
    }

    @Test
    void shouldReportDeadlockWithoutEvaluatingWhenWaitsAreCyclic()
    {
        final MscclVerdict verdict = MscclSemanticCheck.check(MscclTestFiles.read("cyclic-waits.xml"));
        assertFalse(verdict.correct());
        assertTrue(verdict.summary().startsWith("WRONG: not evaluated, the schedule has 2 structural errors"),
            verdict::summary);
    }

    @Test
    void shouldAcceptEveryBuiltInWhenCheckedInPlaceAndOutOfPlace()
    {
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
                        final int root = collective.isRooted() ? ranks - 1 : -1;
                        final Program program = Generators.generate(algorithm, collective,
                            Topology.singleProcess(ranks), channels, root);
                        final MscclVerdict verdict = MscclSemanticCheck.check(MscclSchedule.of(program,
                            Protocol.SIMPLE, true, true));
                        assertTrue(verdict.correct(), () -> algorithm + " " + collective + " ranks=" + ranks +
                            " channels=" + channels + ": " + verdict);
                    }
                }
            }
        }
    }

    @Test
    void shouldNameWhatAChunkHoldsWhenAllgatherSwapsTwoChunks()
    {
        final StringBuilder xml = new StringBuilder("<algo name=\"swap\" proto=\"Simple\" nchannels=\"1\" " +
            "nchunksperloop=\"2\" ngpus=\"2\" coll=\"allgather\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" " +
            "maxBytes=\"0\">\n");
        for (int r = 0; r < 2; r++)
        {
            // every rank stores its own chunk at o[0] and the other's at o[1]: right on rank 0, swapped on rank 1
            final int own = 0;
            final int other = 1;
            xml.append("  <gpu id=\"").append(r).append("\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\">\n")
                .append("    <tb id=\"0\" send=\"").append(1 - r).append("\" recv=\"-1\" chan=\"0\">\n")
                .append(step(0, "s", "i", 0, "o", -1))
                .append("    </tb>\n    <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n")
                .append(step(0, "cpy", "i", 0, "o", own))
                .append("    </tb>\n    <tb id=\"2\" send=\"-1\" recv=\"").append(1 - r).append("\" chan=\"0\">\n")
                .append(step(0, "r", "i", -1, "o", other))
                .append("    </tb>\n  </gpu>\n");
        }
        final MscclVerdict verdict = MscclSemanticCheck.check(new MscclReader().readString(
            xml.append("</algo>\n").toString(), "swap.xml"));
        assertFalse(verdict.correct());
        assertEquals("WRONG out of place: rank 1 o[0] holds i[0] of rank 1; it should hold i[0] of rank 0 (missing " +
            "i[0] of rank 0; extra i[0] of rank 1) (last written by this step) [declared: allgather on 2 ranks (out " +
            "of place)]", verdict.summary());
        assertEquals("algo/gpu[id=1]/tb[id=1]/step[s=0]", verdict.errors().get(0).path());
    }

    private static String step(final int s, final String type, final String srcbuf, final int srcoff,
        final String dstbuf, final int dstoff)
    {
        return "      <step s=\"" + s + "\" type=\"" + type + "\" srcbuf=\"" + srcbuf + "\" srcoff=\"" + srcoff +
            "\" dstbuf=\"" + dstbuf + "\" dstoff=\"" + dstoff + "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n";
    }
}
