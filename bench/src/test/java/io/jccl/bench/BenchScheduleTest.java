package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.Collective;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --schedule} on the bench's side, with stand-in ranks: the header line, the rows a file does not apply to
 * (named on stderr with the reason and the nearest sizes that work, listed after the table), and the files the
 * bench refuses before any rank exists.
 */
@Timeout(120)
class BenchScheduleTest
{
    @TempDir
    Path dir;

    private String stdout;
    private String stderr;

    private int run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            FakeCommunicators.factory(FakeCommunicators.Fault.NONE));
        stdout = out.toString(StandardCharsets.UTF_8);
        stderr = err.toString(StandardCharsets.UTF_8);
        return status;
    }

    @Test
    void shouldNameNearestSizesThatWorkWhenChunksDoNotDivideCount()
    {
        // a 3-rank ring cuts the buffer into 3 chunks: 1024 bytes of float is 256 elements, not a multiple of 3
        final BenchSchedule schedule = BenchSchedule.load(ScheduleFixtures.builtIn(dir, Algorithm.RING,
            Collective.ALL_REDUCE, 3, 1), BenchTool.ALL_REDUCE, 3);
        final String reason = schedule.whyNot(BenchTool.ALL_REDUCE, 3, false, 1024, 4);
        assertEquals("256 elements do not divide into its 3 chunks per loop; the nearest counts that do are 255 " +
            "and 258; the nearest sizes that work are 1020 and 1032 bytes", reason);
        assertNull(schedule.whyNot(BenchTool.ALL_REDUCE, 3, true, 1020, 4));
        assertNull(schedule.whyNot(BenchTool.ALL_REDUCE, 3, false, 3072, 4));
    }

    @Test
    void shouldStepByAlignedRankBlocksWhenAllGatherSizesWork()
    {
        // allgather over 4 ranks on 3 channels, 12 chunks: N must divide by 12, and nccl-tests makes only sizes
        // whose per-rank block is a multiple of 16 bytes (4 floats), so N steps by 16: lcm(12, 16) = 48 floats
        final BenchSchedule schedule = BenchSchedule.load(ScheduleFixtures.builtIn(dir, Algorithm.RING,
            Collective.ALL_GATHER, 4, 3), BenchTool.ALL_GATHER, 4);
        assertEquals(12, schedule.schedule().nchunksperloop());
        final String reason = schedule.whyNot(BenchTool.ALL_GATHER, 4, false, 256, 4);
        assertTrue(reason.endsWith("; the nearest sizes that work are 192 and 384 bytes"), reason);
        assertNull(schedule.whyNot(BenchTool.ALL_GATHER, 4, false, 192, 4));
        assertNull(schedule.whyNot(BenchTool.ALL_GATHER, 4, true, 384, 4));
    }

    @Test
    void shouldReportFallbackRowsOnStderrAndAfterTableWhenScheduleDoesNotApply()
    {
        final Path file = ScheduleFixtures.builtIn(dir, Algorithm.RING, Collective.ALL_REDUCE, 3, 1);
        assertEquals(0, run("all_reduce_perf", "-g", "3", "-b", "1020", "-e", "1024", "-i", "4", "-w", "0", "-n",
            "1", "--schedule", file.toString()), stderr);
        final List<String> lines = Arrays.asList(stdout.split("\n"));
        assertTrue(lines.contains("# Using schedule: ring (" + file + ") allreduce ngpus=3 proto=Simple " +
            "nchannels=1 nchunksperloop=3"), stdout);
        // 1020 bytes = 255 floats divides into 3 chunks; 1024 does not, in either placement
        assertTrue(lines.contains("# Built-in ran where schedule ring does not apply: float 1024 (out-of-place, " +
            "in-place)"), stdout);
        assertTrue(stderr.contains("all_reduce_perf: size 1024 (float, out-of-place) runs the built-in: schedule " +
            "ring does not apply: 256 elements do not divide into its 3 chunks per loop; the nearest counts that " +
            "do are 255 and 258; the nearest sizes that work are 1020 and 1032 bytes"), stderr);
        assertTrue(!stderr.contains("size 1020"), stderr);
        // the table keeps nccl-tests' 13 columns and adds jccl's plan
        final List<String> rows = lines.stream().filter(l -> !l.startsWith("#") && !l.isEmpty()).toList();
        assertEquals(2, rows.size(), stdout);
        rows.forEach(row -> assertEquals(14, row.trim().split(" +").length, row));
    }

    @Test
    void shouldSayEveryRowRanTheScheduleWhenItAlwaysApplies()
    {
        final Path file = ScheduleFixtures.builtIn(dir, Algorithm.RING, Collective.ALL_TO_ALL, 2, 1);
        assertEquals(0, run("alltoall_perf", "-g", "2", "-b", "64", "-e", "256", "-f", "2", "-w", "0", "-n", "1",
            "--schedule", file.toString()), stderr);
        assertTrue(stdout.contains("\n# Schedule direct ran every row\n# Out of bounds values : 0 OK"), stdout);
    }

    @Test
    void shouldRefuseAtStartWhenFileInvalidOrForAnotherCollectiveOrRankCount()
    {
        final Path invalid = ScheduleFixtures.own("two-send-peers.xml");
        assertEquals(JcclBench.EXIT_USAGE, run("all_reduce_perf", "-g", "2", "--schedule", invalid.toString()));
        assertTrue(stderr.startsWith("all_reduce_perf: --schedule " + invalid + " had "), stderr);
        assertTrue(stderr.contains("line "), stderr);
        assertEquals("", stdout);

        final Path truncated = ScheduleFixtures.own("truncated.xml");
        assertEquals(JcclBench.EXIT_USAGE, run("all_reduce_perf", "-g", "2", "--schedule", truncated.toString()));
        assertTrue(stderr.contains(truncated + " had "), stderr);

        final Path missing = dir.resolve("absent.xml");
        assertEquals(JcclBench.EXIT_USAGE, run("all_reduce_perf", "-g", "2", "--schedule", missing.toString()));
        assertTrue(stderr.contains("cannot read the file"), stderr);

        final Path ring = ScheduleFixtures.builtIn(dir, Algorithm.RING, Collective.ALL_REDUCE, 2, 1);
        assertEquals(JcclBench.EXIT_USAGE, run("all_gather_perf", "-g", "2", "--schedule", ring.toString()));
        assertTrue(stderr.contains(ring + " computes allreduce, but all_gather_perf runs allgather; run it with " +
            "all_reduce_perf"), stderr);

        assertEquals(JcclBench.EXIT_USAGE, run("all_reduce_perf", "-g", "4", "--schedule", ring.toString()));
        assertTrue(stderr.contains("is for ngpus=2 ranks, but this run has 4"), stderr);

        assertEquals(JcclBench.EXIT_USAGE, run("all_reduce_perf", "-g", "2", "--algo", "ring", "--schedule",
            ring.toString()));
        assertTrue(stderr.contains("a pinned algorithm beats a schedule"), stderr);
        assertEquals("", stdout);
    }

    @Test
    void shouldRunAndWarnWhenScheduleValidButWrong()
    {
        final Path wrong = ScheduleFixtures.own("reducescatter-double-count.xml");
        final BenchSchedule schedule = BenchSchedule.load(wrong, BenchTool.REDUCE_SCATTER, 4);
        assertTrue(!schedule.verdict().correct());
        assertThrows(IllegalArgumentException.class, () -> BenchSchedule.load(wrong, BenchTool.ALL_REDUCE, 4));
    }
}
