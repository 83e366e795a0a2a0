package io.jccl.djl;

import ai.djl.training.dataset.RandomAccessDataset;
import io.jccl.JcclInvalidArgumentException;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Splits a dataset among the ranks of data-parallel training, as PyTorch's {@code DistributedSampler} does: every
 * rank computes the same order of the whole dataset (shuffled by a seed all ranks share, or not at all) and takes
 * every {@code size}-th record of it from position {@code rank}. Every rank gets the same number of records (the last
 * {@code dataset.size() % size} of the order are left out), so every rank trains the same number of batches and none
 * waits in a gradient AllReduce that the others never start.
 */
public final class JcclDatasets
{
    private JcclDatasets()
    {
    }

    /**
     * This rank's part, in the dataset's own order.
     *
     * @param dataset the whole dataset, the same on every rank.
     * @param rank    this rank, 0..size-1.
     * @param size    the rank count.
     * @return records {@code rank, rank + size, rank + 2 size, ...}, {@code dataset.size() / size} of them.
     * @throws JcclInvalidArgumentException if the dataset is null or the rank is outside 0..size-1.
     */
    public static RandomAccessDataset shard(final RandomAccessDataset dataset, final int rank, final int size)
    {
        return dataset.subDataset(indices(checked(dataset, rank, size).size(), rank, size, null));
    }

    /**
     * This rank's part of a shuffled order: pass the same seed on every rank and a new one each epoch (the epoch
     * number added to a base seed, say) for a new split.
     *
     * @param dataset the whole dataset, the same on every rank.
     * @param rank    this rank, 0..size-1.
     * @param size    the rank count.
     * @param seed    shuffles the whole dataset alike on every rank.
     * @return {@code dataset.size() / size} records, disjoint from every other rank's.
     * @throws JcclInvalidArgumentException if the dataset is null or the rank is outside 0..size-1.
     */
    public static RandomAccessDataset shard(final RandomAccessDataset dataset, final int rank, final int size,
        final long seed)
    {
        return dataset.subDataset(indices(checked(dataset, rank, size).size(), rank, size, new Random(seed)));
    }

    /**
     * @param count    records in the whole dataset.
     * @param rank     this rank.
     * @param size     the rank count.
     * @param shuffler shuffles the order (Fisher-Yates), or null for the dataset's order.
     * @return this rank's record indices.
     */
    static List<Long> indices(final long count, final int rank, final int size, final Random shuffler)
    {
        if (count > Integer.MAX_VALUE)
        {
            throw new JcclInvalidArgumentException("dataset of " + count + " records: at most " +
                Integer.MAX_VALUE + " can be sharded");
        }
        final int[] order = new int[(int)count];
        for (int i = 0; i < order.length; i++)
        {
            order[i] = i;
        }
        if (shuffler != null)
        {
            for (int i = order.length - 1; i > 0; i--)
            {
                final int j = shuffler.nextInt(i + 1);
                final int swapped = order[i];
                order[i] = order[j];
                order[j] = swapped;
            }
        }
        final int each = order.length / size;
        final List<Long> mine = new ArrayList<>(each);
        for (int k = 0; k < each; k++)
        {
            mine.add((long)order[k * size + rank]);
        }
        return mine;
    }

    private static RandomAccessDataset checked(final RandomAccessDataset dataset, final int rank, final int size)
    {
        if (dataset == null)
        {
            throw new JcclInvalidArgumentException("dataset is null");
        }
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new JcclInvalidArgumentException("rank=" + rank + " is outside 0.." + (size - 1) + " (size=" +
                size + ")");
        }
        return dataset;
    }
}
