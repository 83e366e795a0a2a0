package io.jccl.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The covering array covers every pair, keeps to its constraint, and is the same on every run. */
class CoveringArrayTest
{
    @Test
    void shouldCoverEveryPairWhenUnconstrained()
    {
        final int[] levels = {3, 3, 3, 3};
        final CoveringArray array = new CoveringArray(levels, row -> true);
        final List<int[]> rows = array.generate();
        assertEquals(List.of(), array.uncoveredPairs(rows));
        // the optimum for 3^4 is 9; greedy may use a few more, never the product
        assertTrue(rows.size() >= 9 && rows.size() <= 15, () -> rows.size() + " rows");
    }

    @Test
    void shouldReportMissingPairWhenRowsIncomplete()
    {
        final CoveringArray array = new CoveringArray(new int[]{2, 2}, row -> true);
        final List<int[]> rows = new ArrayList<>();
        rows.add(new int[]{0, 0});
        rows.add(new int[]{1, 1});
        rows.add(new int[]{0, 1});
        assertEquals(List.of("0=1,1=0"), array.uncoveredPairs(rows));
    }

    @Test
    void shouldNeverBreakConstraintWhenConstrained()
    {
        // parameter 0 = 0 forbids parameter 1 = 2, so that pair is not required
        final CoveringArray.Constraint constraint = row -> !(row[0] == 0 && row[1] == 2);
        final CoveringArray array = new CoveringArray(new int[]{2, 3, 2}, constraint);
        final List<int[]> rows = array.generate();
        for (final int[] row : rows)
        {
            assertTrue(constraint.allows(row));
        }
        assertEquals(List.of(), array.uncoveredPairs(rows));
        assertFalse(array.requiredPairs()[array.point(0, 0)][array.point(1, 2)]);
    }

    @Test
    void shouldCoverEverySemanticPairWhenGridArrayGenerated()
    {
        final List<int[]> rows = CollectiveGrid.ciArray().generate();
        // required pairs are judged by the semantic constraint only: the CI footprint limit must not lose a pair
        final CoveringArray semantic = new CoveringArray(CollectiveGrid.LEVELS, CollectiveGrid.semanticConstraint());
        assertEquals(List.of(), semantic.uncoveredPairs(rows));
        for (final int[] row : rows)
        {
            assertTrue(CollectiveGrid.ciConstraint().allows(row), () -> CollectiveGrid.toCase(row).toString());
        }
        long product = 1;
        for (final int level : CollectiveGrid.LEVELS)
        {
            product *= level;
        }
        final long full = product;
        assertTrue(rows.size() < 200, () -> rows.size() + " rows of " + full);
    }

    @Test
    void shouldGenerateSameRowsWhenGeneratedTwice()
    {
        final List<int[]> first = CollectiveGrid.ciArray().generate();
        final List<int[]> second = CollectiveGrid.ciArray().generate();
        assertEquals(first.size(), second.size());
        for (int i = 0; i < first.size(); i++)
        {
            assertArrayEquals(first.get(i), second.get(i));
        }
    }

    @Test
    void shouldPairEightRanksWithLargestCountWhenGridArrayGenerated()
    {
        assertTrue(CollectiveGrid.ciCases().stream().anyMatch(c -> c.ranks() == 8 && c.count() == 1 << 20));
    }
}
