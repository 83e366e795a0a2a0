package io.jccl.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * all_reduce_perf in this JVM on jccl's runtime (two ranks, one thread, group calls): the tool exits 0 and prints
 * nccl-tests' table with every result checked right.
 */
class JcclBenchOnCoreTest
{
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
            assertEquals(13, columns.length, rows.get(i));
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
}
