package io.jccl.schedules;

import io.jccl.Collective;
import io.jccl.Topology;

import java.util.ArrayList;
import java.util.List;

import static io.jccl.schedules.BufferKind.INPUT;
import static io.jccl.schedules.BufferKind.OUTPUT;
import static io.jccl.schedules.Opcode.COPY;
import static io.jccl.schedules.Opcode.RECV;
import static io.jccl.schedules.Opcode.RECV_COPY_SEND;
import static io.jccl.schedules.Opcode.RECV_REDUCE_COPY;
import static io.jccl.schedules.Opcode.RECV_REDUCE_COPY_SEND;
import static io.jccl.schedules.Opcode.RECV_REDUCE_SEND;
import static io.jccl.schedules.Opcode.SEND;

/**
 * Ring algorithms for all five collectives, one worker per rank and channel. Channel {@code c} owns slice
 * {@code c} of every rank-segment. The element order of every reduction depends on the rank count alone: segment
 * {@code k} is reduced along the ring starting at rank {@code k+1} and ending at rank {@code k}.
 */
public final class RingGenerator
{
    private RingGenerator()
    {
    }

    /**
     * @param collective what to compute (not ALL_TO_ALL).
     * @param topology   the ranks: the ring visits each host's ranks together, in rank order, and hosts in order of
     *                   their lowest rank, so it crosses each host boundary once ({@link #ringOrder(Topology)}).
     * @param channels   channels, at least 1.
     * @param root       the root for Broadcast and Reduce.
     * @return the program.
     */
    public static Program generate(final Collective collective, final Topology topology, final int channels,
        final int root)
    {
        final int n = topology.ranks();
        final int[] order = ringOrder(topology);
        final int[] position = new int[n];
        for (int p = 0; p < n; p++)
        {
            position[order[p]] = p;
        }
        final List<List<Worker>> workers = new ArrayList<>(n);
        for (int r = 0; r < n; r++)
        {
            final List<Worker> rankWorkers = new ArrayList<>(channels);
            for (int c = 0; c < channels; c++)
            {
                rankWorkers.add(worker(collective, n, position[r], c, channels, position[Math.max(root, 0)], order));
            }
            workers.add(rankWorkers);
        }
        final ChunkLayout perRank = new ChunkLayout(n, channels);
        final ChunkLayout whole = new ChunkLayout(1, channels);
        final ChunkLayout input = collective == Collective.ALL_REDUCE || collective == Collective.REDUCE_SCATTER ?
            perRank : whole;
        final ChunkLayout output = collective == Collective.ALL_REDUCE || collective == Collective.ALL_GATHER ?
            perRank : whole;
        return new Program("ring", collective, n, collective.isRooted() ? root : -1, input, output, null, workers);
    }

    /**
     * @param topology the ranks.
     * @return the ranks in ring order: each host's ranks together in rank order, hosts in order of their lowest rank
     *         (the identity where hosts hold contiguous ranks, as launchers number them).
     */
    public static int[] ringOrder(final Topology topology)
    {
        final int n = topology.ranks();
        final java.util.Map<Integer, Integer> first = new java.util.HashMap<>();
        for (int r = 0; r < n; r++)
        {
            first.putIfAbsent(topology.hostOf(r), r);
        }
        return java.util.stream.IntStream.range(0, n).boxed()
            .sorted(java.util.Comparator.<Integer>comparingInt(r -> first.get(topology.hostOf(r)))
                .thenComparingInt(r -> r))
            .mapToInt(Integer::intValue).toArray();
    }

    /** The worker of the rank at ring position {@code r} (its rank is {@code order[r]}); segments are by rank. */
    private static Worker worker(final Collective collective, final int n, final int r, final int c,
        final int channels, final int rootPosition, final int[] order)
    {
        final int next = order[(r + 1) % n];
        final int prev = order[(r - 1 + n) % n];
        if (n == 1)
        {
            final Worker.Builder w = new Worker.Builder(Worker.NO_PEER, Worker.NO_PEER, c);
            w.step(COPY, INPUT, c, OUTPUT, c);
            return w.build();
        }
        return switch (collective)
        {
            case ALL_REDUCE -> allReduce(new Worker.Builder(next, prev, c), n, r, channels, order);
            case REDUCE_SCATTER -> reduceScatter(new Worker.Builder(next, prev, c), n, r, channels, order);
            case ALL_GATHER -> allGather(new Worker.Builder(next, prev, c), n, r, channels, order);
            case BROADCAST -> chain(n, r, c, rootPosition, false, order);
            case REDUCE -> chain(n, r, c, (rootPosition + 1) % n, true, order);
            case ALL_TO_ALL -> throw new IllegalArgumentException("no ring algorithm for alltoall");
        };
    }

    /** Chunk of slice {@code c} of the segment of the rank at ring position {@code segment}. */
    private static int chunk(final int segment, final int n, final int c, final int channels, final int[] order)
    {
        return order[(segment % n + n) % n] * channels + c;
    }

    private static Worker allReduce(final Worker.Builder w, final int n, final int r, final int channels,
        final int[] order)
    {
        final int c = w.channel();
        // step 0: send my input of segment r-1, where that segment's reduction starts
        w.step(SEND, INPUT, chunk(r - 1, n, c, channels, order), null, 0);
        // n-2 steps: recvReduceSend segment r-1-j to the next rank
        for (int j = 1; j <= n - 2; j++)
        {
            w.step(RECV_REDUCE_SEND, INPUT, chunk(r - 1 - j, n, c, channels, order), null, 0);
        }
        // recvReduceCopySend: segment r is complete here; store it and start its all-gather
        final int own = chunk(r, n, c, channels, order);
        w.step(RECV_REDUCE_COPY_SEND, INPUT, own, OUTPUT, own);
        // n-2 steps: recvCopySend the complete segment r-j
        for (int j = 1; j <= n - 2; j++)
        {
            w.step(RECV_COPY_SEND, null, 0, OUTPUT, chunk(r - j, n, c, channels, order));
        }
        // recv: the last complete segment, r+1
        w.step(RECV, null, 0, OUTPUT, chunk(r + 1, n, c, channels, order));
        return w.build();
    }

    private static Worker reduceScatter(final Worker.Builder w, final int n, final int r, final int channels,
        final int[] order)
    {
        final int c = w.channel();
        // send my input of segment r-1, then n-2 recvReduceSend, then recvReduceCopy of my own segment
        w.step(SEND, INPUT, chunk(r - 1, n, c, channels, order), null, 0);
        for (int j = 1; j <= n - 2; j++)
        {
            w.step(RECV_REDUCE_SEND, INPUT, chunk(r - 1 - j, n, c, channels, order), null, 0);
        }
        w.step(RECV_REDUCE_COPY, INPUT, chunk(r, n, c, channels, order), OUTPUT, c);
        return w.build();
    }

    private static Worker allGather(final Worker.Builder w, final int n, final int r, final int channels,
        final int[] order)
    {
        final int c = w.channel();
        // send my input, then copy it into my output slot (skipped in place) while the next rank takes it, forward
        // n-2 segments, receive the last
        w.step(SEND, INPUT, c, null, 0);
        w.step(COPY, INPUT, c, OUTPUT, chunk(r, n, c, channels, order));
        for (int j = 1; j <= n - 2; j++)
        {
            w.step(RECV_COPY_SEND, null, 0, OUTPUT, chunk(r - j, n, c, channels, order));
        }
        w.step(RECV, null, 0, OUTPUT, chunk(r + 1, n, c, channels, order));
        return w.build();
    }

    /**
     * A chain from {@code first} around the ring: Broadcast starts at the root, Reduce starts after the root and
     * ends at it.
     */
    private static Worker chain(final int n, final int r, final int c, final int first, final boolean reduce,
        final int[] order)
    {
        final int position = (r - first + n) % n;
        final boolean head = position == 0;
        final boolean tail = position == n - 1;
        final Worker.Builder w = new Worker.Builder(tail ? Worker.NO_PEER : order[(r + 1) % n],
            head ? Worker.NO_PEER : order[(r - 1 + n) % n], c);
        if (reduce)
        {
            // head sends its input, the middle recvReduceSends, the root (tail) recvReduceCopies
            w.step(head ? SEND : tail ? RECV_REDUCE_COPY : RECV_REDUCE_SEND, INPUT, c, tail ? OUTPUT : null,
                tail ? c : 0);
        }
        else if (head)
        {
            // the root sends its input, then copies it to its output (skipped in place) while the next rank takes it
            w.step(SEND, INPUT, c, null, 0);
            w.step(COPY, INPUT, c, OUTPUT, c);
        }
        else
        {
            // the middle recvCopySends, the tail receives
            w.step(tail ? RECV : RECV_COPY_SEND, null, 0, OUTPUT, c);
        }
        return w.build();
    }
}
