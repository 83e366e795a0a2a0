package io.jccl.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The expected strings are lines of real nccl-tests output (16 x H100, all_reduce_perf -b 512M -e 8G -f 2), with
 * their trailing spaces.
 */
class TableFormatterTest
{
    @Test
    void shouldPrintNcclTestsHeaderWhenColumns()
    {
        assertArrayEquals(new String[]
        {
            "#                                                              out-of-place                       in-place          ",
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong  plan",
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "
        }, TableFormatter.columnHeaders("time"));
    }

    @Test
    void shouldPrintNcclTestsRowWhenValuesGiven()
    {
        final String row = TableFormatter.rowParameters(536870912L, 134217728L, "float", "sum", -1) +
            TableFormatter.rowResult(5202.3, 103.20, 193.50, 0, true) +
            TableFormatter.rowResult(5377.7, 99.83, 187.19, 0, true);
        assertEquals("   536870912     134217728     float     sum      -1   5202.3  103.20  193.50      0   5377.7   " +
            "99.83  187.19      0", row);
        final String wide = TableFormatter.rowParameters(1073741824L, 268435456L, "float", "sum", -1) +
            TableFormatter.rowResult(10314, 104.11, 195.20, 0, true) +
            TableFormatter.rowResult(10339, 103.85, 194.73, 0, true);
        assertEquals("  1073741824     268435456     float     sum      -1    10314  104.11  195.20      0    10339  " +
            "103.85  194.73      0", wide);
    }

    @Test
    void shouldPrintCompactPlanWhenRowEnds()
    {
        final io.jccl.Plan plan = new io.jccl.Plan(io.jccl.Algorithm.RING, io.jccl.Protocol.LL, io.jccl.TransportKind.P2P,
            2, 256, 128 * 1024);
        assertEquals("ring/ll/p2p/2ch/128K", TableFormatter.planText(plan, null));
        assertEquals("allreduce_pairs/ll/p2p/2ch/128K", TableFormatter.planText(plan, "allreduce_pairs"));
        assertEquals("  a", TableFormatter.rowPlan("a", "a"));
        assertEquals("  a|b", TableFormatter.rowPlan("a", "b"));
        assertEquals("-", TableFormatter.planText(null, null));
    }

    @Test
    void shouldPrintNoneAndMinusOneWhenCollectiveHasNoOpOrRoot()
    {
        assertEquals("           0             0     float    none      -1",
            TableFormatter.rowParameters(0, 0, "float", BenchTool.NO_OP_NAME, BenchTool.NO_ROOT));
        assertEquals("        1024           256  bfloat16    none       3",
            TableFormatter.rowParameters(1024, 256, "bfloat16", "none", 3));
    }

    @Test
    void shouldPrintNotApplicableWhenUnchecked()
    {
        assertEquals("    36.38    0.00    0.00    N/A", TableFormatter.rowResult(36.38, 0, 0, 0, false));
        assertEquals("    36.38    0.00    0.00     12", TableFormatter.rowResult(36.38, 0, 0, 12, true));
    }

    @Test
    void shouldSwitchPrecisionWhenTimeGrows()
    {
        assertEquals("   6.36", TableFormatter.timeString(6.36));
        assertEquals("  235.2", TableFormatter.timeString(235.21));
        assertEquals("  41198", TableFormatter.timeString(41198.4));
        assertEquals("  99.99", TableFormatter.timeString(99.99));
        assertEquals(" 100.00", TableFormatter.timeString(99.999));
        assertEquals("  100.0", TableFormatter.timeString(100.0));
    }

    @Test
    void shouldPrintFooterWhenRunEnds()
    {
        assertEquals("# Out of bounds values : 0 OK", TableFormatter.outOfBoundsLine(0));
        assertEquals("# Out of bounds values : 3 FAILED", TableFormatter.outOfBoundsLine(3));
        assertEquals("# Avg bus bandwidth    : 194.675 ", TableFormatter.avgBusBandwidthLine(194.675, -1));
        assertEquals("# Avg bus bandwidth    : 10 OK", TableFormatter.avgBusBandwidthLine(10, 5));
        assertEquals("# Avg bus bandwidth    : 1 FAILED", TableFormatter.avgBusBandwidthLine(1, 5));
    }

    @Test
    void shouldPrintDeviceLineWhenRank()
    {
        assertEquals("#  Rank  8 Group  0 Pid     16 on nccl-tests-h100-worker-1 device  0 [cpu] host",
            TableFormatter.deviceLine(8, 16, "nccl-tests-h100-worker-1", 0, "cpu", "host"));
        assertEquals("#  Rank  0 Group  0 Pid  12345 on       node device  0 [cpu] host",
            TableFormatter.deviceLine(0, 12345, "node", 0, "cpu", "host"));
        assertEquals("#  Rank  3 Group  0 Pid   4242 on         vm device  1 [0000:1b:00] NVIDIA H200",
            TableFormatter.deviceLine(3, 4242, "vm", 1, "0000:1b:00", "NVIDIA H200"));
    }

    @Test
    void shouldPrintParametersLineWhenOptionsParsed()
    {
        final BenchOptions options = new BenchOptions();
        new CommandLine(options).parseArgs("-b", "8", "-e", "128M", "-f", "2", "-g", "2");
        assertEquals("# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 " +
            "agg iters: 1 validation: 1 graph: 0", TableFormatter.parametersLine(options, options.maxBytes()));
        final BenchOptions defaults = new BenchOptions();
        new CommandLine(defaults).parseArgs();
        assertEquals("# nThread 1 nGpus 1 minBytes 33554432 maxBytes 33554432 step: 1048576(bytes) warmup iters: 5 " +
            "iters: 20 agg iters: 1 validation: 1 graph: 0", TableFormatter.parametersLine(defaults, 33554432));
    }
}
