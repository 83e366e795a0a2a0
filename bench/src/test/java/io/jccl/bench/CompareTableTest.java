package io.jccl.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The {@code --compare-plans} table on made-up times: medians per plan, ratios to the first plan, plan texts.
 */
class CompareTableTest
{
    @Test
    void shouldTakeMiddleValueOrMeanOfMiddleTwoWhenMedian()
    {
        assertEquals(20.0, CompareTable.median(new double[] {30, 10, 20}));
        assertEquals(2.5, CompareTable.median(new double[] {4, 1, 3, 2}));
        assertEquals(7.0, CompareTable.median(new double[] {7}));
    }

    @Test
    void shouldPrintMediansAndRatiosToFirstPlanWhenRowOfSyntheticRounds()
    {
        final CompareTable table = new CompareTable(List.of("default", "proto=ll", "nchannels=2"));
        final double[][] timesUs = {{10, 30, 20}, {5, 6, 100}, {40, 40, 40}};
        final double[][] busBws = {{3, 1, 2}, {6, 4, 5}, {1, 1, 1}};

        final String row = table.row(1024, 256, "float", timesUs, busBws,
            new String[] {"ring/simple/p2p/1ch/128K", "ring/ll/p2p/1ch/128K", "ring/simple/p2p/2ch/128K"}, 0, true);

        assertEquals(List.of("1024", "256", "float", "0", "20.00", "2.00", "6.00", "5.00", "40.00", "1.00", "1.00",
            "2.50", "0.50", "ring/simple/p2p/1ch/128K", "ring/ll/p2p/1ch/128K", "ring/simple/p2p/2ch/128K"),
            List.of(row.trim().split(" +")));
    }

    @Test
    void shouldPrintNotCheckedWhenNoCheck()
    {
        final CompareTable table = new CompareTable(List.of("default", "proto=ll"));

        final String row = table.row(8, 2, "float", new double[][] {{1}, {2}}, new double[][] {{0}, {0}},
            new String[] {"-", "-"}, 0, false);

        assertEquals(List.of("8", "2", "float", "N/A", "1.00", "0.00", "2.00", "0.00", "nan", "nan", "-", "-"),
            List.of(row.trim().split(" +")));
    }

    @Test
    void shouldLetterPlansAndNameColumnsWhenHeaderLines()
    {
        final List<String> lines = new CompareTable(List.of("default", "proto=ll")).headerLines(5, 20);

        assertEquals("# plan A: default", lines.get(0));
        assertEquals("# plan B: proto=ll", lines.get(1));
        assertEquals(List.of("#", "size", "count", "type", "#wrong", "A:time", "A:bus", "B:time", "B:bus", "A/A",
            "B/A", "plans"), List.of(lines.get(3).split(" +")));
    }
}
