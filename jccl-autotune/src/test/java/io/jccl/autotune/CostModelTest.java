package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CostModelTest
{
    private static final long MIB_64 = 64L << 20;
    private static final CostModel MODEL = new CostModel(Calibration.defaults());

    private static PlanRequest allReduce(final long bytes, final int ranks)
    {
        return new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, bytes, ranks);
    }

    private static Plan plan(final Algorithm algorithm, final Protocol protocol, final TransportKind transport,
        final int channels)
    {
        return new Plan(algorithm, protocol, transport, channels, PinnedTuner.HOST_THREADS,
            KnobSpace.cap(protocol, 128 << 10));
    }

    private static double predict(final PlanRequest request, final Plan plan)
    {
        return MODEL.predictNanos(request, plan);
    }

    @Test
    void shouldPredictNothingWhenThereIsOneRank()
    {
        assertEquals(0.0, predict(allReduce(MIB_64, 1), plan(Algorithm.RING, Protocol.LL, TransportKind.SHM, 4)));
    }

    @Test
    void shouldPredictLongerTimesForMoreBytes()
    {
        final Plan plan = plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1);
        double previous = predict(allReduce(0, 4), plan);
        assertTrue(previous > 0);
        for (long bytes = 1; bytes <= MIB_64; bytes *= 4)
        {
            final double nanos = predict(allReduce(bytes, 4), plan);
            assertTrue(nanos >= previous, bytes + ": " + nanos + " < " + previous);
            previous = nanos;
        }
    }

    @Test
    void shouldFavourSimpleOnTheHostWhenTheCallIsTiny()
    {
        // on the host every protocol hands a slot over by one cache line's round trip; LL and LL128 add work per slot
        final PlanRequest tiny = allReduce(8, 2);
        final double simple = predict(tiny, plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1));
        final double ll = predict(tiny, plan(Algorithm.RING, Protocol.LL, TransportKind.P2P, 1));
        final double ll128 = predict(tiny, plan(Algorithm.RING, Protocol.LL128, TransportKind.P2P, 1));
        assertTrue(simple < ll && ll < ll128, simple + " " + ll + " " + ll128);
    }

    @Test
    void shouldFavourSimpleWhenTheCallIsLarge()
    {
        final PlanRequest large = allReduce(MIB_64, 2);
        final double simple = predict(large, plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1));
        final double ll = predict(large, plan(Algorithm.RING, Protocol.LL, TransportKind.P2P, 1));
        final double ll128 = predict(large, plan(Algorithm.RING, Protocol.LL128, TransportKind.P2P, 1));
        assertTrue(simple < ll128 && ll128 < ll, simple + " " + ll128 + " " + ll);
    }

    @Test
    void shouldChargeShmAnExtraCopyOverP2p()
    {
        for (final Protocol protocol : Protocol.values())
        {
            final double p2p = predict(allReduce(MIB_64, 2), plan(Algorithm.RING, protocol, TransportKind.P2P, 1));
            final double shm = predict(allReduce(MIB_64, 2), plan(Algorithm.RING, protocol, TransportKind.SHM, 1));
            assertTrue(p2p < shm, protocol + ": " + p2p + " >= " + shm);
        }
        assertEquals(1, CostModel.copies(TransportKind.P2P, Protocol.SIMPLE));
        assertEquals(2, CostModel.copies(TransportKind.SHM, Protocol.SIMPLE));
        assertEquals(3, CostModel.copies(TransportKind.SHM, Protocol.LL));
    }

    @Test
    void shouldGainNoBandwidthFromChannelsBeyondTheCores()
    {
        final PlanRequest large = allReduce(MIB_64, 2);
        final double one = predict(large, plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1));
        final double eight = predict(large, plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 8));
        assertTrue(one < eight, "on 2 cores 2 ranks fill the cores: " + one + " >= " + eight);

        final CostModel sixteenCores = new CostModel(Calibration.defaults(16));
        final double wideOne = sixteenCores.predictNanos(large, plan(Algorithm.RING, Protocol.SIMPLE,
            TransportKind.P2P, 1));
        final double wideFour = sixteenCores.predictNanos(large, plan(Algorithm.RING, Protocol.SIMPLE,
            TransportKind.P2P, 4));
        assertTrue(wideFour < wideOne, "on 16 cores 4 channels add bandwidth: " + wideFour + " >= " + wideOne);
    }

    @Test
    void shouldGrowLatencyWhenRanksTimeShareTheCores()
    {
        final Plan plan = plan(Algorithm.RING, Protocol.LL, TransportKind.P2P, 1);
        final double twoCores = new CostModel(Calibration.defaults(2)).predictNanos(allReduce(8, 8), plan);
        final double eightCores = new CostModel(Calibration.defaults(8)).predictNanos(allReduce(8, 8), plan);
        assertTrue(twoCores > 3 * eightCores, twoCores + " vs " + eightCores);
    }

    @Test
    void shouldFavourTreeForSmallAndRingForLargeAllReduce()
    {
        final Plan tree = plan(Algorithm.TREE, Protocol.LL, TransportKind.P2P, 1);
        final Plan ring = plan(Algorithm.RING, Protocol.LL, TransportKind.P2P, 1);
        assertTrue(predict(allReduce(64, 8), tree) < predict(allReduce(64, 8), ring));
        final Plan bigTree = plan(Algorithm.TREE, Protocol.SIMPLE, TransportKind.P2P, 1);
        final Plan bigRing = plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1);
        assertTrue(predict(allReduce(MIB_64, 8), bigRing) < predict(allReduce(MIB_64, 8), bigTree));
    }

    @Test
    void shouldPreferDirectForSmallCallsOnlyWhereMoreProcessesOfOneRankThanCoresShareANode()
    {
        final Plan direct = plan(Algorithm.DIRECT, Protocol.SIMPLE, TransportKind.P2P, 1);
        final Plan tree = plan(Algorithm.TREE, Protocol.SIMPLE, TransportKind.P2P, 1);
        final CostModel twoCores = new CostModel(Calibration.defaults(2), true);
        // 4 processes on 2 cores: one exchange beats the tree's levels for small calls, not for large ones
        assertTrue(twoCores.predictNanos(allReduce(8, 4), direct) < twoCores.predictNanos(allReduce(8, 4), tree));
        final Plan ring = plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1);
        assertTrue(twoCores.predictNanos(allReduce(MIB_64, 4), direct) >
            twoCores.predictNanos(allReduce(MIB_64, 4), ring));
        // 2 processes: the tree is that exchange already, and so is direct: the same charge for both; 4 processes on
        // 4 cores, or 4 ranks of one process: as before
        assertEquals(twoCores.predictNanos(allReduce(8, 2), tree), twoCores.predictNanos(allReduce(8, 2), direct));
        final CostModel fourCores = new CostModel(Calibration.defaults(4), true);
        final CostModel oneProcess = new CostModel(Calibration.defaults(2), false);
        for (final CostModel model : new CostModel[] {fourCores, oneProcess})
        {
            assertTrue(model.predictNanos(allReduce(8, 4), tree) <= model.predictNanos(allReduce(8, 4), direct));
        }
        final CostModelTuner tuner = new CostModelTuner(Calibration.defaults(2), PlanConstraints.none(), true);
        assertEquals(Algorithm.DIRECT, tuner.choose(allReduce(8, 4)).algorithm());
        assertNotEquals(Algorithm.DIRECT, tuner.choose(allReduce(MIB_64, 4)).algorithm());
        assertEquals(Algorithm.TREE, new CostModelTuner(Calibration.defaults(2), PlanConstraints.none(), false)
            .choose(allReduce(8, 4)).algorithm());
    }

    @Test
    void shouldExchangeBetweenTwoProcessesUpTo64KiBAndRingFrom128KiB()
    {
        final CostModelTuner processes = new CostModelTuner(Calibration.defaults(2), PlanConstraints.none(), true);
        final CostModelTuner oneThread = new CostModelTuner(Calibration.defaults(2), PlanConstraints.none(), false);
        for (long bytes = 8; bytes <= 16 << 20; bytes *= 2)
        {
            // one handoff against the ring's two, until the exchange's whole-buffer reduction costs more
            assertEquals(bytes <= 64 << 10 ? Algorithm.TREE : Algorithm.RING,
                processes.choose(allReduce(bytes, 2)).algorithm(), bytes + " bytes, 2 processes");
            // one thread driving both ranks runs the two halves of the exchange in turn: the ring from 1 KiB
            assertEquals(bytes < 1024 ? Algorithm.TREE : Algorithm.RING,
                oneThread.choose(allReduce(bytes, 2)).algorithm(), bytes + " bytes, 2 ranks of one process");
        }
        final Plan tree = plan(Algorithm.TREE, Protocol.SIMPLE, TransportKind.P2P, 1);
        final Plan ring = plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1);
        final CostModel model = processes.model();
        // the exchange's fill and traffic: it costs more than the ring once the bytes dominate
        assertTrue(model.predictNanos(allReduce(MIB_64, 2), tree) > model.predictNanos(allReduce(MIB_64, 2), ring));
        // 3 processes: no exchange
        assertEquals(new CostModel(Calibration.defaults(4)).predictNanos(allReduce(1024, 3), tree),
            new CostModel(Calibration.defaults(4), true).predictNanos(allReduce(1024, 3), tree));
    }

    @Test
    void shouldTakeLargerChunksForAllGatherBetweenProcessesWhoseSendsAreReadInPlace()
    {
        final PlanRequest request = new PlanRequest(Collective.ALL_GATHER, DataType.FLOAT32, 2 << 20, 2);
        final int processes = new CostModelTuner(Calibration.defaults(1), PlanConstraints.none(), true)
            .choose(request).chunkBytes();
        final int oneProcess = new CostModelTuner(Calibration.defaults(1), PlanConstraints.none(), false)
            .choose(request).chunkBytes();
        assertTrue(processes > oneProcess, processes + " vs " + oneProcess);
        // AllReduce's ring reduces into its slots: no change
        final PlanRequest reducing = allReduce(2 << 20, 2);
        assertEquals(new CostModelTuner(Calibration.defaults(1), PlanConstraints.none(), false).choose(reducing),
            new CostModelTuner(Calibration.defaults(1), PlanConstraints.none(), true).choose(reducing));
    }

    @Test
    void shouldNeverPreferDirectToTheTree()
    {
        // the model cannot tell how the ranks are driven, which decides whether direct pays: pins, tables and the
        // online tuner choose it (except for processes of one rank, more than the cores: the test above)
        final Plan direct = plan(Algorithm.DIRECT, Protocol.SIMPLE, TransportKind.P2P, 1);
        final Plan tree = plan(Algorithm.TREE, Protocol.SIMPLE, TransportKind.P2P, 1);
        final Plan ring = plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1);
        for (final int ranks : new int[] {2, 3, 4, 8})
        {
            for (final long bytes : new long[] {8, 64 << 10, MIB_64})
            {
                assertTrue(predict(allReduce(bytes, ranks), tree) <= predict(allReduce(bytes, ranks), direct),
                    "n=" + ranks + " bytes=" + bytes);
            }
            assertTrue(predict(allReduce(MIB_64, ranks), ring) < predict(allReduce(MIB_64, ranks), direct),
                "n=" + ranks);
        }
        // two ranks: the tree is the same exchange, charged alike
        for (final long bytes : new long[] {8, 64 << 10, MIB_64})
        {
            assertEquals(predict(allReduce(bytes, 2), tree), predict(allReduce(bytes, 2), direct));
        }
        // AllGather and ReduceScatter are charged the ring's hops and bytes, Broadcast and Reduce run the ring
        for (final Collective collective : new Collective[] {Collective.ALL_GATHER, Collective.REDUCE_SCATTER,
            Collective.BROADCAST, Collective.REDUCE})
        {
            final PlanRequest request = new PlanRequest(collective, DataType.FLOAT32, 1 << 20, 4);
            assertEquals(predict(request, ring), predict(request, direct), collective.name());
        }
    }

    @Test
    void shouldPredictATreeThatCannotRunAsTheRingItRunsAs()
    {
        final PlanRequest allGather = new PlanRequest(Collective.ALL_GATHER, DataType.FLOAT32, 1 << 20, 4);
        assertEquals(predict(allGather, plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 2)),
            predict(allGather, plan(Algorithm.TREE, Protocol.SIMPLE, TransportKind.P2P, 2)));
    }

    @Test
    void shouldBeBoundByTheNetworkWhenRanksSpanNodes()
    {
        final Plan plan = plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1);
        final PlanRequest oneNode = allReduce(1 << 20, 4);
        final PlanRequest twoNodes = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 1 << 20, 4, 2, 1,
            false);
        assertTrue(predict(twoNodes, plan) > 2 * predict(oneNode, plan));
    }

    /** Across nodes each slot pays the network's hop: large calls take the largest chunk, small ones smaller. */
    @Test
    void shouldTakeLargerChunksWhenSlotsCrossTheNetwork()
    {
        final int largest = KnobSpace.CHUNK_LADDER.get(KnobSpace.CHUNK_LADDER.size() - 1);
        assertEquals(largest, bestChunk(64 << 20, 2));
        assertTrue(bestChunk(4 << 20, 2) >= 256 << 10, "4 MiB across nodes: " + bestChunk(4 << 20, 2));
        assertTrue(bestChunk(1 << 20, 2) < largest, "1 MiB across nodes: " + bestChunk(1 << 20, 2));
        assertTrue(bestChunk(4 << 20, 1) < bestChunk(4 << 20, 2), "one node keeps smaller chunks");
        final PlanRequest across = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 64 << 20, 2, 2, 1, false);
        assertTrue(predict(across, new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1,
            PinnedTuner.HOST_THREADS, largest)) < predict(across, new Plan(Algorithm.RING, Protocol.SIMPLE,
            TransportKind.P2P, 2, PinnedTuner.HOST_THREADS, largest)), "channels share the connection");
    }

    /** @return the chunk of the fastest SIMPLE ring AllReduce of two ranks on {@code nodes} nodes. */
    private static int bestChunk(final long bytes, final int nodes)
    {
        final PlanRequest request = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, bytes, 2, nodes, 1,
            false);
        int best = 0;
        double bestNs = Double.MAX_VALUE;
        for (final int chunk : KnobSpace.CHUNK_LADDER)
        {
            final double ns = predict(request, new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1,
                PinnedTuner.HOST_THREADS, chunk));
            if (ns < bestNs)
            {
                bestNs = ns;
                best = chunk;
            }
        }
        return best;
    }

    @Test
    void shouldCountStepsAndSegmentsAsNcclTestsDo()
    {
        assertEquals(6, CostModel.steps(false, Collective.ALL_REDUCE, 4));
        assertEquals(3, CostModel.steps(false, Collective.ALL_GATHER, 4));
        assertEquals(3, CostModel.steps(false, Collective.BROADCAST, 4));
        assertEquals(6, CostModel.steps(true, Collective.ALL_REDUCE, 5));
        assertEquals(2, CostModel.steps(true, Collective.REDUCE, 4));
        assertEquals(0, CostModel.ceilLog2(1));
        assertEquals(3, CostModel.ceilLog2(8));
        assertEquals(4, CostModel.ceilLog2(9));
        assertEquals(6.0, CostModel.rounds(false, Collective.ALL_REDUCE, 4));
        assertEquals(1.0, CostModel.rounds(false, Collective.BROADCAST, 4));
        assertEquals(3.0, CostModel.rounds(true, Collective.ALL_REDUCE, 8));
        assertEquals(2.0, CostModel.rounds(true, Collective.BROADCAST, 8));
    }

    @Test
    void shouldValidateCalibrationNamingTheField()
    {
        final Calibration defaults = Calibration.defaults();
        assertEquals(2, defaults.cores());
        assertEquals(300.0, defaults.protocol(Protocol.SIMPLE).stepNs());
        assertEquals(300.0, defaults.protocol(Protocol.LL).stepNs());
        assertEquals(300.0, defaults.protocol(Protocol.LL128).stepNs());
        assertEquals(220.0, defaults.protocol(Protocol.LL).slotNs());
        assertEquals(16.0, defaults.transport(TransportKind.P2P).capGBps());
        assertEquals(1.0, Calibration.efficiency(Protocol.SIMPLE));
        assertEquals(0.5, Calibration.efficiency(Protocol.LL));
        assertEquals(120.0 / 128.0, Calibration.efficiency(Protocol.LL128));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new Calibration.ProtocolCost(-1, 0)).getMessage().contains("stepNs"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new Calibration.TransportCost(0, Double.NaN, 1)).getMessage().contains("threadGBps"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> Calibration.defaults(0)).getMessage().contains("cores"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new CostModel(null)).getMessage().contains("calibration"));
    }

    @Test
    void shouldHashCalibrationsByTheirConstants()
    {
        assertEquals(Calibration.defaults().stableHash(), Calibration.defaults(2).stableHash());
        assertNotEquals(Calibration.defaults().stableHash(), Calibration.defaults(4).stableHash());
    }
}
