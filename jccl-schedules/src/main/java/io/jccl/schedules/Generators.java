package io.jccl.schedules;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Topology;

/**
 * Picks the generator of an algorithm; a TREE request for a collective a tree cannot compute runs RING, as does a
 * DIRECT request for Broadcast and Reduce, and AllToAll always runs the direct exchange.
 */
public final class Generators
{
    private Generators()
    {
    }

    /**
     * @param algorithm  requested algorithm.
     * @param collective what to compute.
     * @return the algorithm that will run: {@code algorithm}, or RING where a tree or a direct program does not
     *         apply.
     */
    public static Algorithm effective(final Algorithm algorithm, final Collective collective)
    {
        return switch (algorithm)
        {
            case TREE -> TreeGenerator.supports(collective) ? algorithm : Algorithm.RING;
            case DIRECT -> DirectGenerator.supports(collective) ? algorithm : Algorithm.RING;
            case RING -> algorithm;
        };
    }

    /**
     * @param algorithm  requested algorithm (see {@link #effective}).
     * @param collective what to compute.
     * @param topology   the ranks.
     * @param channels   channels, at least 1.
     * @param root       the root of Broadcast and Reduce (ignored otherwise).
     * @return the program.
     */
    public static Program generate(final Algorithm algorithm, final Collective collective, final Topology topology,
        final int channels, final int root)
    {
        if (collective == Collective.ALL_TO_ALL)
        {
            return DirectGenerator.allToAll(topology, channels);
        }
        return switch (effective(algorithm, collective))
        {
            case RING -> RingGenerator.generate(collective, topology, channels, root);
            case TREE -> TreeGenerator.generate(collective, topology, channels, root);
            case DIRECT -> switch (collective)
            {
                case ALL_GATHER -> DirectGenerator.allGather(topology, channels);
                case REDUCE_SCATTER -> DirectGenerator.reduceScatter(topology, channels);
                default -> DirectGenerator.allReduce(topology, channels);
            };
        };
    }
}
