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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tools in this JVM on jccl's runtime (one thread, group calls): all_reduce_perf, alltoall_perf,
 * all_reduce_perf running MSCCL XML schedules, and a sweep over protocols; each exits 0 and prints nccl-tests' table
 * with every result checked right.
 */
class JcclBenchOnCoreTest
{
    private String stdout;
    private String stderr;

    @Test
    @Timeout(120)
    void shouldPrintCheckedTableWhenAllReduceRunsOnJccl()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = JcclBench.run(new String[] {"all_reduce_perf", "-b", "8", "-e", "64K", "-f", "4", "-g",
            "2", "-w", "2", "-n", "5", "--timeout-ms", "60000"},
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        final String table = out.toString(StandardCharsets.UTF_8);

        assertEquals(0, status, table + err.toString(StandardCharsets.UTF_8));
        final List<String> lines = Arrays.asList(table.split("\n", -1));
        assertTrue(lines.get(0).startsWith("# nThread 1 nGpus 2 minBytes 8 maxBytes 65536 step: 4(factor)"),
            lines.get(0));
        assertEquals("# Using devices", lines.get(2));
        assertTrue(lines.get(3).startsWith("#  Rank  0 Group  0 Pid "), lines.get(3));
        assertTrue(lines.get(4).startsWith("#  Rank  1 Group  0 Pid "), lines.get(4));
        assertEquals(List.of(TableFormatter.columnHeaders("time")), lines.subList(6, 9));
        final List<String> rows = lines.subList(9, lines.size() - 5);
        final long[] sizes = {8, 32, 128, 512, 2048, 8192, 32768};
        assertEquals(sizes.length, rows.size(), table);
        for (int i = 0; i < sizes.length; i++)
        {
            final String[] columns = rows.get(i).trim().split(" +");
            assertEquals(14, columns.length, rows.get(i));
            assertEquals(List.of(Long.toString(sizes[i]), Long.toString(sizes[i] / 4), "float", "sum", "-1"),
                List.of(columns).subList(0, 5), rows.get(i));
            assertEquals("0", columns[8], "out-of-place #wrong: " + rows.get(i));
            assertEquals("0", columns[12], "in-place #wrong: " + rows.get(i));
            assertTrue(Double.parseDouble(columns[5]) > 0, rows.get(i));
        }
        assertEquals("# Out of bounds values : 0 OK", lines.get(lines.size() - 5));
        assertTrue(lines.get(lines.size() - 4).startsWith("# Avg bus bandwidth    : "));
        assertEquals(List.of("#", "", ""), lines.subList(lines.size() - 3, lines.size()));
    }

    @Test
    @Timeout(180)
    void shouldExchangeEveryBlockWhenAllToAllRunsOnJccl()
    {
        final int status = runTool("alltoall_perf", "-b", "64", "-e", "64K", "-f", "4", "-g", "4", "-c", "1");
        assertEquals(0, status, stdout + stderr);
        // per peer: size / 4 bytes / 4 ranks, aligned down to 4 floats
        final List<String> rows = assertEveryRowRight(new long[] {64, 256, 1024, 4096, 16384, 65536});
        assertTrue(rows.get(0).startsWith("          64             4     float    none      -1"), rows.get(0));
    }

    @Test
    @Timeout(180)
    void shouldRunScheduleAndNameFallbackRowsWhenAllReducePerfGivenScheduleFile(@TempDir final Path dir)
    {
        // jccl's own ring for 4 ranks, written as MSCCL XML: 4 chunks, so 100 bytes (25 floats) runs the built-in
        final Path file = ScheduleFixtures.builtIn(dir, Algorithm.RING, Collective.ALL_REDUCE, 4, 1);
        final int status = runTool("all_reduce_perf", "-b", "100", "-e", "6400", "-f", "4", "-g", "4", "-c", "1",
            "--schedule", file.toString());
        assertEquals(0, status, stdout + stderr);
        assertTrue(stdout.contains("\n# Using schedule: ring (" + file + ") allreduce ngpus=4 proto=Simple " +
            "nchannels=1 nchunksperloop=4\n"), stdout);
        assertEveryRowRight(new long[] {100, 400, 1600, 6400});
        assertTrue(stdout.contains("\n# Built-in ran where schedule ring does not apply: float 100 (out-of-place, " +
            "in-place)\n"), stdout);
        assertTrue(stderr.contains("size 100 (float, in-place) runs the built-in: schedule ring does not apply: " +
            "25 elements do not divide into its 4 chunks per loop"), stderr);
    }

    @Test
    @Timeout(180)
    void shouldRunTacclScheduleInPlaceWhenAllReducePerfGivenSharedFixture()
    {
        // TACCL's allreduce for 4 ranks: in place only, 3 chunks per loop
        final Path file = ScheduleFixtures.shared("mcrl_TACCL-experiment-codebase__A_allreduce.A.n1.gpu4.i3.xml");
        final int status = runTool("all_reduce_perf", "-b", "96", "-e", "6K", "-f", "4", "-g", "4", "-c", "1",
            "--schedule", file.toString());
        assertEquals(0, status, stdout + stderr);
        assertEveryRowRight(new long[] {96, 384, 1536, 6144});
        assertTrue(stdout.contains("\n# Built-in ran where schedule taccl does not apply: float 96 (out-of-place), " +
            "float 384 (out-of-place), float 1536 (out-of-place), float 6144 (out-of-place)\n"), stdout);
        assertTrue(stderr.contains("it does not serve out-of-place calls"), stderr);
    }

    @Test
    @Timeout(180)
    void shouldRunEachProtocolAndSumUpWhenSweepOverProtoOnJccl()
    {
        final int status = runExactly("all_reduce_perf", "-g", "2", "-b", "8", "-e", "64", "-f", "8", "-n", "1", "-w",
            "0", "--timeout-ms", "60000", "--sweep", "proto=simple,ll");
        assertEquals(0, status, stdout + stderr);
        final List<String> lines = Arrays.asList(stdout.split("\n"));
        final int simple = lines.indexOf("# sweep combination 1/2: proto=simple");
        final int ll = lines.indexOf("# sweep combination 2/2: proto=ll");
        final int fallback = lines.indexOf("# sweep combination default: no pins from the sweep (the tuner's choice)");
        final int summary = lines.indexOf(lines.stream().filter(l -> l.startsWith("# Sweep summary: the best of 2 " +
            "combinations against the default")).findFirst().orElse("(no summary)"));
        assertTrue(0 <= simple && simple < ll && ll < fallback && fallback < summary, stdout);
        assertPlansUse("simple", dataRows(lines.subList(simple, ll)));
        assertPlansUse("ll", dataRows(lines.subList(ll, fallback)));
        assertEquals(2, dataRows(lines.subList(fallback, summary)).size(), stdout);
        final List<String> summaryRows = dataRows(lines.subList(summary, lines.size()));
        assertEquals(2, summaryRows.size(), stdout);
        for (final String row : summaryRows)
        {
            final String[] columns = row.trim().split(" +");
            assertEquals(10, columns.length, row);
            assertTrue(List.of("proto=simple", "proto=ll").contains(columns[5]), row);
        }
        assertEquals(3, lines.stream().filter(l -> l.equals("# Out of bounds values : 0 OK")).count(), stdout);
    }

    private static List<String> dataRows(final List<String> lines)
    {
        return lines.stream().filter(l -> !l.startsWith("#") && !l.isEmpty()).toList();
    }

    /** Every row's plan column (out-of-place, and in-place after a '|' if it differs) runs the protocol. */
    private static void assertPlansUse(final String protocol, final List<String> rows)
    {
        assertEquals(2, rows.size(), String.join("\n", rows));
        for (final String row : rows)
        {
            final String[] columns = row.trim().split(" +");
            assertEquals(14, columns.length, row);
            assertEquals("0", columns[8], "out-of-place #wrong: " + row);
            for (final String plan : columns[13].split("\\|"))
            {
                assertEquals(protocol, plan.split("/")[1], row);
            }
        }
    }

    @Test
    @Timeout(180)
    void shouldRunEveryCollectiveRightOnTheCudaPathOfTheDeviceDouble()
    {
        // --device emulated: device buffers, the interpreter kernel's records run in Java, results copied back
        for (final String tool : List.of("all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "broadcast_perf",
            "reduce_perf"))
        {
            final int status = runTool(tool, "-b", "64", "-e", "256K", "-f", "64", "-g", "4", "-c", "1", "-d",
                "half", "--device", "emulated");
            assertEquals(0, status, tool + ": " + stdout + stderr);
            final List<String> rows = assertEveryRowRight(new long[] {64, 4096, 262144});
            assertTrue(rows.get(2).trim().endsWith("/512K"), "pieces fill a 512 KiB slot on a GPU: " + rows.get(2));
        }
    }

    @Test
    @Timeout(120)
    void shouldNameTheDeviceFlagAndTheMissingDriver()
    {
        assertEquals(2, runTool("all_reduce_perf", "-b", "8", "-e", "8", "--device", "gpu"), stdout + stderr);
        assertTrue(stderr.contains("--device") && stderr.contains("gpu"), stderr);
        org.junit.jupiter.api.Assumptions.assumeFalse(io.jccl.kernels.cuda.CudaProbe.availability().available(),
            "a CUDA device is present: --device cuda would run");
        assertEquals(2, runTool("all_reduce_perf", "-b", "8", "-e", "8", "--device", "cuda"), stdout + stderr);
        assertTrue(stderr.contains("--device cuda was asked for but "), stderr);
        assertEquals(0, runTool("all_reduce_perf", "-b", "8", "-e", "8", "--device", "auto"), stdout + stderr);
        assertTrue(stdout.contains("\n# Out of bounds values : 0 OK\n"), stdout);
    }

    @Test
    @Timeout(180)
    void shouldPassTheGpuCheckOnTheDeviceDouble()
    {
        assertEquals(0, runExactly("gpu-check", "--emulated"), stdout + stderr);
        assertTrue(stdout.contains("RESULT grid_wrong_cases 0\n"), stdout);
        // per rank count: ring x 5 tools, tree x 3 (AllReduce, Broadcast, Reduce), direct x 3 (AllReduce, AllGather,
        // ReduceScatter)
        assertTrue(stdout.contains("RESULT grid_cases 3312\n"), stdout);
        assertTrue(stdout.contains("RESULT sum_kernel_GBps "), stdout);
        assertTrue(stdout.contains("RESULT launch_roundtrip_us "), stdout);
        assertTrue(stdout.contains("RESULT allreduce_8B_1rank_us "), stdout);
        assertTrue(stdout.contains("RESULT allreduce_8B_2rank_us "), stdout);
    }

    private int runTool(final String... args)
    {
        final String[] all = Arrays.copyOf(args, args.length + 6);
        System.arraycopy(new String[] {"-w", "1", "-n", "2", "--timeout-ms", "60000"}, 0, all, args.length, 6);
        return runExactly(all);
    }

    private int runExactly(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        stdout = out.toString(StandardCharsets.UTF_8);
        stderr = err.toString(StandardCharsets.UTF_8);
        return status;
    }

    private List<String> assertEveryRowRight(final long[] sizes)
    {
        final List<String> rows = Arrays.stream(stdout.split("\n")).filter(l -> !l.startsWith("#") && !l.isEmpty())
            .toList();
        assertEquals(sizes.length, rows.size(), stdout);
        for (int i = 0; i < sizes.length; i++)
        {
            final String[] columns = rows.get(i).trim().split(" +");
            assertEquals(14, columns.length, rows.get(i));
            assertEquals(Long.toString(sizes[i]), columns[0], rows.get(i));
            assertEquals("0", columns[8], "out-of-place #wrong: " + rows.get(i));
            assertEquals("0", columns[12], "in-place #wrong: " + rows.get(i));
        }
        assertTrue(stdout.contains("\n# Out of bounds values : 0 OK\n"), stdout);
        return rows;
    }
}
