package io.jccl.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tools end to end on {@link FakeCommunicators}: the table's shape, every tool, type and operator, threads,
 * blocking and aggregated calls, and the verdict when results are wrong.
 */
@Timeout(120)
class JcclBenchTest
{
    /** A data row: size, count, type, redop, root, then two (time, algbw, busbw, #wrong) groups, then the plan. */
    private static final Pattern ROW = Pattern.compile(
        " {0,11}\\d+ {2,13}\\d+ +\\S+ +\\S+ +-?\\d+(?: +[0-9.]+ +[0-9.]+ +[0-9.]+ +(?:\\d+|N/A)){2}  \\S+");

    private String stdout;
    private String stderr;

    private int run(final FakeCommunicators.Fault fault, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), FakeCommunicators.factory(fault));
        stdout = out.toString(StandardCharsets.UTF_8);
        stderr = err.toString(StandardCharsets.UTF_8);
        return status;
    }

    /** @return a row without jccl's trailing plan column. */
    private static String withoutPlan(final String row)
    {
        return row.substring(0, row.lastIndexOf("  "));
    }

    private List<String> rows()
    {
        return Arrays.stream(stdout.split("\n")).filter(line -> !line.startsWith("#") && !line.isEmpty()).toList();
    }

    @Test
    void shouldPrintNcclTestsTableWhenAllReduceRuns()
    {
        assertEquals(0, run(FakeCommunicators.Fault.NONE, "all_reduce_perf", "-b", "8", "-e", "1K", "-f", "2", "-g",
            "2", "-w", "1", "-n", "2"), stderr);
        final String[] lines = stdout.split("\n", -1);
        assertEquals("# nThread 1 nGpus 2 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 1 iters: 2 " +
            "agg iters: 1 validation: 1 graph: 0", lines[0]);
        assertEquals("#", lines[1]);
        assertEquals("# Using devices", lines[2]);
        assertTrue(lines[3].matches("#  Rank  0 Group  0 Pid +\\d+ on +\\S+ device  0 \\[cpu\\] host"), lines[3]);
        assertTrue(lines[4].matches("#  Rank  1 Group  0 Pid +\\d+ on +\\S+ device  1 \\[cpu\\] host"), lines[4]);
        assertEquals("#", lines[5]);
        assertEquals(List.of(TableFormatter.columnHeaders("time")), List.of(lines[6], lines[7], lines[8]));
        final List<String> rows = rows();
        assertEquals(8, rows.size(), stdout);
        long size = 8;
        for (final String row : rows)
        {
            assertTrue(ROW.matcher(row).matches(), row);
            assertTrue(row.startsWith(String.format("%12d  %12d     float     sum      -1", size, size / 4)), row);
            assertTrue(withoutPlan(row).endsWith("      0"), row);
            size *= 2;
        }
        final int footer = 9 + rows.size();
        assertEquals("# Out of bounds values : 0 OK", lines[footer]);
        assertTrue(lines[footer + 1].matches("# Avg bus bandwidth    : [0-9.e+-]+ "), lines[footer + 1]);
        assertEquals("#", lines[footer + 2]);
        assertEquals("", lines[footer + 3]);
    }

    @Test
    void shouldPassEveryTypeAndOpWhenEveryTool()
    {
        for (final BenchTool tool : BenchTool.values())
        {
            // hypercube_perf takes powers of two only
            final int ranks = tool == BenchTool.HYPERCUBE ? 4 : 3;
            assertEquals(0, run(FakeCommunicators.Fault.NONE, tool.toolName(), "-b", "64", "-e", "256", "-f", "4",
                "-g", String.valueOf(ranks), "-w", "0", "-n", "1", "-d", "all", "-o", "all", "-r", "-1"),
                tool + " " + stderr);
            final int ops = tool.hasOp() ? 6 : 1;
            final int roots = tool.hasRoot() ? ranks : 1;
            assertEquals(12 * ops * roots * 2, rows().size(), tool + "\n" + stdout);
            assertTrue(stdout.contains("# Out of bounds values : 0 OK"), stdout);
        }
    }

    @Test
    void shouldPrintNoneAndRootWhenBroadcast()
    {
        assertEquals(0, run(FakeCommunicators.Fault.NONE, "broadcast_perf", "-b", "1K", "-e", "1K", "-g", "2", "-r",
            "1", "-w", "0", "-n", "1"), stderr);
        assertTrue(rows().get(0).startsWith("        1024           256     float    none       1"), rows().get(0));
    }

    @Test
    void shouldPrintNotApplicableWhenCheckOff()
    {
        assertEquals(0, run(FakeCommunicators.Fault.FLIP_OUTPUT, "all_gather_perf", "-b", "1K", "-e", "1K", "-g", "2",
            "-c", "0", "-w", "0", "-n", "1"), stderr);
        assertTrue(withoutPlan(rows().get(0)).endsWith("    N/A"), rows().get(0));
        assertTrue(stdout.contains("validation: 0 graph: 0"));
    }

    @Test
    void shouldFailWhenResultsWrong()
    {
        assertEquals(1, run(FakeCommunicators.Fault.FLIP_OUTPUT, "reduce_scatter_perf", "-b", "1K", "-e", "1K", "-g",
            "2", "-w", "0", "-n", "1"), stderr);
        assertTrue(stdout.contains("# Out of bounds values : 2 FAILED"), stdout);
        assertTrue(withoutPlan(rows().get(0)).matches(".* +1 +\\S+ +\\S+ +\\S+ +1"), rows().get(0));
    }

    @Test
    void shouldFailWhenCallWritesPastItsBuffer()
    {
        assertEquals(1, run(FakeCommunicators.Fault.WRITE_PAST_END, "all_reduce_perf", "-b", "1K", "-e", "1K", "-g",
            "2", "-w", "0", "-n", "1"), stderr);
        assertTrue(stdout.contains("FAILED"), stdout);
    }

    @Test
    void shouldRunThreadsBlockingAndAggregatedWhenAsked()
    {
        assertEquals(0, run(FakeCommunicators.Fault.NONE, "all_reduce_perf", "-t", "2", "-g", "2", "-b", "1K", "-e",
            "4K", "-f", "2", "-z", "1", "-m", "3", "-n", "2", "-w", "1", "-N", "2", "-a", "2", "-C", "1"), stderr);
        assertTrue(stdout.contains("# Blocking Enabled: wait for completion and barrier after each collective \n"));
        assertTrue(stdout.contains("root  cputime   algbw"), stdout);
        assertEquals(6, rows().size(), stdout);
        assertTrue(stdout.contains("#  Rank  3 Group  0"), stdout);
    }

    @Test
    void shouldReturnUsageStatusWhenArgumentsBad()
    {
        assertEquals(JcclBench.EXIT_USAGE, run(FakeCommunicators.Fault.NONE));
        assertEquals(JcclBench.EXIT_USAGE, run(FakeCommunicators.Fault.NONE, "alltoallv_perf"));
        assertTrue(stderr.contains("all_reduce_perf"), stderr);
        assertEquals(JcclBench.EXIT_USAGE, run(FakeCommunicators.Fault.NONE, "all_reduce_perf", "-b", "1M", "-e",
            "1K"));
        assertTrue(stderr.contains("invalid sizes for 'minbytes' and 'maxbytes'"), stderr);
        assertEquals(JcclBench.EXIT_USAGE, run(FakeCommunicators.Fault.NONE, "all_reduce_perf", "-d", "quad"));
        assertEquals(JcclBench.EXIT_USAGE, run(FakeCommunicators.Fault.NONE, "all_reduce_perf", "-x", "1"));
        assertEquals("", stdout);
    }

    @Test
    void shouldListToolsAndScheduleCommandsWhenTopLevelHelp()
    {
        assertEquals(0, run(FakeCommunicators.Fault.NONE, "-h"));
        assertTrue(stdout.contains("alltoall_perf"), stdout);
        assertTrue(stdout.contains("--schedule FILE"), stdout);
        assertTrue(stdout.contains("jccl-bench verify [--strict] FILE..."), stdout);
        assertTrue(stdout.contains("jccl-bench export --coll <collective>"), stdout);
        assertEquals(JcclBench.EXIT_USAGE, run(FakeCommunicators.Fault.NONE));
        assertTrue(stderr.contains("jccl-bench verify"), stderr);
    }

    @Test
    void shouldPrintNoneAndPeerBlockCountWhenAllToAll()
    {
        assertEquals(0, run(FakeCommunicators.Fault.NONE, "alltoall_perf", "-b", "1K", "-e", "1K", "-g", "4", "-w",
            "0", "-n", "1"), stderr);
        // 1024 bytes of float over 4 ranks: 64 elements to each peer
        assertTrue(rows().get(0).startsWith("        1024            64     float    none      -1"), rows().get(0));
        assertTrue(withoutPlan(rows().get(0)).endsWith("      0"), rows().get(0));
        assertEquals(1, run(FakeCommunicators.Fault.FLIP_OUTPUT, "alltoall_perf", "-b", "1K", "-e", "1K", "-g",
            "2", "-w", "0", "-n", "1"), stderr);
        assertTrue(stdout.contains("# Out of bounds values : 2 FAILED"), stdout);
    }

    @Test
    void shouldPrintUsageOnStdoutWhenHelp()
    {
        assertEquals(0, run(FakeCommunicators.Fault.NONE, "all_reduce_perf", "-h"));
        assertTrue(stdout.startsWith("Usage: all_reduce_perf"), stdout);
        assertTrue(stdout.contains("-b, --minbytes=<min size in bytes>"), stdout);
        assertTrue(stdout.contains("--algo=<spec>"), stdout);
        assertTrue(stdout.contains("--sweep=<key=v1,v2,...>"), stdout);
        assertTrue(stdout.contains("--schedule=<file.xml>"), stdout);
    }
}
