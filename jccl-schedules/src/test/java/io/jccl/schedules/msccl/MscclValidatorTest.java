package io.jccl.schedules.msccl;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MscclValidatorTest
{
    private static MscclFormatException invalid(final String resource)
    {
        final MscclSchedule schedule = MscclTestFiles.read(resource);
        return assertThrows(MscclFormatException.class, () -> MscclValidator.validate(schedule));
    }

    private static MscclSchedule edited(final String resource, final String from, final String to)
    {
        final String xml = MscclTestFiles.resource(resource);
        assertTrue(xml.contains(from), from);
        return new MscclReader().readString(xml.replace(from, to), resource);
    }

    private static List<MscclProblem> strictWarnings(final MscclSchedule schedule)
    {
        return MscclValidator.check(schedule, true).stream()
            .filter(p -> p.severity() == MscclProblem.Severity.C_EXECUTOR).toList();
    }

    @Test
    void shouldPassWhenScheduleIsSound()
    {
        for (final String name : MscclTestFiles.soundResourceNames())
        {
            final MscclSchedule schedule = MscclTestFiles.read(name);
            assertTrue(MscclValidator.check(schedule, true).isEmpty(), () -> name + ": " +
                MscclValidator.check(schedule, true));
        }
    }

    @Test
    void shouldReportEveryOffsetWhenOffsetsAreOutOfRange()
    {
        final MscclFormatException e = invalid("offset-out-of-range.xml");
        assertTrue(e.getMessage().startsWith("offset-out-of-range.xml had 2 errors:"), e::getMessage);
        assertEquals("line 4: algo/gpu[id=0]/tb[id=0]/step[s=0]: srcoff=2 is outside srcbuf=\"i\", which has 2 " +
            "chunks (i_chunks=2)", e.errors().get(0).toString());
        assertEquals(13, e.errors().get(1).line());
        assertTrue(e.errors().get(1).message().startsWith("dstoff=5 is outside"), e::getMessage);
    }

    @Test
    void shouldReportOffsetPlusCountWhenTheLastChunkIsOutOfRange()
    {
        final MscclSchedule schedule = edited("reducescatter-direct-4.xml",
            "<step s=\"1\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"s\" dstoff=\"4\" cnt=\"2\"",
            "<step s=\"1\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"s\" dstoff=\"5\" cnt=\"2\"");
        final MscclFormatException e = assertThrows(MscclFormatException.class,
            () -> MscclValidator.validate(schedule));
        assertTrue(e.getMessage().contains("dstoff=5 cnt=2 reaches chunk 6 of dstbuf=\"s\", which has 6 chunks"),
            e::getMessage);
    }

    @Test
    void shouldReportDependenciesWhenTheyNameMissingSteps()
    {
        final MscclFormatException e = invalid("missing-dependency.xml");
        assertEquals(2, e.errors().size(), e::getMessage);
        assertEquals("line 9: algo/gpu[id=0]/tb[id=1]/step[s=0]: depid=0 deps=7: threadblock 0 has no step 7 (it " +
            "has 3)", e.errors().get(0).toString());
        assertEquals("line 10: algo/gpu[id=0]/tb[id=1]/step[s=1]: depid=4: rank 0 has no threadblock 4 (it has 2)",
            e.errors().get(1).toString());
    }

    @Test
    void shouldReportSharedConnectionWhenTwoThreadblocksSendToOnePeerOnOneChannel()
    {
        final MscclFormatException e = invalid("shared-connection.xml");
        assertEquals(1, e.errors().size(), e::getMessage);
        assertEquals("algo/gpu[id=0]/tb[id=1]", e.errors().get(0).path());
        assertTrue(e.errors().get(0).message().startsWith("tb 0 and tb 1 both send to rank 1 on channel 0"));
    }

    @Test
    void shouldReportSendWithoutPeerWhenThreadblockHasNoSendPeer()
    {
        final MscclSchedule schedule = edited("allreduce-2.xml", "<tb id=\"0\" send=\"1\" recv=\"1\"",
            "<tb id=\"0\" send=\"-1\" recv=\"1\"");
        final MscclFormatException e = assertThrows(MscclFormatException.class,
            () -> MscclValidator.validate(schedule));
        assertTrue(e.errors().get(0).message().contains("a s step sends, but its threadblock has send=-1"),
            e::getMessage);
    }

    @Test
    void shouldReportPeersWhenTheyAreOutOfRangeOrSelf()
    {
        final MscclSchedule schedule = edited("allreduce-2.xml", "<tb id=\"0\" send=\"1\" recv=\"1\"",
            "<tb id=\"0\" send=\"0\" recv=\"7\"");
        final MscclFormatException e = assertThrows(MscclFormatException.class,
            () -> MscclValidator.validate(schedule));
        assertTrue(e.getMessage().contains("send=0 is the threadblock's own rank"), e::getMessage);
        assertTrue(e.getMessage().contains("recv=7 is not a rank"), e::getMessage);
    }

    @Test
    void shouldReportMismatchedCntWhenSendAndReceiveDiffer()
    {
        final MscclFormatException e = invalid("mismatched-cnt.xml");
        assertEquals(1, e.errors().size(), e::getMessage);
        assertEquals("line 12: algo/gpu[id=1]/tb[id=0]/step[s=1]: receive 1 from rank 0 on channel 0 has cnt=1, " +
            "but the matching send, rank 0 tb 0 step 0 (line 4), has cnt=2", e.errors().get(0).toString());
    }

    @Test
    void shouldReportUnmatchedMessagesWhenSendsOutnumberReceives()
    {
        final MscclSchedule schedule = edited("allreduce-2.xml",
            "<step s=\"2\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"i\" dstoff=\"0\"",
            "<step s=\"2\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"i\" dstoff=\"0\"");
        final MscclFormatException e = assertThrows(MscclFormatException.class,
            () -> MscclValidator.validate(schedule));
        assertTrue(e.getMessage().contains("rank 0 tb 0 sends 2 messages to rank 1 on channel 0, but rank 1 tb 0 " +
            "receives 1"), e::getMessage);
    }

    @Test
    void shouldReportTheCycleWhenWaitsAreCyclic()
    {
        final MscclFormatException e = invalid("cyclic-waits.xml");
        assertEquals(2, e.errors().size(), e::getMessage);
        final MscclProblem cycle = e.errors().get(0);
        assertEquals("algo/gpu[id=0]/tb[id=0]/step[s=0]", cycle.path());
        assertEquals(5, cycle.line());
        assertEquals("deadlock: a cycle of 3 waits: rank 0 tb 0 step 0 (s, line 5) waits for tb 1 step 0 (its " +
            "depid/deps), and rank 0 tb 1 is at step 0; rank 0 tb 1 step 0 (r, line 8) waits for a message from " +
            "rank 1 on channel 0 from rank 1 tb 0; rank 1 tb 0 step 0 (r, line 14) waits for a message from rank 0 " +
            "on channel 0 from rank 0 tb 0; and round again", cycle.message());
        assertEquals("deadlock: 3 of 3 threadblocks cannot finish (1 cycle of waits)", e.errors().get(1).message());
    }

    @Test
    void shouldReportSelfDependencyWhenItWaitsForItsOwnLaterStep()
    {
        final MscclSchedule schedule = edited("allreduce-2.xml",
            "type=\"rrcs\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\"",
            "type=\"rrcs\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"0\" cnt=\"1\" depid=\"0\" deps=\"2\"");
        final MscclFormatException e = assertThrows(MscclFormatException.class,
            () -> MscclValidator.validate(schedule));
        assertTrue(e.getMessage().contains("depends on step 2 of its own threadblock"), e::getMessage);
    }

    @Test
    void shouldWarnInStrictModeWhenAWaitIsOnAStepThatDoesNotPublish()
    {
        final String xml = MscclTestFiles.resource("reducescatter-direct-4.xml");
        final String published = "dstbuf=\"s\" dstoff=\"0\" cnt=\"2\" depid=\"-1\" deps=\"-1\" hasdep=\"1\"";
        final MscclSchedule schedule = new MscclReader().readString(xml.replaceFirst(published,
            published.replace("hasdep=\"1\"", "hasdep=\"0\"")), "hasdep.xml");
        MscclValidator.validate(schedule);
        assertTrue(MscclValidator.check(schedule, false).isEmpty(), "not strict: nothing");
        final List<MscclProblem> warnings = strictWarnings(schedule);
        assertEquals(1, warnings.size(), warnings::toString);
        assertEquals("algo/gpu[id=0]/tb[id=3]/step[s=1]", warnings.get(0).path());
        assertTrue(warnings.get(0).message().contains("waits for tb 0 step 1, which has hasdep=\"0\""),
            warnings::toString);
    }

    @Test
    void shouldWarnInStrictModeWhenAChannelIsNotConnectedByTheCExecutor()
    {
        final MscclSchedule schedule = edited("reducescatter-ring-4.xml", "nchannels=\"2\"", "nchannels=\"1\"");
        final List<MscclProblem> warnings = strictWarnings(schedule);
        assertEquals(4, warnings.size(), warnings::toString);
        assertTrue(warnings.get(0).message().startsWith("chan=1 but nchannels=1"), warnings::toString);
    }

    @Test
    void shouldWarnInStrictModeWhenANopChainEndsAtAStepWithoutDependency()
    {
        final StringBuilder xml = new StringBuilder("<algo name=\"chain\" proto=\"Simple\" nchannels=\"1\" " +
            "nchunksperloop=\"1\" ngpus=\"2\" coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" " +
            "maxBytes=\"0\">\n");
        for (int r = 0; r < 2; r++)
        {
            xml.append("  <gpu id=\"").append(r).append("\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"1\">\n")
                .append("    <tb id=\"0\" send=\"").append(1 - r).append("\" recv=\"").append(1 - r)
                .append("\" chan=\"0\">\n")
                .append("      <step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"-1\" cnt=\"1\" " +
                    "depid=\"-1\" deps=\"-1\" hasdep=\"1\"/>\n")
                .append("      <step s=\"1\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"s\" dstoff=\"0\" cnt=\"1\" " +
                    "depid=\"-1\" deps=\"-1\" hasdep=\"1\"/>\n    </tb>\n")
                .append("    <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n")
                .append("      <step s=\"0\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"i\" dstoff=\"-1\" " +
                    "cnt=\"0\" depid=\"0\" deps=\"1\" hasdep=\"0\"/>\n")
                .append("      <step s=\"1\" type=\"re\" srcbuf=\"s\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"0\" cnt=\"1\" " +
                    "depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n    </tb>\n  </gpu>\n");
        }
        final MscclSchedule schedule = new MscclReader().readString(xml.append("</algo>\n").toString(), "c.xml");
        MscclValidator.validate(schedule);
        final List<MscclProblem> warnings = strictWarnings(schedule);
        assertEquals(2, warnings.size(), warnings::toString);
        assertEquals("algo/gpu[id=0]/tb[id=1]/step[s=1]", warnings.get(0).path());
        assertTrue(warnings.get(0).message().contains("chain of nop dependencies"), warnings::toString);
        assertTrue(MscclSemanticCheck.check(schedule).correct(), "jccl keeps the nop's wait, so the result is right");
    }

    @Test
    void shouldWarnInStrictModeWhenAThreadblockExceedsTheCStepLimit()
    {
        final StringBuilder sends = new StringBuilder();
        final StringBuilder recvs = new StringBuilder();
        for (int s = 0; s < 70; s++)
        {
            sends.append("      <step s=\"").append(s).append("\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" " +
                "dstoff=\"-1\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n");
            recvs.append("      <step s=\"").append(s).append("\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"o\" " +
                "dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n");
        }
        final String xml = "<algo name=\"long\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" " +
            "coll=\"allgather\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n" +
            "  <gpu id=\"0\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\">\n    <tb id=\"0\" send=\"1\" recv=\"-1\" " +
            "chan=\"0\">\n" + sends + "    </tb>\n  </gpu>\n" +
            "  <gpu id=\"1\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\">\n    <tb id=\"0\" send=\"-1\" recv=\"0\" " +
            "chan=\"0\">\n" + recvs + "    </tb>\n  </gpu>\n</algo>\n";
        final MscclSchedule schedule = new MscclReader().readString(xml, "long.xml");
        final List<MscclProblem> warnings = strictWarnings(schedule);
        assertEquals(2, warnings.size(), warnings::toString);
        assertTrue(warnings.get(0).message().startsWith("70 steps: msccl-executor-nccl and RCCL allow 64"));
        assertEquals("algo/gpu[id=0]/tb[id=0]", warnings.get(0).path());
    }

    /** Two ranks whose one threadblock each sends {@code count} messages to the other, then receives as many. */
    private static MscclSchedule sendsBeforeReceives(final int count)
    {
        final StringBuilder xml = new StringBuilder("<algo name=\"burst\" proto=\"Simple\" nchannels=\"1\" " +
            "nchunksperloop=\"1\" ngpus=\"2\" coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" " +
            "maxBytes=\"0\">\n");
        for (int r = 0; r < 2; r++)
        {
            xml.append("  <gpu id=\"").append(r).append("\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"1\">\n")
                .append("    <tb id=\"0\" send=\"").append(1 - r).append("\" recv=\"").append(1 - r)
                .append("\" chan=\"0\">\n");
            for (int s = 0; s < 2 * count; s++)
            {
                xml.append("      <step s=\"").append(s).append(s < count ?
                    "\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"-1\"" :
                    "\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"s\" dstoff=\"0\"")
                    .append(" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n");
            }
            xml.append("    </tb>\n  </gpu>\n");
        }
        return new MscclReader().readString(xml.append("</algo>\n").toString(), "burst-" + count + ".xml");
    }

    @Test
    void shouldReportDeadlockWhenMoreMessagesAreInFlightThanAConnectionHolds()
    {
        MscclValidator.validate(sendsBeforeReceives(MscclValidator.FIFO_SLOTS));
        final MscclFormatException e = assertThrows(MscclFormatException.class,
            () -> MscclValidator.validate(sendsBeforeReceives(MscclValidator.FIFO_SLOTS + 1)));
        assertTrue(e.errors().get(0).message().startsWith("deadlock when a connection holds 8 messages"),
            e::getMessage);
        assertTrue(e.getMessage().contains("waits for room on its connection to rank 1 channel 0"), e::getMessage);
    }

    @Test
    void shouldWarnInStrictModeWhenSimpleProtocolHoldsFewerChunksThanNeeded()
    {
        assertTrue(strictWarnings(sendsBeforeReceives(2)).isEmpty());
        final List<MscclProblem> warnings = strictWarnings(sendsBeforeReceives(3));
        assertEquals(1, warnings.size(), warnings::toString);
        assertTrue(warnings.get(0).message().startsWith("finishes only when a connection holds 4 messages"),
            warnings::toString);
    }
}
