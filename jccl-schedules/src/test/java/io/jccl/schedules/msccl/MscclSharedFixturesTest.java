package io.jccl.schedules.msccl;

import io.jccl.Collective;
import io.jccl.Protocol;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real files of ../shared/schedules/msccl-xml (SOURCES.md): 17 valid, 2 invalid. Skipped where absent. */
class MscclSharedFixturesTest
{
    /** SOURCES.md's table: collective, ngpus, protocol, nchannels, nchunksperloop. */
    private static final Map<String, Object[]> DECLARED = Map.ofEntries(
        Map.entry("A-Dying-Pig_taccl__Alltoall.n8-MI300X-DUMB-steps2_i1_scRemote1_IBContig.sccl.xml",
            new Object[] {Collective.ALL_TO_ALL, 8, Protocol.SIMPLE, 1, 8}),
        Map.entry("Azure_msccl-scheduler__ncv4_ag_hier_4_LL.xml",
            new Object[] {Collective.ALL_GATHER, 4, Protocol.LL, 4, 16}),
        Map.entry("Azure_msccl-scheduler__ncv4_ar_hier_12_Simple.xml",
            new Object[] {Collective.ALL_REDUCE, 4, Protocol.SIMPLE, 24, 24}),
        Map.entry("Azure_msccl-scheduler__ndv4_a2a2ll.xml",
            new Object[] {Collective.ALL_TO_ALL, 8, Protocol.LL, 2, 16}),
        Map.entry("Azure_msccl-scheduler__ndv4_ag-2m.xml",
            new Object[] {Collective.ALL_GATHER, 8, Protocol.LL128, 32, 32}),
        Map.entry("Azure_msccl-scheduler__ndv4_r48ll128.xml",
            new Object[] {Collective.ALL_REDUCE, 8, Protocol.LL128, 32, 64}),
        Map.entry("ROCm_rccl__alltoall-8n-0-9kb.xml",
            new Object[] {Collective.ALL_TO_ALL, 8, Protocol.LL, 1, 8}),
        Map.entry("rouge3877_ns3-msccl-data__ar_allpair_LL128_x_1.xml",
            new Object[] {Collective.ALL_REDUCE, 8, Protocol.LL128, 1, 64}),
        Map.entry("dailiuyao_msccl_tools_lyd__allreduce_binary_tree_Simple_gpu2_ins1.xml",
            new Object[] {Collective.ALL_REDUCE, 2, Protocol.SIMPLE, 1, 2}),
        Map.entry("dailiuyao_msccl_tools_lyd__allreduce_binary_tree_Simple_gpu64_ins1.xml",
            new Object[] {Collective.ALL_REDUCE, 64, Protocol.SIMPLE, 1, 2}),
        Map.entry("dailiuyao_msccl_tools_lyd__allreduce_a100_ring_ch24_manul_scratch.xml",
            new Object[] {Collective.ALL_REDUCE, 4, Protocol.SIMPLE, 24, 24}),
        Map.entry("rouge3877_ns3-msccl__allreduce_hierarchical_16_1.xml",
            new Object[] {Collective.ALL_REDUCE, 16, Protocol.SIMPLE, 1, 16}),
        Map.entry("spriestgcl_teccl-msccl__test.xml",
            new Object[] {Collective.ALL_REDUCE, 2, Protocol.LL, 2, 8}),
        Map.entry("spriestgcl_teccl-msccl__A800_4GPU_1_chassis_AllGather_Fast_64MB.xml",
            new Object[] {Collective.ALL_GATHER, 4, Protocol.SIMPLE, 1, 4}),
        Map.entry("Nonene2546_msccl-2host-2gpu__syccl_result-2host-2gpu-pcie-ag-0-Simple.xml",
            new Object[] {Collective.ALL_GATHER, 4, Protocol.SIMPLE, 1, 4}),
        Map.entry("mcrl_TACCL-experiment-codebase__A_allgather.A.n2.gpu2.i3.xml",
            new Object[] {Collective.ALL_GATHER, 4, Protocol.SIMPLE, 3, 12}),
        Map.entry("mcrl_TACCL-experiment-codebase__A_allreduce.A.n1.gpu4.i3.xml",
            new Object[] {Collective.ALL_REDUCE, 4, Protocol.SIMPLE, 3, 3}));

    private static final String TACCL_ALLTOALL =
        "A-Dying-Pig_taccl__Alltoall.n8-MI300X-DUMB-steps2_i1_scRemote1_IBContig.sccl.xml";
    private static final String TACCL_ALLREDUCE = "mcrl_TACCL-experiment-codebase__A_allreduce.A.n1.gpu4.i3.xml";
    private static final String INVALID_REDUCE_SCATTER =
        "invalid/mcrl_TACCL-experiment-codebase__A_reducescatter.A.n1.gpu2.i3.xml";
    private static final String INVALID_DEADLOCK =
        "invalid/spriestgcl_teccl-msccl__nvswitch16_AllGather_Fast_64MB_msccl_strict.xml";

    @Test
    void shouldFindSeventeenValidAndTwoInvalidFilesWhenSharedFixturesArePresent()
    {
        assertEquals(17, MscclTestFiles.sharedValid().size(), MscclTestFiles.sharedValid()::toString);
        assertEquals(2, MscclTestFiles.sharedInvalid().size());
    }

    @TestFactory
    Stream<DynamicTest> shouldLoadValidateAndComputeTheDeclaredCollectiveWhenFixtureIsValid()
    {
        return MscclTestFiles.sharedValid().stream().map(file -> DynamicTest.dynamicTest(
            file.getFileName().toString(), () ->
            {
                final MscclSchedule schedule = new MscclReader().read(file);
                final Object[] declared = DECLARED.get(file.getFileName().toString());
                assertEquals(declared[0], schedule.collective());
                assertEquals(declared[1], schedule.ngpus());
                assertEquals(declared[2], schedule.protocol());
                assertEquals(declared[3], schedule.nchannels());
                assertEquals(declared[4], schedule.nchunksperloop());
                assertEquals(schedule.ngpus(), schedule.program().ranks());
                MscclValidator.validate(schedule, true);
                final MscclVerdict verdict = MscclSemanticCheck.check(schedule);
                assertTrue(verdict.correct(), verdict::toString);
            }));
    }

    @Test
    void shouldReadLegacyDialectWithDefaultsAndWarnInStrictModeWhenAttributesAreMissing()
    {
        final MscclSchedule schedule = new MscclReader().read(MscclTestFiles.shared(
            "dailiuyao_msccl_tools_lyd__allreduce_binary_tree_Simple_gpu2_ins1.xml"));
        assertTrue(schedule.inPlace());
        assertFalse(schedule.outOfPlace());
        assertEquals(0, schedule.minBytes());
        assertEquals(Long.MAX_VALUE, schedule.maxBytes());
        final List<MscclProblem> strict = MscclValidator.check(schedule, true);
        assertTrue(strict.stream().anyMatch(p -> p.severity() == MscclProblem.Severity.C_EXECUTOR &&
            p.message().contains("minBytes")), strict::toString);
        assertTrue(MscclValidator.check(schedule, false).isEmpty());
    }

    @Test
    void shouldReadCurrentDialectByteRangeWhenPresent()
    {
        final MscclSchedule schedule = new MscclReader().read(MscclTestFiles.shared(
            "Azure_msccl-scheduler__ncv4_ag_hier_4_LL.xml"));
        assertEquals(64, schedule.minBytes());
        assertEquals(792576, schedule.maxBytes());
        assertFalse(schedule.inPlace());
        assertTrue(schedule.outOfPlace());
        assertTrue(MscclValidator.check(schedule, true).isEmpty(), () -> MscclValidator.check(schedule, true)
            .toString());
    }

    @Test
    void shouldNeedTacclCopiesWhenAlltoallSelfBlocksAreNeverMoved()
    {
        final Path file = MscclTestFiles.shared(TACCL_ALLTOALL);
        final MscclSchedule applied = new MscclReader().read(file);
        assertEquals(9, applied.program().workers(0).size(), "8 threadblocks and the precopy worker");
        assertEquals(8, applied.sourceMap().precopyWorker(0));
        assertTrue(MscclSemanticCheck.check(applied).correct());

        final MscclSchedule ignored = new MscclReader(false).read(file);
        assertEquals(8, ignored.program().workers(0).size());
        final MscclVerdict verdict = MscclSemanticCheck.check(ignored);
        assertFalse(verdict.correct());
        assertTrue(verdict.summary().contains("rank 0 o[0] was never written"), verdict::summary);
    }

    @Test
    void shouldWarnOfNeverWrittenScratchWhenTacclAllreduceReadsIt()
    {
        final MscclVerdict verdict = MscclSemanticCheck.check(new MscclReader().read(
            MscclTestFiles.shared(TACCL_ALLREDUCE)));
        assertTrue(verdict.correct(), verdict::toString);
        assertTrue(verdict.problems().stream().anyMatch(p -> p.message().contains("33 reads of never-written")),
            verdict::toString);
        // its in-place <copy> elements copy chunks onto themselves: dropped, no precopy worker
        assertEquals(-1, new MscclReader().read(MscclTestFiles.shared(TACCL_ALLREDUCE)).sourceMap()
            .precopyWorker(0));
    }

    @Test
    void shouldRejectTacclReduceScatterWhenItHasNoReductionStep()
    {
        final MscclSchedule schedule = new MscclReader().read(MscclTestFiles.sharedDir()
            .resolve(INVALID_REDUCE_SCATTER));
        assertEquals(Collective.REDUCE_SCATTER, schedule.collective(), "reduce_scatter is read as reducescatter");
        MscclValidator.validate(schedule);
        final MscclVerdict verdict = MscclSemanticCheck.check(schedule);
        assertFalse(verdict.correct());
        assertTrue(verdict.summary().contains("rank 0 o[0] holds i[0] of rank 0; it should hold i[0] of ranks " +
            "0-1"), verdict::summary);
        assertTrue(verdict.problems().stream().anyMatch(p -> p.message().contains("6 of 6 output chunks wrong")),
            verdict::toString);
    }

    @Test
    void shouldRejectTeCclAllgatherWhenEveryThreadblockStartsWithReceive()
    {
        final MscclSchedule schedule = new MscclReader().read(MscclTestFiles.sharedDir().resolve(INVALID_DEADLOCK));
        final MscclFormatException e = assertThrows(MscclFormatException.class,
            () -> MscclValidator.validate(schedule));
        assertTrue(e.getMessage().contains("deadlock: 114 of 114 threadblocks cannot finish"), e::getMessage);
        assertTrue(e.errors().get(0).message().startsWith("deadlock: a cycle of 2 waits"), e::getMessage);
        assertTrue(e.errors().get(0).line() > 0);
        assertFalse(MscclSemanticCheck.check(schedule).correct());
    }
}
