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
        assertEquals(BenchTool.SEND_RECV, BenchTool.fromName("sendrecv_perf"));
        assertEquals(BenchTool.HYPERCUBE, BenchTool.fromName("hypercube"));
        assertEquals(BenchTool.GATHER, BenchTool.fromName("gather_perf"));
        assertEquals(BenchTool.SCATTER, BenchTool.fromName("scatter_perf"));
        assertThrows(IllegalArgumentException.class, () -> BenchTool.fromName("sendrecv_perf_perf"));
    }

    @Test
    void shouldSendAndReceiveWholeCountWhenSendRecv()
    {
        // SendRecvGetCollByteCount: both buffers the whole count; SendRecvGetBw: count x typesize / sec, factor 1
        assertEquals(new CollByteCount(1000, 1000, 1000, 0, 0), BenchTool.SEND_RECV.byteCount(1000, 4, 8));
        assertEquals(4.0, BenchTool.SEND_RECV.algorithmBandwidth(1000, 4, 1.0e-6, 8), 1e-9);
        assertEquals(1.0, BenchTool.SEND_RECV.busBandwidthFactor(8));
        assertFalse(BenchTool.SEND_RECV.hasOp());
        assertFalse(BenchTool.SEND_RECV.hasRoot());
        assertTrue(BenchTool.SEND_RECV.pointToPoint(false));
        assertFalse(BenchTool.SEND_RECV.checksInPlace(false));
        assertEquals(1, BenchTool.SEND_RECV.steps(8));
    }

    @Test
    void shouldAlignToFourElementsAndCountOtherBlocksWhenHypercube()
    {
        // HyperCubeGetCollByteCount: base = count / (4 nranks) x 4; in place the send is block rank of the receive
        assertEquals(new CollByteCount(32, 256, 32, 32, 0), BenchTool.HYPERCUBE.byteCount(262, 1, 8));
        assertEquals(new CollByteCount(32768, 262144, 32768, 32768, 0),
            BenchTool.HYPERCUBE.byteCount(262144, 4, 8));
        // HyperCubeGetBw: count x typesize x (nranks - 1) / sec, factor 1
        assertEquals(7.0 * 4000 / 1e3, BenchTool.HYPERCUBE.algorithmBandwidth(1000, 4, 1.0e-6, 8), 1e-6);
        assertEquals(1.0, BenchTool.HYPERCUBE.busBandwidthFactor(8));
        assertEquals(3, BenchTool.HYPERCUBE.steps(8));
        assertEquals(1, BenchTool.HYPERCUBE.steps(2));
        assertEquals(1, BenchTool.HYPERCUBE.steps(1));
        assertTrue(BenchTool.HYPERCUBE.checksInPlace(false));
    }

    @Test
    void shouldLayOutLikeAllGatherWhenGatherAndLikeReduceScatterWhenScatter()
    {
        // GatherGetCollByteCount / ScatterGetCollByteCount with nccl-tests' 16-byte block alignment
        assertEquals(new CollByteCount(32, 96, 32, 32, 0), BenchTool.GATHER.byteCount(100, 4, 3));
        assertEquals(new CollByteCount(96, 32, 32, 0, 32), BenchTool.SCATTER.byteCount(100, 4, 3));
        // Gather/ScatterGetBw: count x nranks x typesize / sec, factor (n-1)/n
        assertEquals(8.0, BenchTool.GATHER.algorithmBandwidth(1000, 4, 4000 / 8.0e9 * 8, 8), 1e-9);
        assertEquals(8.0, BenchTool.SCATTER.algorithmBandwidth(1000, 4, 4000 / 8.0e9 * 8, 8), 1e-9);
        assertEquals(3.0 / 4, BenchTool.GATHER.busBandwidthFactor(4));
        assertEquals(3.0 / 4, BenchTool.SCATTER.busBandwidthFactor(4));
        assertTrue(BenchTool.GATHER.hasRoot());
        assertTrue(BenchTool.SCATTER.hasRoot());
        assertFalse(BenchTool.GATHER.hasOp());
        assertFalse(BenchTool.GATHER.pointToPoint(false));
    }

    @Test
    void shouldKeepCollectiveCountsButNotCheckInPlaceWhenAllToAllP2p()
    {
        assertTrue(BenchTool.ALL_TO_ALL.pointToPoint(true));
        assertFalse(BenchTool.ALL_TO_ALL.pointToPoint(false));
        assertFalse(BenchTool.ALL_TO_ALL.checksInPlace(true));
        assertTrue(BenchTool.ALL_TO_ALL.checksInPlace(false));
    }

    @Test
    void shouldRejectRunWhenHypercubeRanksNotPowerOfTwoOrP2pOnOtherTool()
    {
        BenchTool.HYPERCUBE.checkRun(8, false, false);
        BenchTool.ALL_TO_ALL.checkRun(3, true, false);
        final IllegalArgumentException cube = assertThrows(IllegalArgumentException.class,
            () -> BenchTool.HYPERCUBE.checkRun(6, false, false));
        assertTrue(cube.getMessage().contains("power of two"), cube.getMessage());
        final IllegalArgumentException p2p = assertThrows(IllegalArgumentException.class,
            () -> BenchTool.SEND_RECV.checkRun(2, true, false));
        assertTrue(p2p.getMessage().startsWith("--p2p"), p2p.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BenchTool.GATHER.checkRun(2, false, true));
        assertThrows(IllegalArgumentException.class, () -> BenchTool.ALL_TO_ALL.checkRun(2, true, true));
    }
}
