package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.schedules.Generators;

/**
 * Predicts how long a plan takes, in NCCL's alpha-beta form (latency x steps + bytes / bandwidth) with the host's
 * costs from a {@link Calibration}. Pure arithmetic on doubles, so every JVM predicts the same for the same input.
 * <p>
 * For a call of {@code bytes} ({@code nBytes}) on {@code n} ranks, {@code C} channels, chunk {@code k} capped to
 * the protocol's slot payload ({@link KnobSpace#cap}):
 * <pre>
 * time = steps x (stepNs x contention + hopNs [+ switchNs])  handoffs along the algorithm's critical path
 *      + slots x (slotNs x contention + C x netSlotNs)     per-slot bookkeeping of one channel
 *      + fillDepth x min(k, segment) / channelBandwidth    the pipeline filling: a slot is read once written
 *      + busBytes / rankBandwidth                          streaming
 * </pre>
 * <ul>
 *     <li>Steps and bus bytes as nccl-tests count them: ring AllReduce 2(n-1) steps of n-th segments (bus bytes
 *     2(n-1)/n x bytes), AllGather, ReduceScatter and AllToAll n-1 steps ((n-1)/n), Broadcast and Reduce a chain
 *     of n-1 hops moving every byte once (1). Tree: 2 ceil(log2 n) steps for AllReduce, ceil(log2 n) for
 *     Broadcast and Reduce; its busiest rank (a node of the binary heap with a parent and two children) moves up
 *     to 3 x bytes in AllReduce, 2 x bytes in Broadcast and Reduce. Direct AllReduce is charged the tree's steps,
 *     and its busiest rank moves n-1 whole buffers (at least the tree's); direct AllGather and ReduceScatter the
 *     ring's steps and bytes (they move the same bytes). So the model never prefers direct: whether its one message
 *     per peer pays depends on how the ranks are driven, which a call shape does not say. With a
 *     process per rank and 4 ranks on 2 cores it took half the tree's time at 16 B-1 KiB (each of the tree's hops
 *     can wait for a context switch); with one thread driving 4 ranks ({@code -g 4}) up to 3x the ring's and the
 *     tree's (every step is that thread's work); at 2 ranks the tree is that exchange already (0.93-1.09x each
 *     other), and where each of the 2 ranks has a process of its own it is charged as one: one handoff on the
 *     critical path (the ring's reduce-scatter and all-gather hand off in turn), no slot to fill on P2P with SIMPLE
 *     (the peer reads the caller's input in place), and {@link #EXCHANGE_TRAFFIC} for reducing the whole buffer on
 *     both ranks; so it is chosen up to 64 KiB and the ring from 128 KiB. Direct is chosen by a pin, a table line
 *     or the online tuner, which measures; and by the model itself where every rank has a process of its own,
 *     there are at least 3, and more on a node than cores: there direct AllReduce is charged one exchange, two
 *     steps, and every step a process switch ({@link #SWITCH_NS}; measured with 4 processes on 2 cores, 8-128 B:
 *     direct 4.1-6.0 us, the tree 7.5-10.6, Open MPI 5.3-6.4).</li>
 *     <li>Slots: each step moves its segment ({@code bytes / (n C)} for ring AllReduce, AllGather, ReduceScatter
 *     and AllToAll, {@code bytes / C} otherwise) in {@code ceil(segment / k)} slots.</li>
 *     <li>Fill: rings lose one slot's time (every rank starts at once); chains and trees one per hop of depth; one
 *     hop less between processes of one rank where a collective that only moves data runs P2P with SIMPLE, whose
 *     sends are read in place (measured with 2 processes, AllGather 128 KiB-2 MiB: 512 KiB chunks 1.55-1.70x the
 *     busbw of the 32 KiB the model chose before, 1.20-1.43x with private memory, staged).</li>
 *     <li>Bandwidth: the {@code ranksPerNode x C} workers share the cores; those beyond the cores add no
 *     bandwidth ({@code min(workers, cores) x threadGBps}, capped by the host's {@code capGBps}, split among the
 *     host's ranks), and every latency grows by {@code contention = max(1, workers / cores)}: on 2 cores, 4
 *     spinning ranks time-share. Protocol efficiency (SIMPLE 1, LL 0.5, LL128 120/128) and copies per byte
 *     delivered divide it: P2P with SIMPLE reads the peer's buffer directly (1 copy), P2P with LL or LL128 writes
 *     the receiver's FIFO and reads it out (2), SHM stages once more than P2P, NET copies in and out (2).</li>
 *     <li>Across nodes every hop is bounded by the network: the slower of the plan's transport and NET sets the
 *     hop latency and, with {@code min(C x threadGBps, capGBps)} of NET, the bandwidth; and every slot pays NET's
 *     hop latency once more ({@code netSlotNs}, 0 on one node unless the plan's transport is NET), the channels'
 *     slots one after another (they share a connection per peer), so chunks grow with the size across nodes and
 *     channels do not multiply there.</li>
 * </ul>
 * One rank predicts 0: nothing moves. The model is deliberately simple; its job is to rank plans, not to time
 * them, and tests hold it to qualitative facts (LL for tiny calls, SIMPLE for large ones).
 */
public final class CostModel
{
    /**
     * What a handoff to a process that is not running costs, where processes of one rank outnumber the cores: the
     * receiver's switch-in. Measured with 4 processes on 2 cores, 8-128 B AllReduce: the tree's 4 levels 7.5-10.6 us,
     * direct's one exchange 4.1-6.0 us, about 2 us a level.
     */
    static final double SWITCH_NS = 2000;
    /**
     * What the 2-rank exchange's bytes cost over the ring's: each rank reduces the whole buffer (reads its own and the
     * peer's, writes the sum: 3 bytes of memory traffic a byte) where the ring's two steps reduce half each and copy
     * the other half (2.5), which alone would say 1.2; 1.5 is fitted to where the ring starts to win. Measured with 2
     * processes, AllReduce, 4 launches of 7 interleaved rounds: the exchange (whole-buffer pieces) 0.81-1.06x the
     * ring's time from 2 KiB to 128 KiB, most 0.85-0.93; alike at 256-512 KiB; with 32 KiB pieces the ring was
     * 1.07-1.27x faster from 128 KiB to 16 MiB.
     */
    static final double EXCHANGE_TRAFFIC = 1.5;

    private final Calibration calibration;
    private final boolean rankPerProcess;

    /**
     * @param calibration the constants.
     * @throws JcclInvalidArgumentException if calibration is null.
     */
    public CostModel(final Calibration calibration)
    {
        this(calibration, false);
    }

    /**
     * @param calibration    the constants.
     * @param rankPerProcess true when every rank lives in a process of its own, which drives it: then, with more
     *                       ranks on a node than cores, every step pays {@link #SWITCH_NS}, and from 3 ranks direct
     *                       AllReduce is charged one exchange (two steps) where the tree pays a step per level.
     * @throws JcclInvalidArgumentException if calibration is null.
     */
    public CostModel(final Calibration calibration, final boolean rankPerProcess)
    {
        if (calibration == null)
        {
            throw new JcclInvalidArgumentException("calibration is null");
        }
        this.calibration = calibration;
        this.rankPerProcess = rankPerProcess;
    }

    /** @return the constants. */
    public Calibration calibration()
    {
        return calibration;
    }

    /**
     * @param request the call shape.
     * @param plan    a plan for it (its algorithm is taken as it runs: {@link Generators#effective}).
     * @return the predicted time of the call in ns, finite and not negative.
     */
    public double predictNanos(final PlanRequest request, final Plan plan)
    {
        final int n = request.ranks();
        if (n == 1)
        {
            return 0.0;
        }
        final Collective collective = request.collective();
        final Algorithm algorithm = Generators.effective(plan.algorithm(), collective);
        // a direct AllReduce is charged the tree's hops and more traffic from 3 ranks, a direct AllGather or
        // ReduceScatter the ring's hops and traffic (see the class comment)
        final boolean direct = algorithm == Algorithm.DIRECT && collective == Collective.ALL_REDUCE;
        final boolean tree = (algorithm == Algorithm.TREE || direct) && collective != Collective.ALL_TO_ALL;
        final int channels = plan.channels();
        final Protocol protocol = plan.protocol();
        final double bytes = request.bytes();

        // processes of one rank, more than the cores: a handoff can wait for the receiver's process to be switched
        // in, and direct AllReduce is one exchange where the tree pays that per level
        final boolean oversubscribed = rankPerProcess && request.ranksPerNode() > calibration.cores();
        final double switchNs = oversubscribed ? SWITCH_NS : 0;
        // 2 ranks with a process each: the tree (or direct) AllReduce is one exchange, both ranks sending their whole
        // buffer and reducing the peer's as it arrives at once: one handoff on the critical path, where the ring's
        // reduce-scatter and all-gather hand off in turn; its cost is the traffic
        final boolean exchange = tree && rankPerProcess && n == 2 && collective == Collective.ALL_REDUCE;
        final int steps = exchange ? 1 : direct && oversubscribed && n >= 3 ? 2 : steps(tree, collective, n);
        final double rounds = direct ? Math.max(n - 1, rounds(true, collective, n)) : rounds(tree, collective, n);
        final boolean perRankSegments = !tree && !collective.isRooted();
        final double segment = perRankSegments ? bytes / ((double)n * channels) : bytes / channels;
        // between processes of one rank, a collective that only moves data on P2P with SIMPLE publishes its sends
        // in place: the first hop's slot is read as soon as it is announced, never written first, so that hop adds
        // no fill (one thread driving in-process ranks gained nothing from it: -g 2 AllGather 1.04-1.13x the time)
        final boolean inPlaceSends = rankPerProcess && plan.transport() == TransportKind.P2P &&
            protocol == Protocol.SIMPLE && !collective.isReducing();
        // the exchange sends the caller's input, which P2P with SIMPLE lets the peer read where it lies: no slot fills
        final boolean inPlaceExchange = exchange && plan.transport() == TransportKind.P2P &&
            protocol == Protocol.SIMPLE;
        final double fillDepth = Math.max(0, (tree ? steps : (perRankSegments ? 1 : n - 1)) -
            (inPlaceSends || inPlaceExchange ? 1 : 0));

        final int local = request.ranksPerNode();
        final double workers = (double)local * channels;
        final double contention = Math.max(1.0, workers / calibration.cores());
        final Calibration.TransportCost path = calibration.transport(plan.transport());
        double hopNs = path.hopNs();
        double rankGBps = Math.min(Math.min(workers, calibration.cores()) * path.threadGBps(), path.capGBps()) / local;
        if (request.nodes() > 1 && plan.transport() != TransportKind.NET)
        {
            final Calibration.TransportCost net = calibration.net();
            hopNs = Math.max(hopNs, net.hopNs());
            rankGBps = Math.min(rankGBps, Math.min(channels * net.threadGBps(), net.capGBps()));
        }
        final double dataBytesPerNs = rankGBps * Calibration.efficiency(protocol) / copies(plan.transport(), protocol);
        final double channelBytesPerNs = dataBytesPerNs / channels;

        final Calibration.ProtocolCost cost = calibration.protocol(protocol);
        final double piece = KnobSpace.cap(protocol, plan.chunkBytes());
        final double slots = rounds * Math.ceil(segment / piece);
        // a slot that crosses the network pays the network's hop too, and the channels share one connection per
        // peer, so they pay it one after another: its frames and credits are not hidden by the ring's window
        // (measured over TCP between two namespaces here: 64 MiB went from 0.69 GB/s with 128K chunks to 0.88 with
        // 512K, and 2 channels of 512K read 0.58-0.74; a model without this chose 32-128K)
        final double netSlotNs = request.nodes() > 1 || plan.transport() == TransportKind.NET ?
            calibration.net().hopNs() : 0;

        return steps * (cost.stepNs() * contention + hopNs + switchNs) +
            slots * (cost.slotNs() * contention + channels * netSlotNs) +
            fillDepth * Math.min(piece, segment) / channelBytesPerNs +
            rounds * segment * channels / dataBytesPerNs * (exchange ? EXCHANGE_TRAFFIC : 1);
    }

    /**
     * @param tree       true for the tree algorithm (AllReduce, Broadcast, Reduce).
     * @param collective the collective.
     * @param n          ranks, at least 2.
     * @return handoffs along the critical path.
     */
    static int steps(final boolean tree, final Collective collective, final int n)
    {
        if (tree)
        {
            final int depth = ceilLog2(n);
            return collective == Collective.ALL_REDUCE ? 2 * depth : depth;
        }
        return collective == Collective.ALL_REDUCE ? 2 * (n - 1) : n - 1;
    }

    /**
     * @param tree       true for the tree algorithm.
     * @param collective the collective.
     * @param n          ranks, at least 2.
     * @return segments the busiest rank moves per channel (ring: a segment per step; chain: the whole buffer
     *         once; tree: once per edge of its busiest node).
     */
    static double rounds(final boolean tree, final Collective collective, final int n)
    {
        if (tree)
        {
            if (collective == Collective.ALL_REDUCE)
            {
                return n == 2 ? 1 : (n <= 4 ? 2 : 3);
            }
            return Math.min(n - 1, 2);
        }
        if (collective.isRooted())
        {
            return 1;
        }
        return collective == Collective.ALL_REDUCE ? 2 * (n - 1) : n - 1;
    }

    /**
     * @param transport the transport.
     * @param protocol  the protocol.
     * @return bytes copied per data byte delivered.
     */
    static int copies(final TransportKind transport, final Protocol protocol)
    {
        final int p2p = protocol == Protocol.SIMPLE ? 1 : 2;
        return switch (transport)
        {
            case P2P -> p2p;
            case SHM -> p2p + 1;
            case NET -> 2;
        };
    }

    static int ceilLog2(final int n)
    {
        return n <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(n - 1);
    }
}
