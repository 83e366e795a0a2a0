package io.jccl.schedules;

import io.jccl.Collective;
import io.jccl.Topology;

import java.util.ArrayList;
import java.util.List;

import static io.jccl.schedules.BufferKind.INPUT;
import static io.jccl.schedules.BufferKind.OUTPUT;
import static io.jccl.schedules.BufferKind.SCRATCH;
import static io.jccl.schedules.Opcode.COPY;
import static io.jccl.schedules.Opcode.RECV;
import static io.jccl.schedules.Opcode.RECV_REDUCE_COPY;
import static io.jccl.schedules.Opcode.RECV_REDUCE_COPY_REVERSED;
import static io.jccl.schedules.Opcode.REDUCE;
import static io.jccl.schedules.Opcode.SEND;
import static io.jccl.schedules.StepDescriptor.NO_DEPENDENCY;

/**
 * Programs in which every pair of ranks talks directly, one worker per peer and channel.
 * <ul>
 *     <li>AllToAll: per channel, rank {@code r} copies its own block and runs one worker per peer {@code p} that
 *     sends block {@code p} of its input to {@code p} and receives {@code p}'s block {@code r} into block {@code p}
 *     of its output. Sending a piece of block {@code p} before receiving into the same piece keeps it correct in
 *     place.</li>
 *     <li>AllReduce, AllGather and ReduceScatter ({@link io.jccl.Algorithm#DIRECT}): every rank sends each peer
 *     what the peer's result needs of its input, in one message, and receives (and for the reductions reduces) the
 *     peers' in rank order.</li>
 * </ul>
 */
public final class DirectGenerator
{
    private DirectGenerator()
    {
    }

    /**
     * @param topology the ranks.
     * @param channels channels, each owning a slice of every block.
     * @return the AllToAll program.
     */
    public static Program allToAll(final Topology topology, final int channels)
    {
        final int n = topology.ranks();
        final List<List<Worker>> workers = perRankAndChannel(n, channels, (r, c, rankWorkers) ->
            exchangeChannel(n, r, c, channels, p -> p * channels + c, rankWorkers));
        final ChunkLayout blocks = new ChunkLayout(n, channels);
        return new Program("direct", Collective.ALL_TO_ALL, n, -1, blocks, blocks, null, workers);
    }

    /**
     * Appends rank {@code r}'s workers of channel {@code c} of an exchange without reduction (AllToAll, AllGather):
     * its own, which copies input chunk {@code inputChunk(r)} to its output block, then one per peer p, which sends
     * p input chunk {@code inputChunk(p)} and receives p's into p's output block. A worker sends a piece before it
     * receives into its block, which keeps AllToAll correct in place; AllGather's in-place input is block r, which
     * nothing writes.
     */
    private static void exchangeChannel(final int n, final int r, final int c, final int channels,
        final java.util.function.IntUnaryOperator inputChunk, final List<Worker> out)
    {
        final Worker.Builder own = new Worker.Builder(Worker.NO_PEER, Worker.NO_PEER, c);
        own.step(COPY, INPUT, inputChunk.applyAsInt(r), OUTPUT, r * channels + c);
        out.add(own.build());
        for (int k = 1; k < n; k++)
        {
            final int peer = (r + k) % n;
            final Worker.Builder w = new Worker.Builder(peer, peer, c);
            w.step(SEND, INPUT, inputChunk.applyAsInt(peer), null, 0);
            w.step(RECV, null, 0, OUTPUT, peer * channels + c);
            out.add(w.build());
        }
    }

    /** Appends one rank's workers of one channel. */
    @FunctionalInterface
    private interface ChannelWorkers
    {
        void add(int rank, int channel, List<Worker> rankWorkers);
    }

    /** @return every rank's workers, channel after channel as {@code body} appends them. */
    private static List<List<Worker>> perRankAndChannel(final int n, final int channels, final ChannelWorkers body)
    {
        final List<List<Worker>> workers = new ArrayList<>(n);
        for (int r = 0; r < n; r++)
        {
            final List<Worker> rankWorkers = new ArrayList<>();
            for (int c = 0; c < channels; c++)
            {
                body.add(r, c, rankWorkers);
            }
            workers.add(rankWorkers);
        }
        return workers;
    }

    /**
     * @param collective a collective.
     * @return true if a direct program of its own computes it (AllReduce, AllGather, ReduceScatter; AllToAll's
     *         exchange is its only program, whatever the algorithm).
     */
    public static boolean supports(final Collective collective)
    {
        return collective == Collective.ALL_REDUCE || collective == Collective.ALL_GATHER ||
            collective == Collective.REDUCE_SCATTER;
    }

    /**
     * AllReduce in one message: per channel (a slice of the buffer), rank {@code r} runs one worker per peer that
     * sends it the slice of {@code r}'s input and receives the peer's, and reduces the n inputs in rank order,
     * {@code x(q) op acc(q-1)} for q = 1 .. n-1 from {@code acc(0) = x(0)}, the operand order of the two-rank tree,
     * so every rank computes the same bits and two ranks the tree's. The reduction is a chain of steps, each waiting
     * for the one before (in another worker, a dependency), and the chain waits for the last send: sending every
     * piece of the input before anything is written keeps it correct in place. Rank 0 accumulates in the output
     * from the start; rank 1 starts it with its own input first ({@code rrcr}, one step); any other rank holds
     * {@code acc} in scratch until its own input's turn, where it copies that input to the output and reduces
     * {@code acc} into it. Two ranks use no scratch.
     *
     * @param topology the ranks.
     * @param channels channels, each owning a slice of the buffer.
     * @return the AllReduce program.
     */
    public static Program allReduce(final Topology topology, final int channels)
    {
        final int n = topology.ranks();
        final List<List<Worker>> workers = perRankAndChannel(n, channels, (r, c, rankWorkers) ->
            reduceChannel(n, r, c, p -> c, rankWorkers));
        final ChunkLayout whole = new ChunkLayout(1, channels);
        return new Program("direct", Collective.ALL_REDUCE, n, -1, whole, whole, n > 2 ? whole : null, workers);
    }

    /**
     * ReduceScatter in one message: rank r sends each peer p its input's block p, and reduces block r of every
     * input in the AllReduce's rank order ({@link #allReduce}); in place, the output is the input's block r, which no
     * send reads.
     *
     * @param topology the ranks.
     * @param channels channels, each owning a slice of every block.
     * @return the ReduceScatter program.
     */
    public static Program reduceScatter(final Topology topology, final int channels)
    {
        final int n = topology.ranks();
        final List<List<Worker>> workers = perRankAndChannel(n, channels, (r, c, rankWorkers) ->
            reduceChannel(n, r, c, p -> p * channels + c, rankWorkers));
        final ChunkLayout whole = new ChunkLayout(1, channels);
        return new Program("direct", Collective.REDUCE_SCATTER, n, -1, new ChunkLayout(n, channels), whole,
            n > 2 ? whole : null, workers);
    }

    /**
     * AllGather in one message: rank r copies its input to block r of its output, sends it to every peer, and
     * receives peer p's into block p; in place, the input is block r, which nothing writes.
     *
     * @param topology the ranks.
     * @param channels channels, each owning a slice of every block.
     * @return the AllGather program.
     */
    public static Program allGather(final Topology topology, final int channels)
    {
        final int n = topology.ranks();
        final List<List<Worker>> workers = perRankAndChannel(n, channels, (r, c, rankWorkers) ->
            exchangeChannel(n, r, c, channels, p -> c, rankWorkers));
        return new Program("direct", Collective.ALL_GATHER, n, -1, new ChunkLayout(1, channels),
            new ChunkLayout(n, channels), null, workers);
    }

    /**
     * Appends rank {@code r}'s workers of channel {@code c} of a reduction: one per peer ((r + k) mod n, k = 1 ..
     * n-1), then its own.
     *
     * @param inputChunk the input chunk that goes to rank p (and rank r's own contribution at p = r).
     */
    private static void reduceChannel(final int n, final int r, final int c,
        final java.util.function.IntUnaryOperator inputChunk, final List<Worker> out)
    {
        final int base = out.size();
        final Worker.Builder own = new Worker.Builder(Worker.NO_PEER, Worker.NO_PEER, c);
        if (n == 1)
        {
            own.step(COPY, INPUT, inputChunk.applyAsInt(r), OUTPUT, c);
            out.add(own.build());
            return;
        }
        final Worker.Builder[] peers = new Worker.Builder[n - 1];
        for (int k = 1; k < n; k++)
        {
            final int peer = (r + k) % n;
            peers[k - 1] = new Worker.Builder(peer, peer, c);
            peers[k - 1].step(SEND, INPUT, inputChunk.applyAsInt(peer), null, 0, 1,
                k == 1 ? NO_DEPENDENCY : base + k - 2, 0);
        }
        final int mine = inputChunk.applyAsInt(r);
        final Chain chain = new Chain(base + n - 2, 0);
        if (r == 0)
        {
            chain.step(peers[0], base, RECV_REDUCE_COPY, INPUT, mine, OUTPUT);
        }
        else if (r == 1)
        {
            // acc(1) = x(1) op x(0): its own input first, in one step and without scratch
            chain.step(peers[n - 2], base + n - 2, RECV_REDUCE_COPY_REVERSED, INPUT, mine, OUTPUT);
        }
        else
        {
            chain.step(peers[n - r - 1], base + n - r - 1, RECV, null, 0, SCRATCH);
        }
        for (int q = 1; q < n; q++)
        {
            final int k = (q - r + n) % n;
            if (q == r && r == 1)
            {
                continue;
            }
            if (q == r)
            {
                chain.step(own, base + n - 1, COPY, INPUT, mine, OUTPUT);
                chain.step(own, base + n - 1, REDUCE, SCRATCH, c, OUTPUT);
            }
            else if (r != 0 || q != 1)
            {
                final BufferKind acc = q < r ? SCRATCH : OUTPUT;
                chain.step(peers[k - 1], base + k - 1, RECV_REDUCE_COPY, acc, c, acc);
            }
        }
        for (final Worker.Builder peer : peers)
        {
            out.add(peer.build());
        }
        if (r > 1)
        {
            out.add(own.build());
        }
    }

    /** The reduction's steps in order, each depending on the one before unless that one is its worker's own. */
    private static final class Chain
    {
        private int worker;
        private int step;

        Chain(final int worker, final int step)
        {
            this.worker = worker;
            this.step = step;
        }

        /** Appends a step whose destination is the channel's chunk (of the output or scratch). */
        void step(final Worker.Builder builder, final int index, final Opcode op, final BufferKind src,
            final int srcChunk, final BufferKind dst)
        {
            final boolean sameWorker = index == worker;
            step = builder.step(op, src, srcChunk, dst, builder.channel(), 1, sameWorker ? NO_DEPENDENCY : worker,
                sameWorker ? 0 : step);
            worker = index;
        }
    }
}
