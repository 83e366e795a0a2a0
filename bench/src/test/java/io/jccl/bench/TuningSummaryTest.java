package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.TransportKind;
import io.jccl.TuningReport;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The online tuning summary on synthetic reports: bus bandwidths from the search's scores by the tool's own
 * factors, the ratio, the counts, the marks for a task still searching and a call the tuner does not decide, and
 * columns that line up.
 */
class TuningSummaryTest
{
    private static final Plan BASELINE = new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1, 256,
        128 * 1024);
    private static final Plan BEST = new Plan(Algorithm.TREE, Protocol.LL, TransportKind.SHM, 2, 256, 32 * 1024);

    private static TuningReport report(final long minBytes, final boolean converged, final double baselineNs,
        final double bestNs)
    {
        return new TuningReport(Collective.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 2, minBytes,
            2 * minBytes - 1, converged, 7, 42, BASELINE, baselineNs, BEST, bestNs, 0, 0, "synthetic");
    }

    private static TuningSummary.Entry entry(final long bytes, final TuningReport report, final long tuneCalls,
        final long tuneNs)
    {
        return new TuningSummary.Entry(bytes, bytes / 4, 4, "float", "sum", -1, report, tuneCalls, tuneNs);
    }

    @Test
    void shouldTurnScoresIntoBusBandwidthWhenTaskConverged()
    {
        // 65536 bytes in 65536 ns: algbw 1 GB/s, busbw x 2(n-1)/n = 1 on 2 ranks; the tuned plan takes half the time
        final TuningSummary summary = new TuningSummary(BenchTool.ALL_REDUCE, 2, List.of(entry(65536,
            report(65536, true, 65536, 32768), 31, 2_500_000)));

        final TuningSummary.Row row = summary.rows().get(0);
        assertEquals("ring/simple/p2p/1ch/128K", row.defaultPlan());
        assertEquals("tree/ll/shm/2ch/32K", row.tunedPlan());
        assertEquals(1.0, row.defaultBusBw(), 1e-12);
        assertEquals(2.0, row.tunedBusBw(), 1e-12);
        assertEquals(2.0, row.ratio(), 1e-12);
        assertTrue(row.converged());

        final List<String> lines = summary.lines();
        assertTrue(lines.get(0).startsWith("# Online tuning summary"), lines.get(0));
        assertEquals(List.of("65536", "16384", "float", "sum", "-1", "ring/simple/p2p/1ch/128K", "1.00",
            "tree/ll/shm/2ch/32K", "2.00", "2.00", "7", "42", "31", "2.5"), List.of(lines.get(3).trim().split(" +")));
        assertEquals("# Tuning: 31 untimed calls in 2.5 ms before the timed rows", lines.get(4));
        assertEquals("#", lines.get(5));
        assertEquals(6, lines.size(), String.join("\n", lines));
    }

    @Test
    void shouldComputeBusBandwidthWithEachToolsFactor()
    {
        // AllGather: algbw counts every rank's block; busbw x (n-1)/n; 4 ranks, 1024 floats per rank in 4096 ns
        assertEquals(4.0 * 4096 / 4096 * 3 / 4, TuningSummary.busBw(BenchTool.ALL_GATHER, 4, 1024, 4, 4096), 1e-12);
        assertEquals(4096.0 / 1000, TuningSummary.busBw(BenchTool.BROADCAST, 4, 1024, 4, 1000), 1e-12);
        assertTrue(Double.isNaN(TuningSummary.busBw(BenchTool.ALL_REDUCE, 2, 1024, 4, Double.NaN)));
        assertTrue(Double.isNaN(TuningSummary.busBw(BenchTool.ALL_REDUCE, 2, 1024, 4, 0)));
    }

    @Test
    void shouldMarkSearchingAndUntunedRowsAndAlignColumns()
    {
        final TuningSummary summary = new TuningSummary(BenchTool.ALL_REDUCE, 2, List.of(
            entry(1024, report(1024, true, 2048, 1024), 30, 1_000_000),
            entry(1 << 20, report(1 << 20, false, 1 << 20, Double.NaN), 80, 12_340_000),
            entry(0, null, 0, 0)));

        final List<TuningSummary.Row> rows = summary.rows();
        assertFalse(rows.get(1).converged());
        assertTrue(Double.isNaN(rows.get(1).ratio()));
        assertNull(rows.get(2).defaultPlan());
        assertTrue(Double.isNaN(rows.get(2).ratio()));

        final List<String> lines = summary.lines();
        final String[] searching = lines.get(4).trim().split(" +");
        assertEquals("tree/ll/shm/2ch/32K*", searching[7]);
        assertEquals("N/A", searching[8]);
        assertEquals("N/A", searching[9]);
        assertEquals(List.of("0", "0", "float", "sum", "-1", "-", "N/A", "-", "N/A", "N/A", "-", "-", "0", "0.0"),
            List.of(lines.get(5).trim().split(" +")));
        assertTrue(lines.get(6).startsWith("# * still searching when the row was timed"), lines.get(6));
        assertTrue(lines.get(7).startsWith("# - the online tuner does not decide this call"), lines.get(7));
        assertEquals("# Tuning: 110 untimed calls in 13.3 ms before the timed rows", lines.get(8));

        // every column ends where its heading ends: the headings and the rows are as long as one another
        for (int i = 1; i <= 5; i++)
        {
            assertEquals(lines.get(3).length(), lines.get(i).length(), lines.get(i));
        }
        final int ratioEnd = lines.get(1).indexOf("ratio") + "ratio".length();
        assertEquals("2.00", lines.get(3).substring(ratioEnd - 4, ratioEnd));
        assertEquals("(plan)", lines.get(2).substring(lines.get(1).indexOf("default"),
            lines.get(1).indexOf("default") + "(plan)".length()));
    }
}
