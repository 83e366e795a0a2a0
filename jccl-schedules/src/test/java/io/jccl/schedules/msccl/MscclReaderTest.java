package io.jccl.schedules.msccl;

import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Protocol;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MscclReaderTest
{
    private static final String STEP_ATTRS = "cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"";

    private static MscclFormatException reject(final String resource)
    {
        return assertThrows(MscclFormatException.class, () -> MscclTestFiles.read(resource));
    }

    private static MscclFormatException rejectXml(final String xml)
    {
        return assertThrows(MscclFormatException.class, () -> new MscclReader().readString(xml, "test.xml"));
    }

    /** A 2-rank in-place allreduce in which {@code %s} replaces rank 1's whole threadblock body. */
    private static String twoRanks(final String head, final String rank1Steps)
    {
        return head + "\n" +
            "  <gpu id=\"0\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"0\">\n" +
            "    <tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n" +
            "      <step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"1\" dstbuf=\"i\" dstoff=\"-1\" " + STEP_ATTRS + "/>\n" +
            "      <step s=\"1\" type=\"rrcs\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"0\" " + STEP_ATTRS +
            "/>\n" +
            "      <step s=\"2\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"i\" dstoff=\"1\" " + STEP_ATTRS + "/>\n" +
            "    </tb>\n" +
            "  </gpu>\n" +
            "  <gpu id=\"1\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"0\">\n" +
            "    <tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n" + rank1Steps +
            "    </tb>\n" +
            "  </gpu>\n" +
            "</algo>\n";
    }

    private static final String RANK1 =
        "      <step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"-1\" " + STEP_ATTRS + "/>\n" +
        "      <step s=\"1\" type=\"rrcs\" srcbuf=\"i\" srcoff=\"1\" dstbuf=\"i\" dstoff=\"1\" " + STEP_ATTRS + "/>\n" +
        "      <step s=\"2\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"i\" dstoff=\"0\" " + STEP_ATTRS + "/>\n";

    private static final String CURRENT = "<algo name=\"t\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"2\" " +
        "ngpus=\"2\" coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\">";

    @Test
    void shouldMapEveryPartToTheProgramWhenFileIsValid()
    {
        final MscclSchedule schedule = MscclTestFiles.read("reducescatter-direct-4.xml");
        assertEquals("reducescatter_direct_4", schedule.name());
        assertEquals(Collective.REDUCE_SCATTER, schedule.collective());
        assertEquals(Protocol.LL, schedule.protocol());
        assertEquals(4, schedule.ngpus());
        assertEquals(8, schedule.nchunksperloop());
        assertTrue(schedule.inPlace());
        assertTrue(schedule.outOfPlace());
        assertEquals(Long.MAX_VALUE, schedule.maxBytes(), "maxBytes=\"0\" is unbounded");
        assertEquals(-1, schedule.root());
        assertNull(schedule.redop());
        assertEquals(8, schedule.program().layout(BufferKind.INPUT).chunks());
        assertEquals(2, schedule.program().layout(BufferKind.OUTPUT).chunks());
        assertEquals(6, schedule.program().layout(BufferKind.SCRATCH).chunks());

        final Worker tb0 = schedule.program().workers(2).get(0);
        assertEquals(0, tb0.sendPeer());
        assertEquals(0, tb0.recvPeer());
        final Worker.Builder expected = new Worker.Builder(0, 0, 0);
        expected.step(Opcode.SEND, BufferKind.INPUT, 0, null, 0, 2, StepDescriptor.NO_DEPENDENCY, 0);
        expected.step(Opcode.RECV, null, 0, BufferKind.SCRATCH, 0, 2, StepDescriptor.NO_DEPENDENCY, 0);
        assertEquals(expected.build(), tb0, "unused operands are chunk 0 of the input; cnt=2 is kept");

        final Worker local = schedule.program().workers(2).get(3);
        assertEquals(Opcode.REDUCE, local.opcode(3));
        assertEquals(2, local.field(3, StepDescriptor.DEP_WORKER));
        assertEquals(1, local.field(3, StepDescriptor.DEP_STEP));
        assertTrue(schedule.sourceMap().hasDep(2, 2, 1));
        assertEquals("algo/gpu[id=2]/tb[id=3]/step[s=3]", schedule.sourceMap().path(2, 3, 3));
        assertTrue(schedule.sourceMap().stepLine(2, 3, 3) > schedule.sourceMap().workerLine(2, 3));
        assertEquals(6, schedule.sourceMap().declaredChunks(2, BufferKind.SCRATCH));
    }

    @Test
    void shouldReadXmlDeclarationCommentsAndAnyAttributeOrderWhenMscclCParserWouldNot()
    {
        final String xml = "<?xml version='1.0' encoding='UTF-8'?>\n<!-- a comment -->\n" + twoRanks(
            "<algo ngpus='2' coll='allreduce' name='t' nchunksperloop='2' nchannels='1' proto='Simple' inplace='1'" +
                " outofplace='0' minBytes='0x10' maxBytes='0'><!-- inside -->", RANK1);
        final MscclSchedule schedule = new MscclReader().read(
            new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "decl.xml");
        assertEquals(16, schedule.minBytes(), "0x10 is hex, as strtol(s, NULL, 0) reads it");
        assertTrue(schedule.notes().stream().anyMatch(p -> p.severity() == MscclProblem.Severity.C_EXECUTOR &&
            p.message().contains("XML declaration")), schedule.notes()::toString);
        assertTrue(schedule.notes().stream().anyMatch(p -> p.message().contains("hexadecimal 16")));
        assertTrue(MscclSemanticCheck.check(schedule).correct());
    }

    @Test
    void shouldDefaultOlderDialectWhenOutofplaceAndByteRangeAreAbsent()
    {
        final MscclSchedule schedule = new MscclReader().readString(twoRanks("<algo name=\"t\" proto=\"LL128\" " +
            "nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"allreduce\" inplace=\"0\">", RANK1), "old.xml");
        assertFalse(schedule.inPlace());
        assertTrue(schedule.outOfPlace(), "outofplace = 1 - inplace");
        assertEquals(0, schedule.minBytes());
        assertEquals(Long.MAX_VALUE, schedule.maxBytes());
        assertEquals(Protocol.LL128, schedule.protocol());
    }

    @Test
    void shouldReadBothReduceScatterSpellingsWhenDialectsDiffer()
    {
        final String file = MscclTestFiles.resource("reducescatter-ring-4.xml");
        final MscclSchedule current = new MscclReader().readString(file, "a.xml");
        final MscclSchedule older = new MscclReader().readString(file.replace("coll=\"reducescatter\"",
            "coll=\"reduce_scatter\""), "b.xml");
        assertEquals(Collective.REDUCE_SCATTER, older.collective());
        assertEquals(current.program().workers(3), older.program().workers(3));
        assertTrue(older.notes().stream().anyMatch(p -> p.message().contains("reduce_scatter")));
    }

    @Test
    void shouldKeepNopChainsAsNopStepsWhenAStepNeedsSeveralDependencies()
    {
        final String xml = "<algo name=\"n\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"1\" ngpus=\"2\" " +
            "coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\">\n" +
            gpuWithNops(0, 1) + gpuWithNops(1, 0) + "</algo>\n";
        final MscclSchedule schedule = new MscclReader().readString(xml, "nops.xml");
        final Worker local = schedule.program().workers(0).get(2);
        assertEquals(Opcode.NOP, local.opcode(0));
        assertEquals(0, local.field(0, StepDescriptor.DEP_WORKER));
        assertEquals(Opcode.REDUCE, local.opcode(1));
        assertEquals(1, local.field(1, StepDescriptor.DEP_WORKER));
        assertEquals(0, local.field(0, StepDescriptor.CHUNK_COUNT), "a nop moves nothing: cnt 0");
        assertTrue(MscclValidator.check(schedule, true).isEmpty(), () -> MscclValidator.check(schedule, true)
            .toString());
        final MscclVerdict verdict = MscclSemanticCheck.check(schedule);
        assertTrue(verdict.correct(), verdict::toString);
    }

    /** tb 0 sends i[0] to the peer, tb 1 receives the peer's into s[0], tb 2 waits for both (a nop chain). */
    private static String gpuWithNops(final int rank, final int peer)
    {
        return "  <gpu id=\"" + rank + "\" i_chunks=\"1\" o_chunks=\"0\" s_chunks=\"1\">\n" +
            "    <tb id=\"0\" send=\"" + peer + "\" recv=\"-1\" chan=\"0\">\n" +
            "      <step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"-1\" cnt=\"1\" depid=\"-1\"" +
            " deps=\"-1\" hasdep=\"1\"/>\n    </tb>\n" +
            "    <tb id=\"1\" send=\"-1\" recv=\"" + peer + "\" chan=\"0\">\n" +
            "      <step s=\"0\" type=\"r\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"s\" dstoff=\"0\" cnt=\"1\" depid=\"-1\"" +
            " deps=\"-1\" hasdep=\"1\"/>\n    </tb>\n" +
            "    <tb id=\"2\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
            "      <step s=\"0\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"o\" dstoff=\"-1\" cnt=\"0\" " +
            "depid=\"0\" deps=\"0\" hasdep=\"0\"/>\n" +
            "      <step s=\"1\" type=\"re\" srcbuf=\"s\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"0\" cnt=\"1\" depid=\"1\"" +
            " deps=\"0\" hasdep=\"0\"/>\n    </tb>\n  </gpu>\n";
    }

    @Test
    void shouldRejectTruncatedFileWithLineAndPathWhenDocumentEndsEarly()
    {
        final MscclFormatException e = reject("truncated.xml");
        assertEquals(1, e.errors().size(), e::getMessage);
        final MscclProblem error = e.errors().get(0);
        assertEquals(12, error.line());
        assertEquals("algo/gpu[id=1]/tb[id=0]", error.path());
        assertTrue(error.message().startsWith("not well-formed XML"), error::message);
        assertTrue(e.getMessage().startsWith("truncated.xml had 1 error:"), e::getMessage);
        assertTrue(e instanceof JcclInvalidArgumentException);
    }

    @Test
    void shouldReportEveryUnknownStepTypeWhenSeveralAreWrong()
    {
        final MscclFormatException e = reject("unknown-step-type.xml");
        assertTrue(e.getMessage().startsWith("unknown-step-type.xml had 2 errors:"), e::getMessage);
        assertEquals("algo/gpu[id=0]/tb[id=0]/step[s=1]", e.errors().get(0).path());
        assertEquals(5, e.errors().get(0).line());
        assertTrue(e.errors().get(0).message().contains("unknown step type \"rrx\""));
        assertEquals("algo/gpu[id=1]/tb[id=0]/step[s=1]", e.errors().get(1).path());
        assertTrue(e.errors().get(1).message().contains("\"recv_reduce\""));
    }

    @Test
    void shouldReportEveryMissingAttributeWhenStepAndThreadblockLackOne()
    {
        final MscclFormatException e = reject("missing-attribute.xml");
        assertEquals(2, e.errors().size(), e::getMessage);
        assertEquals("line 5: algo/gpu[id=0]/tb[id=0]/step[s=1]: missing attribute cnt", e.errors().get(0)
            .toString());
        assertEquals("line 10: algo/gpu[id=1]/tb[id=0]: missing attribute chan", e.errors().get(1).toString());
    }

    @Test
    void shouldRejectTwoSendPeersWhenThreadblockDeclaresSendTwice()
    {
        final MscclFormatException e = reject("two-send-peers.xml");
        assertEquals(3, e.errors().get(0).line());
        assertTrue(e.getMessage().contains("\"send\" was already specified"), e::getMessage);
        assertTrue(e.getMessage().contains("at most one send peer"), e::getMessage);
    }

    @Test
    void shouldRejectStepNumberWhenItIsNotThePosition()
    {
        final MscclFormatException e = rejectXml(twoRanks(CURRENT, RANK1.replace("s=\"2\"", "s=\"3\"")));
        assertTrue(e.errors().get(0).message().contains("s=3 but this is step 2"), e::getMessage);
    }

    @Test
    void shouldRejectThreadblockIdsWhenTheyHaveAGap()
    {
        final MscclFormatException e = rejectXml(twoRanks(CURRENT, RANK1).replace("<tb id=\"0\" send=\"0\"",
            "<tb id=\"2\" send=\"0\""));
        assertTrue(e.getMessage().contains("tb 0-1 missing"), e::getMessage);
    }

    @Test
    void shouldRejectMissingAndDuplicateGpusWhenIdsDoNotCoverNgpus()
    {
        final MscclFormatException e = rejectXml(twoRanks(CURRENT, RANK1).replace("<gpu id=\"1\"",
            "<gpu id=\"0\""));
        assertTrue(e.getMessage().contains("a second <gpu id=\"0\">"), e::getMessage);
        final MscclFormatException e2 = rejectXml(twoRanks(CURRENT.replace("ngpus=\"2\"", "ngpus=\"3\""), RANK1));
        assertTrue(e2.getMessage().contains("no <gpu> for rank 2"), e2::getMessage);
    }

    @Test
    void shouldRejectBadValuesWhenNumbersBuffersOrNamesAreWrong()
    {
        final MscclFormatException e = rejectXml(twoRanks(CURRENT.replace("proto=\"Simple\"", "proto=\"Fast\"")
            .replace("coll=\"allreduce\"", "coll=\"alltoallv\""), RANK1.replace("srcbuf=\"i\" srcoff=\"0\"",
            "srcbuf=\"x\" srcoff=\"zero\"")));
        assertEquals(4, e.errors().size(), e::getMessage);
        assertTrue(e.getMessage().contains("coll=\"alltoallv\" is not supported"), e::getMessage);
        assertTrue(e.getMessage().contains("proto=\"Fast\" is not Simple, LL or LL128"), e::getMessage);
        assertTrue(e.getMessage().contains("srcbuf=\"x\" is not a buffer"), e::getMessage);
        assertTrue(e.getMessage().contains("srcoff=\"zero\" is not an integer"), e::getMessage);
    }

    @Test
    void shouldRejectChunkCountsWhenTheyExceedTheBuffer()
    {
        final MscclFormatException e = rejectXml(twoRanks(CURRENT, RANK1).replace("i_chunks=\"2\" o_chunks=\"0\" " +
            "s_chunks=\"0\">\n    <tb id=\"0\" send=\"0\"", "i_chunks=\"3\" o_chunks=\"0\" s_chunks=\"-1\">\n" +
            "    <tb id=\"0\" send=\"0\""));
        assertTrue(e.getMessage().contains("i_chunks=3 but the input of allreduce has 2 chunks"), e::getMessage);
        assertTrue(e.getMessage().contains("s_chunks=-1 is out of range"), e::getMessage);
    }

    @Test
    void shouldRejectNonMultipleChunksWhenCollectiveSplitsPerRank()
    {
        final MscclFormatException e = rejectXml(MscclTestFiles.resource("reducescatter-ring-4.xml")
            .replace("nchunksperloop=\"8\"", "nchunksperloop=\"6\""));
        assertTrue(e.getMessage().contains("nchunksperloop=6 is not a multiple of ngpus=4"), e::getMessage);
    }

    @Test
    void shouldIgnoreUnknownElementsAndAttributesWithWarningsWhenTheCParserWould()
    {
        final MscclSchedule schedule = new MscclReader().readString(twoRanks(CURRENT.replace(">",
            " algostep=\"3\">"), RANK1).replace("<gpu id=\"1\"", "<extra><step/></extra><gpu id=\"1\""), "x.xml");
        assertTrue(schedule.notes().stream().anyMatch(p -> p.message().contains("attribute algostep ignored")));
        assertTrue(schedule.notes().stream().anyMatch(p -> p.message().contains("element <extra> in <algo> " +
            "ignored")));
        assertTrue(MscclSemanticCheck.check(schedule).correct());
    }

    @Test
    void shouldReadRootedCollectivesWhenRootAttributeIsGiven()
    {
        final MscclSchedule schedule = new MscclReader().readString(twoRanks(CURRENT.replace("coll=\"allreduce\"",
            "coll=\"reduce\" root=\"1\""), RANK1), "r.xml");
        assertEquals(Collective.REDUCE, schedule.collective());
        assertEquals(1, schedule.root());
        assertEquals(1, schedule.program().root());
    }

    @Test
    void shouldThrowOnlyFormatExceptionWhenInputIsEmptyOrNotXmlOrMissing(@TempDir final Path dir)
    {
        rejectXml("");
        rejectXml("not xml at all");
        rejectXml("<gpu id=\"0\"/>");
        rejectXml("<algo/>");
        rejectXml("<algo name=\"a\" ngpus=\"99999999999999999999\"/>");
        rejectXml("<!DOCTYPE algo [<!ENTITY x \"y\">]><algo name=\"&x;\"/>");
        final MscclFormatException e = assertThrows(MscclFormatException.class,
            () -> new MscclReader().read(dir.resolve("absent.xml")));
        assertTrue(e.getMessage().contains("cannot read the file"), e::getMessage);
    }

    @Test
    void shouldParseNumbersAsCStrtolWhenPrefixesAreUsed()
    {
        assertArrayEquals(new long[] {-1, 10}, MscclReader.parseC("-1"));
        assertArrayEquals(new long[] {255, 16}, MscclReader.parseC(" 0xff "));
        assertArrayEquals(new long[] {8, 8}, MscclReader.parseC("010"));
        assertArrayEquals(new long[] {0, 10}, MscclReader.parseC("0"));
        assertNull(MscclReader.parseC("1e3"));
        assertNull(MscclReader.parseC("0x"));
        assertNull(MscclReader.parseC("\u0661"), "no non-ASCII digits");
        assertNull(MscclReader.parseC("99999999999999999999"));
    }
}
