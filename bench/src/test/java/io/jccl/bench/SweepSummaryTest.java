package io.jccl.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sweep's summary on made-up results: best combination, ratio, missing rows, and the printed table. */
class SweepSummaryTest
{
    private static final SweepCombination SIMPLE_1 = combination("simple", "1");
    private static final SweepCombination SIMPLE_2 = combination("simple", "2");
    private static final SweepCombination LL_1 = combination("ll", "1");
    private static final List<SweepCombination> COMBINATIONS = List.of(SIMPLE_1, SIMPLE_2, LL_1);

    private static SweepCombination combination(final String proto, final String nChannels)
    {
        return new SweepCombination(Map.of(SweepKey.NCHANNELS, nChannels, SweepKey.PROTO, proto));
    }

    /** A row of all_reduce_perf for float sum; the in-place bandwidth is set far off to show it is not used. */
    private static RowResult row(final long bytes, final double outOfPlaceBusBw, final String plan)
    {
        return new RowResult(bytes, bytes / 4, "float", "sum", -1, outOfPlaceBusBw, 1000.0, plan);
    }

    @Test
    void shouldPickHighestOutOfPlaceBusBwAndDivideByDefaultsWhenEveryPassRan()
    {
        final SweepSummary summary = new SweepSummary(COMBINATIONS, List.of(
            List.of(row(1024, 1.0, "ring/simple/p2p/1ch/32K"), row(4096, 4.0, "ring/simple/p2p/1ch/32K")),
            List.of(row(1024, 3.0, "ring/simple/p2p/2ch/32K"), row(4096, 2.0, "ring/simple/p2p/2ch/32K")),
            List.of(row(1024, 2.5, "ring/ll/p2p/1ch/32K"), row(4096, 6.0, "ring/ll/p2p/1ch/32K"))),
            List.of(row(1024, 2.0, "tree/ll/p2p/1ch/32K"), row(4096, 8.0, "ring/simple/p2p/4ch/128K")));

        final List<SweepSummary.Row> rows = summary.rows();
        assertEquals(2, rows.size());
        assertEquals(1024, rows.get(0).call().bytes());
        assertEquals("proto=simple,nchannels=2", rows.get(0).best());
        assertEquals(3.0, rows.get(0).bestBusBw());
        assertEquals("tree/ll/p2p/1ch/32K", rows.get(0).defaultPlan());
        assertEquals(2.0, rows.get(0).defaultBusBw());
        assertEquals(1.5, rows.get(0).ratio(), 1e-12);
        assertEquals("proto=ll,nchannels=1", rows.get(1).best());
        assertEquals(6.0, rows.get(1).bestBusBw());
        assertEquals("ring/simple/p2p/4ch/128K", rows.get(1).defaultPlan());
        assertEquals(0.75, rows.get(1).ratio(), 1e-12);
    }

    @Test
    void shouldKeepEarlierCombinationWhenTied()
    {
        final SweepSummary summary = new SweepSummary(COMBINATIONS, List.of(
            List.of(row(8, 2.0, "a")), List.of(row(8, 2.0, "b")), List.of(row(8, 1.0, "c"))),
            List.of(row(8, 4.0, "d")));
        assertEquals("proto=simple,nchannels=1", summary.rows().get(0).best());
        assertEquals(0.5, summary.rows().get(0).ratio(), 1e-12);
    }

    @Test
    void shouldSkipMissingOrMismatchedRowsWhenPassFailed()
    {
        // SIMPLE_1 failed at once; SIMPLE_2 stopped after one row; LL_1's second row is another call
        final SweepSummary summary = new SweepSummary(COMBINATIONS, List.of(
            List.of(),
            List.of(row(64, 5.0, "x")),
            List.of(row(64, 1.0, "y"), row(999, 9.0, "z"))),
            List.of(row(64, 2.0, "d1"), row(512, 3.0, "d2")));
        assertEquals("proto=simple,nchannels=2", summary.rows().get(0).best());
        assertEquals(2.5, summary.rows().get(0).ratio(), 1e-12);
        final SweepSummary.Row second = summary.rows().get(1);
        assertEquals(512, second.call().bytes());
        assertNull(second.best());
        assertTrue(Double.isNaN(second.bestBusBw()));
        assertTrue(Double.isNaN(second.ratio()));
        assertEquals("d2", second.defaultPlan());
    }

    @Test
    void shouldGiveNoRatioWhenDefaultMissingOrZero()
    {
        final SweepSummary noDefault = new SweepSummary(List.of(SIMPLE_1), List.of(List.of(row(8, 1.0, "a"))),
            List.of());
        assertEquals(1, noDefault.rows().size());
        assertNull(noDefault.rows().get(0).defaultPlan());
        assertTrue(Double.isNaN(noDefault.rows().get(0).ratio()));
        final SweepSummary zeroDefault = new SweepSummary(List.of(SIMPLE_1), List.of(List.of(row(0, 0.0, "-"))),
            List.of(row(0, 0.0, "-")));
        assertTrue(Double.isNaN(zeroDefault.rows().get(0).ratio()));
        assertThrows(IllegalArgumentException.class, () -> new SweepSummary(COMBINATIONS, List.of(), List.of()));
    }

    @Test
    void shouldAlignColumnsLikeNcclTestsWhenPrinted()
    {
        final SweepSummary summary = new SweepSummary(COMBINATIONS, List.of(
            List.of(row(8, 0.001, "tree/simple/p2p/1ch/32K"), row(1048576, 3.456, "ring/simple/p2p/1ch/32K")),
            List.of(row(8, 0.002, "tree/simple/p2p/2ch/32K"), row(1048576, 1.0, "ring/simple/p2p/2ch/32K")),
            List.of(row(8, 0.004, "tree/ll/p2p/1ch/32K"), row(1048576, 2.0, "ring/ll/p2p/1ch/32K"))),
            List.of(row(8, 0.002, "tree/ll/p2p/1ch/32K"), row(1048576, 1.728, "ring/simple/p2p/1ch/32K|ring/ll")));

        final List<String> lines = summary.lines();
        assertEquals(6, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).startsWith("# Sweep summary: the best of 3 combinations against the default"),
            lines.get(0));
        assertEquals("#       size         count      type   redop    root  best                       busbw  " +
            "default                           busbw   ratio", lines.get(1));
        assertEquals("#        (B)    (elements)                            (combination)             (GB/s)  " +
            "(plan)                           (GB/s)", lines.get(2));
        assertEquals("           8             2     float     sum      -1  proto=ll,nchannels=1        0.00  " +
            "tree/ll/p2p/1ch/32K                0.00    2.00", lines.get(3));
        assertEquals("     1048576        262144     float     sum      -1  proto=simple,nchannels=1    3.46  " +
            "ring/simple/p2p/1ch/32K|ring/ll    1.73    2.00", lines.get(4));
        assertEquals("#", lines.get(5));
        assertEquals(lines.get(1).length(), lines.get(3).length());
        assertEquals(lines.get(3).length(), lines.get(4).length());
        for (final String line : lines.subList(3, 5))
        {
            assertEquals(10, line.trim().split(" +").length, line);
        }
    }

    @Test
    void shouldPrintNotAvailableWhenNothingMeasured()
    {
        final List<String> lines = new SweepSummary(List.of(SIMPLE_1), List.of(List.of()),
            List.of(row(8, 1.0, "tree/ll/p2p/1ch/32K"))).lines();
        assertEquals("           8             2     float     sum      -1  -                 N/A  " +
            "tree/ll/p2p/1ch/32K    1.00     N/A", lines.get(3));
    }
}
