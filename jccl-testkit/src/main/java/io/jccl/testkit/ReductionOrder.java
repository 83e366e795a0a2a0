package io.jccl.testkit;

/**
 * How one element's contributions associate: a binary tree whose leaves are ranks, {@code pre(x_rank)}, and whose
 * nodes apply the operator. Written out by {@link #toString()}, e.g. {@code ((x1+x2)+x0)}. The orders of jccl's
 * algorithms (DESIGN.md, "Arithmetic contract"):
 * <ul>
 *   <li>{@link #ring(int, int)}: folded left round the ring from a start rank;</li>
 *   <li>{@link #tree(int, int)}: virtual rank {@code v = (r - root + n) % n}, children {@code 2v+1, 2v+2};
 *       {@code sub(v) = op(op(sub(c1), pre(x_v)), sub(c2))}, absent children dropped;</li>
 *   <li>{@link #direct(int)}: the inputs in rank order, each new one on the left.</li>
 * </ul>
 * Immutable.
 */
public abstract class ReductionOrder
{
    private ReductionOrder()
    {
    }

    /**
     * @param start the first rank of the fold.
     * @param n     rank count.
     * @return {@code op(...op(op(x_start, x_start+1), x_start+2)..., x_start+n-1)}, ranks modulo n.
     */
    public static ReductionOrder ring(final int start, final int n)
    {
        ReductionOrder acc = new Leaf(start % n);
        for (int j = 1; j < n; j++)
        {
            acc = new Node(acc, new Leaf((start + j) % n));
        }
        return acc;
    }

    /**
     * @param root the tree's root (virtual rank 0).
     * @param n    rank count.
     * @return the binary tree's order: {@code sub(0)}.
     */
    public static ReductionOrder tree(final int root, final int n)
    {
        return subtree(0, root, n);
    }

    /**
     * @param n rank count.
     * @return the direct order: {@code op(x_{n-1}, ...op(x1, x0)...)}; on two ranks that is the tree's order.
     */
    public static ReductionOrder direct(final int n)
    {
        ReductionOrder acc = new Leaf(0);
        for (int q = 1; q < n; q++)
        {
            acc = new Node(new Leaf(q), acc);
        }
        return acc;
    }

    /**
     * @param count elements.
     * @param n     ranks.
     * @param k     segment, 0 to n.
     * @return the first element of ring segment k: {@code floor(k*count/n)}; segment n starts at count.
     */
    public static long segmentStart(final long count, final int n, final int k)
    {
        return Math.multiplyExact((long)k, count) / n;
    }

    /**
     * Evaluates the order for one element.
     *
     * @param leaf    {@code pre(x_rank)} of a rank.
     * @param combine the operator.
     * @return the reduced raw bits.
     */
    public abstract long evaluate(LeafValue leaf, Combine combine);

    /** @return the order written out, e.g. {@code ((x1+x2)+x0)}. */
    @Override
    public abstract String toString();

    /** A rank's contribution to one element. */
    @FunctionalInterface
    public interface LeafValue
    {
        /**
         * @param rank a rank.
         * @return its contribution's raw bits.
         */
        long value(int rank);
    }

    /** The operator on raw bits. */
    @FunctionalInterface
    public interface Combine
    {
        /**
         * @param left  the left operand.
         * @param right the right operand.
         * @return the result's raw bits.
         */
        long apply(long left, long right);
    }

    private static ReductionOrder subtree(final int virtualRank, final int root, final int n)
    {
        final ReductionOrder own = new Leaf((virtualRank + root) % n);
        final int c1 = 2 * virtualRank + 1;
        final int c2 = 2 * virtualRank + 2;
        ReductionOrder acc = own;
        if (c1 < n)
        {
            acc = new Node(subtree(c1, root, n), own);
        }
        if (c2 < n)
        {
            acc = new Node(acc, subtree(c2, root, n));
        }
        return acc;
    }

    private static final class Leaf extends ReductionOrder
    {
        private final int rank;

        Leaf(final int rank)
        {
            this.rank = rank;
        }

        @Override
        public long evaluate(final LeafValue leaf, final Combine combine)
        {
            return leaf.value(rank);
        }

        @Override
        public String toString()
        {
            return "x" + rank;
        }
    }

    private static final class Node extends ReductionOrder
    {
        private final ReductionOrder left;
        private final ReductionOrder right;

        Node(final ReductionOrder left, final ReductionOrder right)
        {
            this.left = left;
            this.right = right;
        }

        @Override
        public long evaluate(final LeafValue leaf, final Combine combine)
        {
            return combine.apply(left.evaluate(leaf, combine), right.evaluate(leaf, combine));
        }

        @Override
        public String toString()
        {
            return "(" + left + "+" + right + ")";
        }
    }
}
