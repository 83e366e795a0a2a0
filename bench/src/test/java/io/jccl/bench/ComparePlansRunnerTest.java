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
 * {@code --compare-plans} end to end on jccl's runtime, every rank in this JVM: one row per size, each plan's
 * medians and ratio, its result checked, and the plan each one ran.
 */
class ComparePlansRunnerTest
{
    @Test
    @Timeout(120)
    void shouldPrintMediansAndPlansWhenAllReduceComparesDefaultWithLl()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = JcclBench.run(new String[] {"all_reduce_perf", "-g", "2", "-b", "1K", "-e", "1K", "-n",
            "2", "-w", "0", "--jit-warmup-ms", "0", "--rounds", "2", "--compare-plans", "default;proto=ll"},
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        final String table = out.toString(StandardCharsets.UTF_8);

        assertEquals(0, status, table + err.toString(StandardCharsets.UTF_8));
        final List<String> lines = Arrays.asList(table.split("\n", -1));
        assertTrue(lines.get(0).startsWith("# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024"), lines.get(0));
        assertEquals("# plan A: default", lines.get(1));
        assertEquals("# plan B: proto=ll", lines.get(2));
        assertTrue(lines.get(3).contains("medians over 2 rounds of 2 calls"), lines.get(3));
        final List<String> rows = lines.stream().filter(line -> !line.startsWith("#") && !line.isEmpty()).toList();
        assertEquals(1, rows.size(), table);
        final String[] columns = rows.get(0).trim().split(" +");
        assertEquals(12, columns.length, rows.get(0));
        assertEquals(List.of("1024", "256", "float", "0"), List.of(columns).subList(0, 4), rows.get(0));
        assertTrue(Double.parseDouble(columns[4]) > 0, rows.get(0));
        assertTrue(Double.parseDouble(columns[6]) > 0, rows.get(0));
        assertEquals("1.00", columns[8], rows.get(0));
        // B/A from the unrounded medians: the printed busbw of a cold JIT may round to 0.00
        assertTrue(Double.parseDouble(columns[9]) > 0, rows.get(0));
        assertTrue(columns[10].contains("/simple/"), columns[10]);
        assertTrue(columns[11].contains("/ll/"), columns[11]);
        assertTrue(lines.contains("# Out of bounds values : 0 OK"), table);
    }

    @Test
    @Timeout(120)
    void shouldMeasureUnderTheLoadWhenALoadIsAsked()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status = JcclBench.run(new String[] {"all_reduce_perf", "-g", "2", "-b", "1K", "-e", "1K", "-n",
            "2", "-w", "0", "--jit-warmup-ms", "0", "--rounds", "1", "--compare-plans", "default;proto=ll",
            "--load", "matmul:1"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        final String table = out.toString(StandardCharsets.UTF_8);

        assertEquals(0, status, table);
        assertTrue(table.contains("# Load: matmul 256x256 float on 1 daemon thread in this process"), table);
    }
}
