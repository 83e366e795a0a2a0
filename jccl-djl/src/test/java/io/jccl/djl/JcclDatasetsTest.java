package io.jccl.djl;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.RandomAccessDataset;
import io.jccl.JcclInvalidArgumentException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Shards are equal in size, disjoint, the same for the same seed on every rank, and reshuffled by a new seed. */
class JcclDatasetsTest
{
    @Test
    void shouldGiveEveryRankAnEqualDisjointStrideWhenNotShuffled() throws Exception
    {
        try (NDManager manager = NDManager.newBaseManager("PyTorch"))
        {
            final ArrayDataset dataset = new ArrayDataset.Builder()
                .setData(manager.arange(0f, 11f).reshape(11, 1)).setSampling(1, false).build();
            final List<List<Float>> shards = new ArrayList<>();
            for (int rank = 0; rank < 3; rank++)
            {
                shards.add(values(JcclDatasets.shard(dataset, rank, 3), manager));
            }
            // 11 records on 3 ranks: 3 each, the last two of the order left out
            assertEquals(List.of(0f, 3f, 6f), shards.get(0));
            assertEquals(List.of(1f, 4f, 7f), shards.get(1));
            assertEquals(List.of(2f, 5f, 8f), shards.get(2));
            assertThrows(JcclInvalidArgumentException.class, () -> JcclDatasets.shard(dataset, 3, 3));
        }
    }

    @Test
    void shouldSplitOneShuffledOrderWhenRanksShareASeed()
    {
        final Set<Long> seen = new HashSet<>();
        for (int rank = 0; rank < 4; rank++)
        {
            final List<Long> mine = JcclDatasets.indices(103, rank, 4, new Random(5));
            assertEquals(25, mine.size());
            assertEquals(mine, JcclDatasets.indices(103, rank, 4, new Random(5)), "same seed, same shard");
            for (final long index : mine)
            {
                assertEquals(true, seen.add(index), "index " + index + " is in one shard only");
                assertEquals(true, index >= 0 && index < 103);
            }
        }
        assertEquals(100, seen.size());
        assertNotEquals(JcclDatasets.indices(103, 0, 4, new Random(5)),
            JcclDatasets.indices(103, 0, 4, new Random(6)), "a new epoch's seed, a new split");
        assertNotEquals(JcclDatasets.indices(103, 0, 4, null), JcclDatasets.indices(103, 0, 4, new Random(5)));
    }

    @Test
    void shouldRejectARankOutsideTheGroup()
    {
        assertThrows(JcclInvalidArgumentException.class, () -> JcclDatasets.shard(null, 0, 1));
    }

    private static List<Float> values(final RandomAccessDataset shard, final NDManager manager) throws Exception
    {
        final List<Float> values = new ArrayList<>();
        for (long i = 0; i < shard.size(); i++)
        {
            values.add(shard.get(manager, i).getData().singletonOrThrow().getFloat(0));
        }
        return values;
    }
}
