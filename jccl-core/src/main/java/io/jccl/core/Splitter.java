package io.jccl.core;

import io.jccl.Communicator;

/** How a group's ranks meet to split ({@link Communicator#split(int, int)}): in this process, or through the bootstrap. */
@FunctionalInterface
interface Splitter
{
    /**
     * @param rank       the calling rank.
     * @param generation how many splits this rank asked for before: every rank's n-th split meets the others' n-th.
     * @param color      the color, or {@link Communicator#SPLIT_NOCOLOR}.
     * @param key        orders the ranks of one color.
     * @return the rank's new communicator, or null for no color.
     */
    Communicator split(int rank, long generation, int color, int key);

    /**
     * @param colors every rank's color.
     * @param keys   every rank's key.
     * @param color  one color.
     * @return the ranks of that color, ordered by key and then rank: their new ranks.
     */
    static int[] members(final int[] colors, final int[] keys, final int color)
    {
        return java.util.stream.IntStream.range(0, colors.length).filter(r -> colors[r] == color).boxed()
            .sorted(java.util.Comparator.<Integer>comparingInt(r -> keys[r]).thenComparingInt(r -> r))
            .mapToInt(Integer::intValue).toArray();
    }
}
