package io.jccl.schedules;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Topology;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GeneratorsTest
{
    private static final int[] RANKS = {1, 2, 3, 5, 8};
    private static final int[] CHANNELS = {1, 2, 3};

    /** Ring order of segment k: starts at rank k+1, ends at rank k. */
    private static String ringSum(final int n, final int k)
    {
        String acc = Integer.toString((k + 1) % n);
        for (int j = 2; j <= n; j++)
        {
            acc = "(" + acc + "+" + (k + j) % n + ")";
        }
        return acc;
    }

    /** Tree order: sub(v) = (sub(c2) + (sub(c1) + v)) over virtual ranks rooted at root (received operand first). */
    private static String treeSum(final int n, final int root, final int v)
    {
        final String self = Integer.toString((v + root) % n);
        String acc = 2 * v + 1 < n ? "(" + treeSum(n, root, 2 * v + 1) + "+" + self + ")" : self;
        if (2 * v + 2 < n)
        {
            acc = "(" + treeSum(n, root, 2 * v + 2) + "+" + acc + ")";
        }
        return acc;
    }

    private static SymbolicRun run(final Algorithm algorithm, final Collective collective, final int n,
        final int channels, final int root)
    {
        final Program program = Generators.generate(algorithm, collective, Topology.singleProcess(n), channels, root);
        final SymbolicRun run = new SymbolicRun(program, false);
        assertTrue(run.run(), () -> "deadlock or leftover slots in\n" + program);
        return run;
    }

    @Test
    void shouldReduceEverySegmentInRingOrderWhenRingAllReduce()
    {
        for (final int n : RANKS)
        {
            for (final int c : CHANNELS)
            {
                final SymbolicRun run = run(Algorithm.RING, Collective.ALL_REDUCE, n, c, -1);
                for (int r = 0; r < n; r++)
                {
                    final List<String> out = run.output(r);
                    for (int k = 0; k < n; k++)
                    {
                        for (int s = 0; s < c; s++)
                        {
                            assertEquals(n == 1 ? "0" : ringSum(n, k), out.get(k * c + s), "n=" + n + " rank " + r);
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldGiveRankItsSegmentWhenRingReduceScatter()
    {
        for (final int n : RANKS)
        {
            for (final int c : CHANNELS)
            {
                final SymbolicRun run = run(Algorithm.RING, Collective.REDUCE_SCATTER, n, c, -1);
                for (int r = 0; r < n; r++)
                {
                    for (final String chunk : run.output(r))
                    {
                        assertEquals(n == 1 ? "0" : ringSum(n, r), chunk);
                    }
                }
            }
        }
    }

    @Test
    void shouldGatherEveryInputWhenRingAllGather()
    {
        for (final int n : RANKS)
        {
            for (final int c : CHANNELS)
            {
                final SymbolicRun run = run(Algorithm.RING, Collective.ALL_GATHER, n, c, -1);
                for (int r = 0; r < n; r++)
                {
                    final List<String> out = run.output(r);
                    for (int k = 0; k < n * c; k++)
                    {
                        assertEquals(Integer.toString(k / c), out.get(k));
                    }
                }
            }
        }
    }

    @Test
    void shouldCarryRootInputOrReduceToRootWhenRootedCollectives()
    {
        for (final Algorithm algorithm : Algorithm.values())
        {
            for (final int n : RANKS)
            {
                for (int root = 0; root < n; root++)
                {
                    final SymbolicRun bcast = run(algorithm, Collective.BROADCAST, n, 2, root);
                    for (int r = 0; r < n; r++)
                    {
                        assertEquals(List.of(Integer.toString(root), Integer.toString(root)), bcast.output(r));
                    }
                    final SymbolicRun reduce = run(algorithm, Collective.REDUCE, n, 2, root);
                    final String expected = n == 1 ? "0" :
                        Generators.effective(algorithm, Collective.REDUCE) == Algorithm.RING ?
                        ringSum(n, root) : treeSum(n, root, 0);
                    assertEquals(List.of(expected, expected), reduce.output(root), algorithm + " n=" + n);
                }
            }
        }
    }

    @Test
    void shouldReduceInTreeOrderAndBroadcastWhenTreeAllReduce()
    {
        for (final int n : RANKS)
        {
            for (final int c : CHANNELS)
            {
                final SymbolicRun run = run(Algorithm.TREE, Collective.ALL_REDUCE, n, c, -1);
                for (int r = 0; r < n; r++)
                {
                    for (final String chunk : run.output(r))
                    {
                        assertEquals(treeSum(n, 0, 0), chunk);
                    }
                }
            }
        }
    }

    /** @return the steps of a rank's workers whose opcode {@code which} accepts. */
    private static int steps(final Program program, final int rank, final java.util.function.Predicate<Opcode> which)
    {
        int count = 0;
        for (final Worker w : program.workers(rank))
        {
            for (int s = 0; s < w.stepCount(); s++)
            {
                count += which.test(w.opcode(s)) ? 1 : 0;
            }
        }
        return count;
    }

    @Test
    void shouldExchangeOnceWhenTreeAllReduceHasTwoRanks()
    {
        // two ranks: one message each way per piece instead of a reduce up and a broadcast down
        for (final Topology topology : List.of(Topology.singleProcess(2), Topology.of(new int[] {0, 1},
            new int[] {0, 1})))
        {
            for (final int c : CHANNELS)
            {
                final Program program = Generators.generate(Algorithm.TREE, Collective.ALL_REDUCE, topology, c, -1);
                for (int r = 0; r < 2; r++)
                {
                    assertEquals(c, steps(program, r, Opcode::sends), topology + " rank " + r + " sends, channels " +
                        c);
                    assertEquals(c, steps(program, r, Opcode::receives), topology + " rank " + r + " receives, " +
                        "channels " + c);
                }
            }
        }
    }

    /** Every rank's name once, whatever the order of the sum. */
    private static String ranksIn(final String expression)
    {
        return expression.replaceAll("[^0-9]+", " ").trim().chars().mapToObj(ch -> (char)ch).map(String::valueOf)
            .filter(t -> !t.isBlank()).sorted().reduce("", String::concat);
    }

    @Test
    void shouldKeepEachHostsRanksTogetherAndStayExactWhenHostsInterleave()
    {
        // ranks 0..5 on hosts 0, 1, 0, 2, 1, 0: the ring visits 0 2 5 | 1 4 | 3 and crosses each boundary once
        final Topology topology = Topology.of(new int[] {0, 1, 0, 2, 1, 0}, new int[] {0, 1, 2, 3, 4, 5});
        assertEquals(List.of(0, 2, 5, 1, 4, 3), java.util.Arrays.stream(RingGenerator.ringOrder(topology)).boxed()
            .toList());
        final int n = 6;
        for (final int c : CHANNELS)
        {
            final Program allReduce = Generators.generate(Algorithm.RING, Collective.ALL_REDUCE, topology, c, -1);
            int crossings = 0;
            for (int r = 0; r < n; r++)
            {
                crossings += topology.hostOf(allReduce.workers(r).get(0).sendPeer()) != topology.hostOf(r) ? 1 : 0;
            }
            assertEquals(3, crossings, "one crossing per host boundary");
            final SymbolicRun ar = new SymbolicRun(allReduce, false);
            assertTrue(ar.run());
            final SymbolicRun rs = new SymbolicRun(Generators.generate(Algorithm.RING, Collective.REDUCE_SCATTER,
                topology, c, -1), false);
            assertTrue(rs.run());
            final SymbolicRun ag = new SymbolicRun(Generators.generate(Algorithm.RING, Collective.ALL_GATHER,
                topology, c, -1), false);
            assertTrue(ag.run());
            for (int r = 0; r < n; r++)
            {
                for (final String chunk : ar.output(r))
                {
                    assertEquals("012345", ranksIn(chunk), "allreduce rank " + r);
                }
                for (final String chunk : rs.output(r))
                {
                    assertEquals("012345", ranksIn(chunk), "reducescatter rank " + r);
                }
                for (int k = 0; k < n * c; k++)
                {
                    assertEquals(Integer.toString(k / c), ag.output(r).get(k), "allgather rank " + r);
                }
            }
            for (int root = 0; root < n; root++)
            {
                final SymbolicRun bcast = new SymbolicRun(Generators.generate(Algorithm.RING, Collective.BROADCAST,
                    topology, c, root), false);
                assertTrue(bcast.run());
                final SymbolicRun reduce = new SymbolicRun(Generators.generate(Algorithm.RING, Collective.REDUCE,
                    topology, c, root), false);
                assertTrue(reduce.run());
                for (int r = 0; r < n; r++)
                {
                    assertEquals(Integer.toString(root), bcast.output(r).get(0), "broadcast root " + root);
                }
                assertEquals("012345", ranksIn(reduce.output(root).get(0)), "reduce root " + root);
            }
        }
    }

    @Test
    void shouldChainEachHostAndTreeTheHostsWhenTreeSpansHosts()
    {
        // ranks 0..6 on hosts 0, 1, 0, 2, 1, 3, 0: chains 0-2-6 | 1-4 | 3 | 5; hosts tree: h0 -> h1, h2; h1 -> h3
        final Topology topology = Topology.of(new int[] {0, 1, 0, 2, 1, 3, 0}, new int[] {0, 1, 2, 3, 4, 5, 6});
        assertEquals(List.of(-1, 2, -1), java.util.Arrays.stream(TreeGenerator.hostNeighbours(topology, 0, 0))
            .boxed().toList());
        assertEquals(List.of(2, 1, 3), java.util.Arrays.stream(TreeGenerator.hostNeighbours(topology, 0, 6)).boxed()
            .toList(), "the tail of host 0 parents the leaders of hosts 1 and 2");
        assertEquals(List.of(1, 5, -1), java.util.Arrays.stream(TreeGenerator.hostNeighbours(topology, 0, 4))
            .boxed().toList());
        final int n = 7;
        for (final int c : CHANNELS)
        {
            final Program program = Generators.generate(Algorithm.TREE, Collective.ALL_REDUCE, topology, c, -1);
            int crossings = 0;
            for (int r = 0; r < n; r++)
            {
                final int parent = TreeGenerator.hostNeighbours(topology, 0, r)[0];
                crossings += parent >= 0 && topology.hostOf(parent) != topology.hostOf(r) ? 1 : 0;
            }
            assertEquals(3, crossings, "one link per host to its parent host");
            final SymbolicRun run = new SymbolicRun(program, false);
            assertTrue(run.run(), () -> "deadlock or leftover slots in\n" + program);
            for (int r = 0; r < n; r++)
            {
                for (final String chunk : run.output(r))
                {
                    assertEquals("0123456", ranksIn(chunk), "allreduce rank " + r);
                }
            }
            for (int root = 0; root < n; root++)
            {
                final SymbolicRun bcast = new SymbolicRun(Generators.generate(Algorithm.TREE, Collective.BROADCAST,
                    topology, c, root), false);
                assertTrue(bcast.run());
                final SymbolicRun reduce = new SymbolicRun(Generators.generate(Algorithm.TREE, Collective.REDUCE,
                    topology, c, root), false);
                assertTrue(reduce.run());
                for (int r = 0; r < n; r++)
                {
                    assertEquals(Integer.toString(root), bcast.output(r).get(0), "broadcast root " + root);
                }
                assertEquals("0123456", ranksIn(reduce.output(root).get(0)), "reduce root " + root);
            }
        }
    }

    @Test
    void shouldGiveEveryWorkerAtMostOnePeerEachWay()
    {
        final Program program = Generators.generate(Algorithm.TREE, Collective.ALL_REDUCE, Topology.singleProcess(8),
            2, -1);
        for (int r = 0; r < 8; r++)
        {
            for (final Worker w : program.workers(r))
            {
                for (int s = 0; s < w.stepCount(); s++)
                {
                    final Opcode op = w.opcode(s);
                    assertTrue(!op.sends() || w.sendPeer() >= 0, w::toString);
                    assertTrue(!op.receives() || w.recvPeer() >= 0, w::toString);
                }
            }
        }
    }

    @Test
    void shouldFallBackToRingWhenTreeCannotComputeTheCollective()
    {
        assertEquals(Algorithm.RING, Generators.effective(Algorithm.TREE, Collective.ALL_GATHER));
        assertEquals(Algorithm.RING, Generators.effective(Algorithm.TREE, Collective.REDUCE_SCATTER));
        assertEquals(Algorithm.TREE, Generators.effective(Algorithm.TREE, Collective.ALL_REDUCE));
    }

    @Test
    void shouldRunRingWhenDirectIsAskedForARootedCollective()
    {
        for (final Collective collective : Collective.values())
        {
            final boolean direct = collective == Collective.ALL_REDUCE || collective == Collective.ALL_GATHER ||
                collective == Collective.REDUCE_SCATTER;
            assertEquals(direct ? Algorithm.DIRECT : Algorithm.RING, Generators.effective(Algorithm.DIRECT,
                collective), collective.name());
        }
    }

    @Test
    void shouldGatherEveryInputAndReduceEachBlockInRankOrderWhenDirect()
    {
        for (final int n : RANKS)
        {
            for (final int c : CHANNELS)
            {
                for (final boolean inPlace : new boolean[] {false, true})
                {
                    final String where = "n=" + n + " channels " + c + (inPlace ? " in place" : "");
                    final Program gather = Generators.generate(Algorithm.DIRECT, Collective.ALL_GATHER,
                        Topology.singleProcess(n), c, -1);
                    final SymbolicRun gathered = new SymbolicRun(gather, inPlace);
                    assertTrue(gathered.run(), () -> "deadlock or leftover slots in\n" + gather);
                    final Program scatter = Generators.generate(Algorithm.DIRECT, Collective.REDUCE_SCATTER,
                        Topology.singleProcess(n), c, -1);
                    final SymbolicRun scattered = new SymbolicRun(scatter, inPlace);
                    assertTrue(scattered.run(), () -> "deadlock or leftover slots in\n" + scatter);
                    for (int r = 0; r < n; r++)
                    {
                        final List<String> out = gathered.output(r);
                        for (int k = 0; k < n * c; k++)
                        {
                            assertEquals(Integer.toString(k / c), out.get(k), where + " rank " + r);
                        }
                        for (final String chunk : scattered.output(r))
                        {
                            assertEquals(directSum(n), chunk, where + " rank " + r);
                        }
                    }
                    assertEquals((n - 1) * c, steps(gather, 0, Opcode::sends), where);
                    assertEquals((n - 1) * c, steps(scatter, n - 1, Opcode::receives), where);
                }
            }
        }
    }

    /** The direct AllReduce's order: x(q) op acc(q-1), from acc(0) = x(0). */
    private static String directSum(final int n)
    {
        String acc = "0";
        for (int q = 1; q < n; q++)
        {
            acc = "(" + q + "+" + acc + ")";
        }
        return acc;
    }

    @Test
    void shouldReduceInRankOrderOnEveryRankWhenDirectAllReduce()
    {
        for (final int n : RANKS)
        {
            for (final int c : CHANNELS)
            {
                for (final boolean inPlace : new boolean[] {false, true})
                {
                    final Program program = Generators.generate(Algorithm.DIRECT, Collective.ALL_REDUCE,
                        Topology.singleProcess(n), c, -1);
                    final SymbolicRun run = new SymbolicRun(program, inPlace);
                    assertTrue(run.run(), () -> "deadlock or leftover slots in\n" + program);
                    for (int r = 0; r < n; r++)
                    {
                        for (final String chunk : run.output(r))
                        {
                            // the same bits on every rank, and on two ranks the tree's
                            assertEquals(directSum(n), chunk, "n=" + n + " channels " + c + " rank " + r +
                                (inPlace ? " in place" : ""));
                        }
                    }
                }
            }
        }
        assertEquals(treeSum(2, 0, 0), directSum(2));
    }

    @Test
    void shouldSendOneMessageToEveryPeerPerChannelWhenDirectAllReduce()
    {
        for (final int n : RANKS)
        {
            final int c = 2;
            final Program program = Generators.generate(Algorithm.DIRECT, Collective.ALL_REDUCE,
                Topology.singleProcess(n), c, -1);
            for (int r = 0; r < n; r++)
            {
                assertEquals((n - 1) * c, steps(program, r, Opcode::sends), "n=" + n + " rank " + r + " sends");
                assertEquals((n - 1) * c, steps(program, r, Opcode::receives), "n=" + n + " rank " + r + " receives");
            }
        }
    }

    @Test
    void shouldDeliverBlockRankOfEveryPeerWhenDirectAllToAll()
    {
        for (final int n : RANKS)
        {
            for (final int c : CHANNELS)
            {
                final SymbolicRun run = run(Algorithm.RING, Collective.ALL_TO_ALL, n, c, -1);
                for (int r = 0; r < n; r++)
                {
                    final List<String> out = run.output(r);
                    for (int k = 0; k < n * c; k++)
                    {
                        // output block q on rank r holds peer q's input block r (same symbol: the peer's rank)
                        assertEquals(Integer.toString(k / c), out.get(k), "n=" + n + " rank " + r);
                    }
                }
            }
        }
    }
}
