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
import static io.jccl.schedules.Opcode.RECV_COPY_SEND;
import static io.jccl.schedules.Opcode.RECV_REDUCE_COPY;
import static io.jccl.schedules.Opcode.RECV_REDUCE_COPY_REVERSED;
import static io.jccl.schedules.Opcode.RECV_REDUCE_SEND;
import static io.jccl.schedules.Opcode.SEND;
import static io.jccl.schedules.StepDescriptor.NO_DEPENDENCY;

/**
 * A pipelined binary tree for AllReduce (reduce to rank 0, then broadcast from it), Reduce and Broadcast (rooted
 * at their root). On one host: virtual rank {@code v = (rank - root) mod n}; node {@code v} has parent
 * {@code (v-1)/2} and children {@code 2v+1}, {@code 2v+2}. On several hosts (as NCCL does): the ranks of each host
 * form a chain, and the hosts a binary tree ({@link #hostNeighbours}), so each host has one link to its parent host
 * and one to each child host. A node's subtree value is {@code op(op(sub(c1), x_v), sub(c2))}.
 * <p>
 * A worker has one send and one receive peer, so a node uses up to four workers per channel, and every one of them
 * runs ahead on later pieces while the others are busy: up-1 receives from the first child; up-2 receives from the
 * second child and sends to the parent; down-1 receives from the parent and sends to the first child; down-2 sends
 * to the second child.
 */
public final class TreeGenerator
{
    private TreeGenerator()
    {
    }

    /**
     * @param collective a collective.
     * @return true for the collectives a tree can compute.
     */
    public static boolean supports(final Collective collective)
    {
        return collective == Collective.ALL_REDUCE || collective == Collective.BROADCAST ||
            collective == Collective.REDUCE;
    }

    /**
     * @param n    rank count.
     * @param root the tree's root rank.
     * @param rank a rank.
     * @return {parent, child1, child2} of that rank, -1 where absent.
     */
    public static int[] neighbours(final int n, final int root, final int rank)
    {
        final int v = (rank - root + n) % n;
        final int parent = v == 0 ? -1 : ((v - 1) / 2 + root) % n;
        final int child1 = 2 * v + 1 < n ? (2 * v + 1 + root) % n : -1;
        final int child2 = 2 * v + 2 < n ? (2 * v + 2 + root) % n : -1;
        return new int[] {parent, child1, child2};
    }

    /**
     * The tree across hosts: hosts in order of their lowest rank, rotated so the root's host comes first, form a
     * binary tree (host {@code i} has parent {@code (i-1)/2}); each host's ranks form a chain in rank order (the
     * root's host starts at the root). A chain's first rank (the leader) has the tail of its parent host's chain as
     * parent; a chain's last rank (the tail) has the leaders of its child hosts as children.
     *
     * @param topology the ranks and their hosts.
     * @param root     the tree's root rank.
     * @param rank     a rank.
     * @return {parent, child1, child2} of that rank, -1 where absent.
     */
    public static int[] hostNeighbours(final Topology topology, final int root, final int rank)
    {
        // the ring's order already groups each host's ranks, hosts in order of their lowest rank
        final List<List<Integer>> chains = new ArrayList<>();
        for (final int r : RingGenerator.ringOrder(topology))
        {
            if (chains.isEmpty() || topology.hostOf(last(chains.get(chains.size() - 1))) != topology.hostOf(r))
            {
                chains.add(new ArrayList<>());
            }
            chains.get(chains.size() - 1).add(r);
        }
        final List<Integer> hostIds = chains.stream().map(c -> topology.hostOf(c.get(0))).toList();
        final int rootHost = hostIds.indexOf(topology.hostOf(root));
        java.util.Collections.rotate(chains, -rootHost);
        final List<Integer> rootChain = chains.get(0);
        rootChain.remove(Integer.valueOf(root));
        rootChain.add(0, root);
        final int i = (hostIds.indexOf(topology.hostOf(rank)) - rootHost + chains.size()) % chains.size();
        final List<Integer> chain = chains.get(i);
        final int p = chain.indexOf(rank);
        final int parent = p > 0 ? chain.get(p - 1) : i == 0 ? -1 : last(chains.get((i - 1) / 2));
        if (p < chain.size() - 1)
        {
            return new int[] {parent, chain.get(p + 1), -1};
        }
        final int child1 = 2 * i + 1 < chains.size() ? chains.get(2 * i + 1).get(0) : -1;
        final int child2 = 2 * i + 2 < chains.size() ? chains.get(2 * i + 2).get(0) : -1;
        return new int[] {parent, child1, child2};
    }

    private static int last(final List<Integer> chain)
    {
        return chain.get(chain.size() - 1);
    }

    /**
     * @param collective ALL_REDUCE, BROADCAST or REDUCE.
     * @param topology   the ranks.
     * @param channels   channels, each a copy of the tree over its slice.
     * @param root       root of Broadcast and Reduce (AllReduce uses 0).
     * @return the program.
     */
    public static Program generate(final Collective collective, final Topology topology, final int channels,
        final int root)
    {
        if (!supports(collective))
        {
            throw new IllegalArgumentException("no tree algorithm for " + collective.xmlName());
        }
        final int n = topology.ranks();
        final int treeRoot = collective == Collective.ALL_REDUCE ? 0 : root;
        final List<List<Worker>> workers = new ArrayList<>(n);
        for (int r = 0; r < n; r++)
        {
            final List<Worker> rankWorkers = new ArrayList<>();
            for (int c = 0; c < channels; c++)
            {
                if (collective == Collective.ALL_REDUCE && n == 2)
                {
                    exchange(r, c, rankWorkers);
                }
                else
                {
                    node(collective, topology.hosts() > 1 ? hostNeighbours(topology, treeRoot, r) :
                        neighbours(n, treeRoot, r), c, rankWorkers);
                }
            }
            workers.add(rankWorkers);
        }
        final ChunkLayout whole = new ChunkLayout(1, channels);
        final boolean scratch = collective != Collective.BROADCAST &&
            !(collective == Collective.ALL_REDUCE && n == 2);
        return new Program("tree", collective, n, collective.isRooted() ? root : -1, whole, whole,
            scratch ? whole : null, workers);
    }

    /**
     * AllReduce on two ranks: the reduce-up and the broadcast-down fold into one exchange, one message latency
     * instead of two. Each rank sends its input to the other and both compute {@code op(x1, x0)}, the tree's own
     * order, so results are bit for bit those of the two-phase tree: rank 0 reduces what it receives with its input
     * ({@code rrc}: received first), rank 1 its input with what it receives ({@code rrcr}: its own first). Two steps
     * on each rank and no scratch; sending a piece before writing it keeps both correct in place.
     */
    private static void exchange(final int rank, final int c, final List<Worker> out)
    {
        final Worker.Builder w = new Worker.Builder(1 - rank, 1 - rank, c);
        w.step(SEND, INPUT, c, null, 0);
        w.step(rank == 0 ? RECV_REDUCE_COPY : RECV_REDUCE_COPY_REVERSED, INPUT, c, OUTPUT, c);
        add(out, w);
    }

    private static void node(final Collective collective, final int[] nb, final int c, final List<Worker> out)
    {
        final int parent = nb[0];
        final int child1 = nb[1];
        final int child2 = nb[2];
        final boolean reduceUp = collective != Collective.BROADCAST;
        final boolean broadcastDown = collective != Collective.REDUCE;
        int finalWorker = NO_DEPENDENCY;
        int finalStep = 0;

        if (reduceUp)
        {
            if (child1 < 0)
            {
                final Worker.Builder w = new Worker.Builder(parent < 0 ? Worker.NO_PEER : parent, Worker.NO_PEER, c);
                if (parent < 0)
                {
                    // a lone root: its input is the result
                    finalStep = w.step(COPY, INPUT, c, OUTPUT, c);
                    finalWorker = add(out, w);
                }
                else
                {
                    // a leaf sends its input up
                    w.step(SEND, INPUT, c, null, 0);
                    add(out, w);
                }
            }
            else if (child2 < 0)
            {
                // one child: receive its subtree, add my input, send up (or keep, at the root)
                final Worker.Builder w = new Worker.Builder(parent < 0 ? Worker.NO_PEER : parent, child1, c);
                if (parent < 0)
                {
                    finalStep = w.step(RECV_REDUCE_COPY, INPUT, c, OUTPUT, c);
                    finalWorker = add(out, w);
                }
                else
                {
                    w.step(RECV_REDUCE_SEND, INPUT, c, null, 0);
                    add(out, w);
                }
            }
            else
            {
                // two children: up-1 combines the first child's subtree with my input into scratch ...
                final Worker.Builder up1 = new Worker.Builder(Worker.NO_PEER, child1, c);
                final int up1Step = up1.step(RECV_REDUCE_COPY, INPUT, c, SCRATCH, c);
                final int up1Worker = add(out, up1);
                // ... and up-2 adds the second child's subtree, sending it up (or keeping it, at the root)
                final Worker.Builder up2 = new Worker.Builder(parent < 0 ? Worker.NO_PEER : parent, child2, c);
                if (parent < 0)
                {
                    finalStep = up2.step(RECV_REDUCE_COPY, SCRATCH, c, OUTPUT, c, 1, up1Worker, up1Step);
                    finalWorker = add(out, up2);
                }
                else
                {
                    up2.step(RECV_REDUCE_SEND, SCRATCH, c, null, 0, 1, up1Worker, up1Step);
                    add(out, up2);
                }
            }
        }

        if (broadcastDown)
        {
            if (parent < 0)
            {
                // the root sends the result (AllReduce) or its input (Broadcast) to each child
                final BufferKind src = reduceUp ? OUTPUT : INPUT;
                if (!reduceUp)
                {
                    final Worker.Builder copy = new Worker.Builder(Worker.NO_PEER, Worker.NO_PEER, c);
                    copy.step(COPY, INPUT, c, OUTPUT, c);
                    add(out, copy);
                }
                for (final int child : new int[] {child1, child2})
                {
                    if (child >= 0)
                    {
                        final Worker.Builder w = new Worker.Builder(child, Worker.NO_PEER, c);
                        w.step(SEND, src, c, null, 0, 1, finalWorker, finalStep);
                        add(out, w);
                    }
                }
            }
            else
            {
                // down-1 receives from the parent and forwards to the first child; down-2 sends to the second
                final Worker.Builder down1 = new Worker.Builder(child1 < 0 ? Worker.NO_PEER : child1, parent, c);
                final int down1Step = down1.step(child1 < 0 ? RECV : RECV_COPY_SEND, null, 0, OUTPUT, c);
                final int down1Worker = add(out, down1);
                if (child2 >= 0)
                {
                    final Worker.Builder down2 = new Worker.Builder(child2, Worker.NO_PEER, c);
                    down2.step(SEND, OUTPUT, c, null, 0, 1, down1Worker, down1Step);
                    add(out, down2);
                }
            }
        }
    }

    private static int add(final List<Worker> out, final Worker.Builder w)
    {
        out.add(w.build());
        return out.size() - 1;
    }
}
