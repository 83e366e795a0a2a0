package io.jccl.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchToolTest
{
    @Test
    void shouldUseWholeBufferWhenAllReduceBroadcastOrReduce()
    {
        for (final BenchTool tool : new BenchTool[] {BenchTool.ALL_REDUCE, BenchTool.BROADCAST, BenchTool.REDUCE})
        {
            final CollByteCount counts = tool.byteCount(1000, 4, 8);
            assertEquals(new CollByteCount(1000, 1000, 1000, 0, 0), counts, tool.toolName());
            assertEquals(4000, counts.tableBytes(4));
        }
    }

    @Test
    void shouldSplitIntoRankBlocksAlignedTo16BytesWhenAllGather()
    {
        // 1 MiB of floats over 8 ranks: 32768 per rank
        final CollByteCount counts = BenchTool.ALL_GATHER.byteCount(262144, 4, 8);
        assertEquals(new CollByteCount(32768, 262144, 32768, 32768, 0), counts);
        assertEquals(1048576, counts.tableBytes(4));
        // 100 floats over 3 ranks: 33 per rank, aligned down to 4 floats (16 bytes): 32
        assertEquals(new CollByteCount(32, 96, 32, 32, 0), BenchTool.ALL_GATHER.byteCount(100, 4, 3));
        // too small for one 16-byte block per rank: size 0, as nccl-tests prints it
        assertEquals(0, BenchTool.ALL_GATHER.byteCount(2, 4, 2).tableBytes(4));
        // int8: blocks of 16 elements; double: blocks of 2
        assertEquals(16, BenchTool.ALL_GATHER.byteCount(40, 1, 2).paramCount());
        assertEquals(20, BenchTool.ALL_GATHER.byteCount(42, 8, 2).paramCount());
    }

    @Test
    void shouldSendWholeBufferAndReceiveBlockWhenReduceScatter()
    {
        final CollByteCount counts = BenchTool.REDUCE_SCATTER.byteCount(262144, 4, 8);
        assertEquals(new CollByteCount(262144, 32768, 32768, 0, 32768), counts);
        assertEquals(1048576, counts.tableBytes(4));
    }

    @Test
    void shouldCutBothBuffersIntoAlignedPeerBlocksWhenAllToAll()
    {
        // nccl-tests' AlltoAllGetCollByteCount: paramcount = (count / nranks) & -(16 / eltSize), both buffers n blocks
        final CollByteCount counts = BenchTool.ALL_TO_ALL.byteCount(262144, 4, 8);
        assertEquals(new CollByteCount(262144, 262144, 32768, 0, 0), counts);
        assertEquals(1048576, counts.tableBytes(4));
        // 100 floats over 3 ranks: 33 per peer, aligned down to 4 floats: 32, buffers of 96
        assertEquals(new CollByteCount(96, 96, 32, 0, 0), BenchTool.ALL_TO_ALL.byteCount(100, 4, 3));
        assertEquals(0, BenchTool.ALL_TO_ALL.byteCount(7, 4, 2).tableBytes(4));
        assertFalse(BenchTool.ALL_TO_ALL.hasOp());
        assertFalse(BenchTool.ALL_TO_ALL.hasRoot());
    }

    @Test
    void shouldCountEveryPeerBlockWhenAllToAllBandwidth()
    {
        // AlltoAllGetBw: count x nranks x typesize / sec, busbw factor (n-1)/n
        assertEquals(8.0, BenchTool.ALL_TO_ALL.algorithmBandwidth(1000, 4, 4000 / 8.0e9 * 8, 8), 1e-9);
        assertEquals(7.0 / 8, BenchTool.ALL_TO_ALL.busBandwidthFactor(8));
        assertEquals(0.0, BenchTool.ALL_TO_ALL.busBandwidthFactor(1));
    }

    @Test
    void shouldApplyNcclTestsFactorWhenBusBandwidth()
    {
        assertEquals(2.0 * 7 / 8, BenchTool.ALL_REDUCE.busBandwidthFactor(8));
        assertEquals(1.0, BenchTool.ALL_REDUCE.busBandwidthFactor(2));
        assertEquals(0.0, BenchTool.ALL_REDUCE.busBandwidthFactor(1));
        assertEquals(7.0 / 8, BenchTool.ALL_GATHER.busBandwidthFactor(8));
        assertEquals(7.0 / 8, BenchTool.REDUCE_SCATTER.busBandwidthFactor(8));
        assertEquals(1.0, BenchTool.BROADCAST.busBandwidthFactor(8));
        assertEquals(1.0, BenchTool.REDUCE.busBandwidthFactor(8));
    }

    @Test
    void shouldCountWholeGatheredBufferWhenAlgorithmBandwidth()
    {
        // the nccl-tests row "536870912 134217728 float sum -1 5202.3 103.20 193.50" on 16 ranks
        final double seconds = 5202.3e-6;
        final double algBw = BenchTool.ALL_REDUCE.algorithmBandwidth(134217728, 4, seconds, 16);
        assertEquals(103.20, algBw, 0.005);
        assertEquals(193.50, algBw * BenchTool.ALL_REDUCE.busBandwidthFactor(16), 0.01);
        // AllGather and ReduceScatter count the per-rank count times the ranks
        assertEquals(8.0, BenchTool.ALL_GATHER.algorithmBandwidth(1000, 4, 4000 / 8.0e9 * 8, 8), 1e-9);
        assertEquals(BenchTool.ALL_GATHER.algorithmBandwidth(1000, 4, 1e-3, 8),
            BenchTool.REDUCE_SCATTER.algorithmBandwidth(1000, 4, 1e-3, 8));
    }

    @Test
    void shouldKnowOpAndRootWhenTool()
    {
        assertTrue(BenchTool.ALL_REDUCE.hasOp());
        assertFalse(BenchTool.ALL_REDUCE.hasRoot());
        assertFalse(BenchTool.ALL_GATHER.hasOp());
        assertTrue(BenchTool.REDUCE_SCATTER.hasOp());
        assertFalse(BenchTool.BROADCAST.hasOp());
        assertTrue(BenchTool.BROADCAST.hasRoot());
        assertTrue(BenchTool.REDUCE.hasOp());
        assertTrue(BenchTool.REDUCE.hasRoot());
    }

    @Test
    void shouldFindToolWhenNamedWithOrWithoutSuffix()
    {
        assertEquals(BenchTool.ALL_REDUCE, BenchTool.fromName("all_reduce_perf"));
        assertEquals(BenchTool.REDUCE_SCATTER, BenchTool.fromName("reduce_scatter"));
        assertEquals(BenchTool.BROADCAST, BenchTool.fromName("broadcast_perf"));
        assertEquals(BenchTool.ALL_TO_ALL, BenchTool.fromName("alltoall_perf"));
        assertThrows(IllegalArgumentException.class, () -> BenchTool.fromName("sendrecv_perf"));
    }
}
