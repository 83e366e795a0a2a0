package io.jccl.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A pairwise covering array built by a deterministic greedy algorithm (AETG without the random candidates): while a
 * pair of parameter values is uncovered, start a row from the first uncovered pair and give every other parameter,
 * in order, the first value that covers the most still-uncovered pairs with the values already chosen, among the
 * values that keep the row completable under the constraint.
 * <p>
 * Parameters are indices {@code 0..levels.length-1} with values {@code 0..levels[p]-1}; a partial row holds
 * {@link #UNSET} where no value is chosen yet. Only pairs that occur in some valid row are required.
 */
final class CoveringArray
{
    /** A value not chosen yet. */
    static final int UNSET = -1;

    /** Which rows are allowed. */
    @FunctionalInterface
    interface Constraint
    {
        /**
         * @param partialRow values, {@link #UNSET} where not chosen.
         * @return false only if the values chosen already break the constraint.
         */
        boolean allows(int[] partialRow);
    }

    private final int[] levels;
    private final Constraint constraint;
    private final int[] base;

    /**
     * @param levels     value count of each parameter.
     * @param constraint which (partial) rows are allowed.
     */
    CoveringArray(final int[] levels, final Constraint constraint)
    {
        this.levels = levels.clone();
        this.constraint = constraint;
        this.base = new int[levels.length + 1];
        for (int p = 0; p < levels.length; p++)
        {
            base[p + 1] = base[p] + levels[p];
        }
    }

    /** @return the number of (parameter, value) points. */
    int pointCount()
    {
        return base[levels.length];
    }

    /** @return the index of a (parameter, value) point. */
    int point(final int parameter, final int value)
    {
        return base[parameter] + value;
    }

    /**
     * @return required[i][j] for points i and j of different parameters: some valid row holds both.
     */
    boolean[][] requiredPairs()
    {
        final int points = pointCount();
        final boolean[][] required = new boolean[points][points];
        for (int p = 0; p < levels.length; p++)
        {
            for (int q = p + 1; q < levels.length; q++)
            {
                for (int a = 0; a < levels[p]; a++)
                {
                    for (int b = 0; b < levels[q]; b++)
                    {
                        final int[] row = unsetRow();
                        row[p] = a;
                        row[q] = b;
                        if (completable(row))
                        {
                            required[point(p, a)][point(q, b)] = true;
                        }
                    }
                }
            }
        }
        return required;
    }

    /** @return the rows, each a full assignment that the constraint allows. */
    List<int[]> generate()
    {
        final boolean[][] uncovered = requiredPairs();
        final List<int[]> rows = new ArrayList<>();
        int[] seed;
        while ((seed = firstUncovered(uncovered)) != null)
        {
            final int[] row = unsetRow();
            row[seed[0]] = seed[1];
            row[seed[2]] = seed[3];
            for (int p = 0; p < levels.length; p++)
            {
                if (row[p] != UNSET)
                {
                    continue;
                }
                int best = UNSET;
                int bestGain = -1;
                for (int v = 0; v < levels[p]; v++)
                {
                    row[p] = v;
                    if (!completable(row))
                    {
                        continue;
                    }
                    final int gain = gain(uncovered, row, p, v);
                    if (gain > bestGain)
                    {
                        best = v;
                        bestGain = gain;
                    }
                }
                row[p] = best;
            }
            markCovered(uncovered, row);
            rows.add(row);
        }
        return rows;
    }

    /**
     * @param rows rows of full assignments.
     * @return the required pairs no row covers, as "p=a,q=b" strings (empty when the rows cover every pair).
     */
    List<String> uncoveredPairs(final List<int[]> rows)
    {
        final boolean[][] uncovered = requiredPairs();
        for (final int[] row : rows)
        {
            markCovered(uncovered, row);
        }
        final List<String> missing = new ArrayList<>();
        for (int p = 0; p < levels.length; p++)
        {
            for (int q = p + 1; q < levels.length; q++)
            {
                for (int a = 0; a < levels[p]; a++)
                {
                    for (int b = 0; b < levels[q]; b++)
                    {
                        if (uncovered[point(p, a)][point(q, b)])
                        {
                            missing.add(p + "=" + a + "," + q + "=" + b);
                        }
                    }
                }
            }
        }
        return missing;
    }

    /**
     * @param partialRow values, {@link #UNSET} where not chosen; left as it was.
     * @return true when some full row extends it and the constraint allows that row.
     */
    boolean completable(final int[] partialRow)
    {
        return constraint.allows(partialRow) && complete(partialRow.clone(), 0);
    }

    private boolean complete(final int[] row, final int from)
    {
        int p = from;
        while (p < row.length && row[p] != UNSET)
        {
            p++;
        }
        if (p == row.length)
        {
            return true;
        }
        for (int v = 0; v < levels[p]; v++)
        {
            row[p] = v;
            if (constraint.allows(row) && complete(row, p + 1))
            {
                return true;
            }
        }
        row[p] = UNSET;
        return false;
    }

    private int gain(final boolean[][] uncovered, final int[] row, final int p, final int v)
    {
        int gain = 0;
        for (int q = 0; q < row.length; q++)
        {
            if (q != p && row[q] != UNSET && isUncovered(uncovered, p, v, q, row[q]))
            {
                gain++;
            }
        }
        return gain;
    }

    private boolean isUncovered(final boolean[][] uncovered, final int p, final int a, final int q, final int b)
    {
        return p < q ? uncovered[point(p, a)][point(q, b)] : uncovered[point(q, b)][point(p, a)];
    }

    private void markCovered(final boolean[][] uncovered, final int[] row)
    {
        for (int p = 0; p < row.length; p++)
        {
            for (int q = p + 1; q < row.length; q++)
            {
                uncovered[point(p, row[p])][point(q, row[q])] = false;
            }
        }
    }

    private int[] firstUncovered(final boolean[][] uncovered)
    {
        for (int p = 0; p < levels.length; p++)
        {
            for (int q = p + 1; q < levels.length; q++)
            {
                for (int a = 0; a < levels[p]; a++)
                {
                    for (int b = 0; b < levels[q]; b++)
                    {
                        if (uncovered[point(p, a)][point(q, b)])
                        {
                            return new int[]{p, a, q, b};
                        }
                    }
                }
            }
        }
        return null;
    }

    private int[] unsetRow()
    {
        final int[] row = new int[levels.length];
        Arrays.fill(row, UNSET);
        return row;
    }
}
