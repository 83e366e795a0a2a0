package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The expected output of every collective, computed independently of the runtime in the reduction order the
 * algorithm defines (DESIGN.md, "Arithmetic contract"), so that floating-point results compare bit for bit.
 * <p>
 * Elements travel as raw bits in a {@code long}, zero-extended from the type's width. A reduction is an
 * {@link Order}: a binary tree over ranks whose leaves are {@code pre(x_rank)} and whose nodes apply the operator.
 * <ul>
 *   <li>RING AllReduce: segment k = elements {@code [k*count/n, (k+1)*count/n)} is folded left from rank
 *       {@code (k+1)%n} round the ring, ending with rank k. ReduceScatter's rank r is AllReduce's segment r of the
 *       {@code n*recvCount} input. Reduce starts at {@code (root+1)%n} and ends with the root.</li>
 *   <li>TREE (AllReduce with root 0, Reduce, Broadcast): virtual rank {@code v = (r - root + n) % n}, children
 *       {@code 2v+1, 2v+2}; {@code sub(v) = op(op(sub(c1), pre(x_v)), sub(c2))}, absent children dropped.</li>
 *   <li>DIRECT (AllReduce and ReduceScatter): every rank folds the inputs in rank order, each new one on the left:
 *       {@code op(x_{n-1}, ...op(x2, op(x1, x0))...)}; on two ranks that is the tree's order.</li>
 *   <li>{@code pre(x)}: identity, except PreMulSum(s) (and AVG on floating types, PreMulSum(1/n)):
 *       {@code round_T(x * s_T)}. Integer AVG is a wrapping SUM divided by n at the end.</li>
 * </ul>
 * A TREE pin for AllGather and ReduceScatter, and a DIRECT pin for Broadcast and Reduce, runs RING. Inputs and
 * outputs are heap ByteBuffers in native order, position 0.
 */
final class ReferenceCollectives
{
    private ReferenceCollectives()
    {
    }

    /**
     * An int64 SUM AllReduce over slices of each rank's memory, applied as if it ran alone: the ranks' {@code count}
     * elements from {@code in[r]} are summed, then the sum is written to every rank's {@code out[r]} (the same slice
     * in place, or one anywhere else in that rank's memory).
     *
     * @param memory each rank's whole memory, updated.
     * @param in     each rank's input offset in elements.
     * @param out    each rank's output offset in elements.
     * @param count  elements.
     */
    static void sumInto(final long[][] memory, final int[] in, final int[] out, final int count)
    {
        final long[] sum = new long[count];
        for (int r = 0; r < memory.length; r++)
        {
            for (int i = 0; i < count; i++)
            {
                sum[i] += memory[r][in[r] + i];
            }
        }
        for (int r = 0; r < memory.length; r++)
        {
            System.arraycopy(sum, 0, memory[r], out[r], count);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Reduction orders
    // ---------------------------------------------------------------------------------------------------------

    /** How one element's contributions associate: a binary tree whose leaves are ranks. */
    abstract static class Order
    {
        /** @return the order written out, e.g. {@code ((x1+x2)+x0)}. */
        @Override
        public abstract String toString();
    }

    /** A rank's contribution, {@code pre(x_rank)}. */
    static final class Leaf extends Order
    {
        final int rank;

        Leaf(final int rank)
        {
            this.rank = rank;
        }

        @Override
        public String toString()
        {
            return "x" + rank;
        }
    }

    /** {@code op(left, right)}. */
    static final class Node extends Order
    {
        final Order left;
        final Order right;

        Node(final Order left, final Order right)
        {
            this.left = left;
            this.right = right;
        }

        @Override
        public String toString()
        {
            return "(" + left + "+" + right + ")";
        }
    }

    /**
     * @param start the first rank of the fold.
     * @param n     rank count.
     * @return {@code op(...op(op(x_start, x_start+1), x_start+2)..., x_start+n-1)}, ranks modulo n.
     */
    static Order ring(final int start, final int n)
    {
        Order acc = new Leaf(start % n);
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
    static Order tree(final int root, final int n)
    {
        return subtree(0, root, n);
    }

    /**
     * @param n rank count.
     * @return the direct AllReduce's order: {@code op(x_{n-1}, ...op(x1, x0)...)}.
     */
    static Order direct(final int n)
    {
        Order acc = new Leaf(0);
        for (int q = 1; q < n; q++)
        {
            acc = new Node(new Leaf(q), acc);
        }
        return acc;
    }

    private static Order subtree(final int virtualRank, final int root, final int n)
    {
        final Order own = new Leaf((virtualRank + root) % n);
        final int c1 = 2 * virtualRank + 1;
        final int c2 = 2 * virtualRank + 2;
        Order acc = own;
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

    /**
     * @param count elements.
     * @param n     ranks.
     * @param k     segment.
     * @return the first element of ring segment k: {@code floor(k*count/n)}.
     */
    static long segmentStart(final long count, final int n, final int k)
    {
        return Math.multiplyExact((long)k, count) / n;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Collectives
    // ---------------------------------------------------------------------------------------------------------

    /**
     * @param algorithm RING, TREE or DIRECT.
     * @param inputs    each rank's count elements.
     * @param count     elements.
     * @param type      element type.
     * @param op        reduction.
     * @return the output every rank receives.
     */
    static ByteBuffer allReduce(final Algorithm algorithm, final ByteBuffer[] inputs, final long count,
        final DataType type, final ReduceOp op)
    {
        final int n = inputs.length;
        final ByteBuffer out = allocate(count, type);
        if (algorithm == Algorithm.TREE || algorithm == Algorithm.DIRECT)
        {
            reduceRange(algorithm == Algorithm.TREE ? tree(0, n) : direct(n), inputs, out, 0, count, type, op);
        }
        else
        {
            for (int k = 0; k < n; k++)
            {
                reduceRange(ring((k + 1) % n, n), inputs, out, segmentStart(count, n, k),
                    segmentStart(count, n, k + 1), type, op);
            }
        }
        return out;
    }

    /**
     * @param algorithm RING or DIRECT (a TREE pin runs RING).
     * @param inputs    each rank's {@code n*recvCount} elements.
     * @param recvCount elements each rank receives.
     * @param type      element type.
     * @param op        reduction.
     * @return rank r's output is {@code [r*recvCount, (r+1)*recvCount)} of the result.
     */
    static ByteBuffer reduceScatter(final Algorithm algorithm, final ByteBuffer[] inputs, final long recvCount,
        final DataType type, final ReduceOp op)
    {
        return allReduce(algorithm == Algorithm.DIRECT ? Algorithm.DIRECT : Algorithm.RING, inputs,
            inputs.length * recvCount, type, op);
    }

    /**
     * @param algorithm RING or TREE.
     * @param inputs    each rank's count elements.
     * @param count     elements.
     * @param type      element type.
     * @param op        reduction.
     * @param root      the receiving rank.
     * @return the root's output (no other rank's output is defined).
     */
    static ByteBuffer reduce(final Algorithm algorithm, final ByteBuffer[] inputs, final long count,
        final DataType type, final ReduceOp op, final int root)
    {
        final int n = inputs.length;
        final ByteBuffer out = allocate(count, type);
        reduceRange(algorithm == Algorithm.TREE ? tree(root, n) : ring(root + 1, n), inputs, out, 0, count, type, op);
        return out;
    }

    /**
     * @param inputs    each rank's sendCount elements.
     * @param sendCount elements per rank.
     * @param type      element type.
     * @return every rank's output: the inputs in rank order.
     */
    static ByteBuffer allGather(final ByteBuffer[] inputs, final long sendCount, final DataType type)
    {
        final ByteBuffer out = allocate(inputs.length * sendCount, type);
        final int bytes = Math.toIntExact(sendCount * type.byteSize());
        for (int r = 0; r < inputs.length; r++)
        {
            out.put(r * bytes, inputs[r], 0, bytes);
        }
        return out;
    }

    /**
     * @param inputs each rank's count elements (only the root's matters).
     * @param count  elements.
     * @param type   element type.
     * @param root   the sending rank.
     * @return every rank's output: the root's input.
     */
    static ByteBuffer broadcast(final ByteBuffer[] inputs, final long count, final DataType type, final int root)
    {
        final ByteBuffer out = allocate(count, type);
        out.put(0, inputs[root], 0, Math.toIntExact(count * type.byteSize()));
        return out;
    }

    /**
     * The expected output of one rank, for any collective.
     *
     * @param collective which.
     * @param algorithm  RING or TREE.
     * @param inputs     each rank's input.
     * @param count      count, sendCount (AllGather) or recvCount (ReduceScatter).
     * @param type       element type.
     * @param op         reduction, or null for non-reducing collectives.
     * @param root       root of rooted collectives.
     * @return the expected output of every rank that has one, as one buffer; for ReduceScatter rank r's is slice r.
     */
    static ByteBuffer expected(final Collective collective, final Algorithm algorithm, final ByteBuffer[] inputs,
        final long count, final DataType type, final ReduceOp op, final int root)
    {
        switch (collective)
        {
            case ALL_REDUCE:
                return allReduce(algorithm, inputs, count, type, op);
            case ALL_GATHER:
                return allGather(inputs, count, type);
            case REDUCE_SCATTER:
                return reduceScatter(algorithm, inputs, count, type, op);
            case BROADCAST:
                return broadcast(inputs, count, type, root);
            case REDUCE:
                return reduce(algorithm, inputs, count, type, op, root);
            default:
                throw new IllegalArgumentException(collective.toString());
        }
    }

    private static void reduceRange(final Order order, final ByteBuffer[] inputs, final ByteBuffer out,
        final long from, final long to, final DataType type, final ReduceOp op)
    {
        final int n = inputs.length;
        final long scalar = scalarBits(type, op, n);
        for (long i = from; i < to; i++)
        {
            final int index = Math.toIntExact(i);
            final long acc = evaluate(order, inputs, index, type, op, scalar);
            put(out, index, type, finish(type, op, n, acc));
        }
    }

    private static long evaluate(final Order order, final ByteBuffer[] inputs, final int index,
        final DataType type, final ReduceOp op, final long scalar)
    {
        if (order instanceof Leaf)
        {
            return pre(type, op, scalar, get(inputs[((Leaf)order).rank], index, type));
        }
        final Node node = (Node)order;
        return combine(type, op, evaluate(node.left, inputs, index, type, op, scalar),
            evaluate(node.right, inputs, index, type, op, scalar));
    }

    // ---------------------------------------------------------------------------------------------------------
    // Element arithmetic on raw bits
    // ---------------------------------------------------------------------------------------------------------

    /**
     * @param type element type.
     * @return mask of the type's width.
     */
    static long mask(final DataType type)
    {
        return type.byteSize() == 8 ? -1L : (1L << (8 * type.byteSize())) - 1;
    }

    /** @return the bits read as a signed value (sign-extended from the type's width). */
    static long signExtend(final DataType type, final long bits)
    {
        final int shift = 64 - 8 * type.byteSize();
        return (bits << shift) >> shift;
    }

    /**
     * The PreMulSum scalar converted to the element type, as raw bits; 0 when the op has no pre-multiplication.
     *
     * @param type element type.
     * @param op   reduction.
     * @param n    rank count (AVG on floating types multiplies by 1/n).
     * @return {@code s_T} as raw bits.
     */
    static long scalarBits(final DataType type, final ReduceOp op, final int n)
    {
        final double s;
        if (op.kind() == ReduceOp.Kind.PREMULSUM)
        {
            s = op.scalar();
        }
        else if (op.kind() == ReduceOp.Kind.AVG && type.isFloatingPoint())
        {
            s = 1.0 / n;
        }
        else
        {
            return 0;
        }
        switch (type)
        {
            case FLOAT32:
                return Float.floatToRawIntBits((float)s) & 0xffff_ffffL;
            case FLOAT64:
                return Double.doubleToRawLongBits(s);
            case FLOAT16:
            case BFLOAT16:
            case FLOAT8_E4M3:
            case FLOAT8_E5M2:
                return ReferenceFloats.fromFloat(type, (float)s);
            default:
                return ((long)s) & mask(type);
        }
    }

    /** @return true when the op pre-multiplies inputs for this type. */
    static boolean preMultiplies(final DataType type, final ReduceOp op)
    {
        return op.kind() == ReduceOp.Kind.PREMULSUM || (op.kind() == ReduceOp.Kind.AVG && type.isFloatingPoint());
    }

    /**
     * @param type   element type.
     * @param op     reduction.
     * @param scalar {@link #scalarBits(DataType, ReduceOp, int)}.
     * @param x      one rank's element.
     * @return {@code pre(x)}: x, or {@code round_T(x * s_T)} for pre-multiplying ops.
     */
    static long pre(final DataType type, final ReduceOp op, final long scalar, final long x)
    {
        return preMultiplies(type, op) ? multiply(type, x, scalar) : x;
    }

    /**
     * @param type element type.
     * @param op   reduction.
     * @param a    one operand.
     * @param b    the other.
     * @return the binary operation (SUM for AVG and PreMulSum), rounded to the type.
     */
    static long combine(final DataType type, final ReduceOp op, final long a, final long b)
    {
        switch (op.kind())
        {
            case SUM:
            case AVG:
            case PREMULSUM:
                return add(type, a, b);
            case PROD:
                return multiply(type, a, b);
            case MAX:
                return max(type, a, b);
            case MIN:
                return min(type, a, b);
            default:
                throw new IllegalArgumentException(op.toString());
        }
    }

    /**
     * @param type element type.
     * @param op   reduction.
     * @param n    rank count.
     * @param acc  the reduced value.
     * @return acc, divided by n for integer AVG (signed types truncating, unsigned ones unsigned).
     */
    static long finish(final DataType type, final ReduceOp op, final int n, final long acc)
    {
        if (op.kind() != ReduceOp.Kind.AVG || type.isFloatingPoint())
        {
            return acc;
        }
        if (type.isSigned())
        {
            return (signExtend(type, acc) / n) & mask(type);
        }
        return Long.divideUnsigned(acc, n) & mask(type);
    }

    static long add(final DataType type, final long a, final long b)
    {
        switch (type)
        {
            case FLOAT32:
                return floatBits(asFloat(a) + asFloat(b));
            case FLOAT64:
                return Double.doubleToRawLongBits(Double.longBitsToDouble(a) + Double.longBitsToDouble(b));
            case FLOAT16:
            case BFLOAT16:
            case FLOAT8_E4M3:
            case FLOAT8_E5M2:
                return ReferenceFloats.fromFloat(type,
                    ReferenceFloats.toFloat(type, a) + ReferenceFloats.toFloat(type, b));
            default:
                return (a + b) & mask(type);
        }
    }

    static long multiply(final DataType type, final long a, final long b)
    {
        switch (type)
        {
            case FLOAT32:
                return floatBits(asFloat(a) * asFloat(b));
            case FLOAT64:
                return Double.doubleToRawLongBits(Double.longBitsToDouble(a) * Double.longBitsToDouble(b));
            case FLOAT16:
            case BFLOAT16:
            case FLOAT8_E4M3:
            case FLOAT8_E5M2:
                return ReferenceFloats.fromFloat(type,
                    ReferenceFloats.toFloat(type, a) * ReferenceFloats.toFloat(type, b));
            default:
                return (a * b) & mask(type);
        }
    }

    static long max(final DataType type, final long a, final long b)
    {
        switch (type)
        {
            case FLOAT32:
                return floatBits(fmax(asFloat(a), asFloat(b)));
            case FLOAT64:
                return Double.doubleToRawLongBits(fmax(Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
            case FLOAT16:
            case BFLOAT16:
            case FLOAT8_E4M3:
            case FLOAT8_E5M2:
                return ReferenceFloats.fromFloat(type,
                    fmax(ReferenceFloats.toFloat(type, a), ReferenceFloats.toFloat(type, b)));
            default:
                return compareInteger(type, a, b) >= 0 ? a : b;
        }
    }

    static long min(final DataType type, final long a, final long b)
    {
        switch (type)
        {
            case FLOAT32:
                return floatBits(fmin(asFloat(a), asFloat(b)));
            case FLOAT64:
                return Double.doubleToRawLongBits(fmin(Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
            case FLOAT16:
            case BFLOAT16:
            case FLOAT8_E4M3:
            case FLOAT8_E5M2:
                return ReferenceFloats.fromFloat(type,
                    fmin(ReferenceFloats.toFloat(type, a), ReferenceFloats.toFloat(type, b)));
            default:
                return compareInteger(type, a, b) <= 0 ? a : b;
        }
    }

    private static int compareInteger(final DataType type, final long a, final long b)
    {
        return type.isSigned() ? Long.compare(signExtend(type, a), signExtend(type, b)) : Long.compareUnsigned(a, b);
    }

    /** CUDA {@code fmaxf}: a NaN operand yields the other operand, else {@link Math#max(float, float)}. */
    static float fmax(final float a, final float b)
    {
        if (Float.isNaN(a))
        {
            return b;
        }
        return Float.isNaN(b) ? a : Math.max(a, b);
    }

    /** CUDA {@code fminf}: a NaN operand yields the other operand, else {@link Math#min(float, float)}. */
    static float fmin(final float a, final float b)
    {
        if (Float.isNaN(a))
        {
            return b;
        }
        return Float.isNaN(b) ? a : Math.min(a, b);
    }

    /** CUDA {@code fmax}: a NaN operand yields the other operand, else {@link Math#max(double, double)}. */
    static double fmax(final double a, final double b)
    {
        if (Double.isNaN(a))
        {
            return b;
        }
        return Double.isNaN(b) ? a : Math.max(a, b);
    }

    /** CUDA {@code fmin}: a NaN operand yields the other operand, else {@link Math#min(double, double)}. */
    static double fmin(final double a, final double b)
    {
        if (Double.isNaN(a))
        {
            return b;
        }
        return Double.isNaN(b) ? a : Math.min(a, b);
    }

    private static float asFloat(final long bits)
    {
        return Float.intBitsToFloat((int)bits);
    }

    private static long floatBits(final float value)
    {
        return Float.floatToRawIntBits(value) & 0xffff_ffffL;
    }

    /**
     * @param type element type.
     * @param bits raw bits.
     * @return true when the bits are a NaN of a floating type.
     */
    static boolean isNaN(final DataType type, final long bits)
    {
        switch (type)
        {
            case FLOAT32:
                return Float.isNaN(asFloat(bits));
            case FLOAT64:
                return Double.isNaN(Double.longBitsToDouble(bits));
            case FLOAT16:
            case BFLOAT16:
            case FLOAT8_E4M3:
            case FLOAT8_E5M2:
                return ReferenceFloats.format(type).isNaN((int)bits);
            default:
                return false;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Element access
    // ---------------------------------------------------------------------------------------------------------

    /**
     * @param count elements.
     * @param type  element type.
     * @return a zeroed heap buffer in native order.
     */
    static ByteBuffer allocate(final long count, final DataType type)
    {
        return ByteBuffer.allocate(Math.toIntExact(count * type.byteSize())).order(ByteOrder.nativeOrder());
    }

    /**
     * @param buffer native-order buffer.
     * @param index  element index.
     * @param type   element type.
     * @return the raw bits, zero-extended.
     */
    static long get(final ByteBuffer buffer, final int index, final DataType type)
    {
        switch (type.byteSize())
        {
            case 1:
                return buffer.get(index) & 0xffL;
            case 2:
                return buffer.getShort(index * 2) & 0xffffL;
            case 4:
                return buffer.getInt(index * 4) & 0xffff_ffffL;
            default:
                return buffer.getLong(index * 8);
        }
    }

    /**
     * @param buffer native-order buffer.
     * @param index  element index.
     * @param type   element type.
     * @param bits   raw bits.
     */
    static void put(final ByteBuffer buffer, final int index, final DataType type, final long bits)
    {
        switch (type.byteSize())
        {
            case 1:
                buffer.put(index, (byte)bits);
                break;
            case 2:
                buffer.putShort(index * 2, (short)bits);
                break;
            case 4:
                buffer.putInt(index * 4, (int)bits);
                break;
            default:
                buffer.putLong(index * 8, bits);
                break;
        }
    }
}
