package io.jccl.testkit;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.nio.ByteBuffer;

/**
 * The expected output of every collective, computed independently of the runtime in the reduction order the
 * algorithm defines (DESIGN.md, "Arithmetic contract"), so that floating-point results compare bit for bit.
 * <p>
 * Each element is reduced in a {@link ReductionOrder} with {@link ReferenceArithmetic}:
 * <ul>
 *   <li>RING AllReduce: segment k = elements {@code [k*count/n, (k+1)*count/n)} is folded left from rank
 *       {@code (k+1)%n} round the ring, ending with rank k. ReduceScatter's rank r is AllReduce's segment r of the
 *       {@code n*recvCount} input. Reduce starts at {@code (root+1)%n} and ends with the root.</li>
 *   <li>TREE (AllReduce with root 0, Reduce, Broadcast): {@link ReductionOrder#tree(int, int)}.</li>
 *   <li>DIRECT (AllReduce and ReduceScatter): {@link ReductionOrder#direct(int)}.</li>
 *   <li>{@code pre(x)}: identity, except PreMulSum(s) (and AVG on floating types, PreMulSum(1/n)):
 *       {@code round_T(x * s_T)}. Integer AVG is a wrapping SUM divided by n at the end.</li>
 * </ul>
 * A TREE pin for AllGather and ReduceScatter, and a DIRECT pin for Broadcast and Reduce, runs RING. Inputs and
 * outputs are heap ByteBuffers in native order, position 0 ({@link ElementBuffers}). Stateless and thread-safe.
 */
public final class ReferenceCollectives
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
    public static void sumInto(final long[][] memory, final int[] in, final int[] out, final int count)
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

    /**
     * @param algorithm RING, TREE or DIRECT.
     * @param inputs    each rank's count elements.
     * @param count     elements.
     * @param type      element type.
     * @param op        reduction.
     * @return the output every rank receives.
     */
    public static ByteBuffer allReduce(final Algorithm algorithm, final ByteBuffer[] inputs, final long count,
        final DataType type, final ReduceOp op)
    {
        final int n = inputs.length;
        final ByteBuffer out = ElementBuffers.allocate(count, type);
        if (algorithm == Algorithm.TREE || algorithm == Algorithm.DIRECT)
        {
            final ReductionOrder order = algorithm == Algorithm.TREE ?
                ReductionOrder.tree(0, n) : ReductionOrder.direct(n);
            reduceRange(order, inputs, out, 0, count, type, op);
        }
        else
        {
            for (int k = 0; k < n; k++)
            {
                reduceRange(ReductionOrder.ring((k + 1) % n, n), inputs, out,
                    ReductionOrder.segmentStart(count, n, k), ReductionOrder.segmentStart(count, n, k + 1), type, op);
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
    public static ByteBuffer reduceScatter(final Algorithm algorithm, final ByteBuffer[] inputs,
        final long recvCount, final DataType type, final ReduceOp op)
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
    public static ByteBuffer reduce(final Algorithm algorithm, final ByteBuffer[] inputs, final long count,
        final DataType type, final ReduceOp op, final int root)
    {
        final int n = inputs.length;
        final ByteBuffer out = ElementBuffers.allocate(count, type);
        final ReductionOrder order = algorithm == Algorithm.TREE ?
            ReductionOrder.tree(root, n) : ReductionOrder.ring(root + 1, n);
        reduceRange(order, inputs, out, 0, count, type, op);
        return out;
    }

    /**
     * @param inputs    each rank's sendCount elements.
     * @param sendCount elements per rank.
     * @param type      element type.
     * @return every rank's output: the inputs in rank order.
     */
    public static ByteBuffer allGather(final ByteBuffer[] inputs, final long sendCount, final DataType type)
    {
        final ByteBuffer out = ElementBuffers.allocate(inputs.length * sendCount, type);
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
    public static ByteBuffer broadcast(final ByteBuffer[] inputs, final long count, final DataType type,
        final int root)
    {
        final ByteBuffer out = ElementBuffers.allocate(count, type);
        out.put(0, inputs[root], 0, Math.toIntExact(count * type.byteSize()));
        return out;
    }

    /**
     * The expected output of one rank, for any collective.
     *
     * @param collective which.
     * @param algorithm  RING, TREE or DIRECT.
     * @param inputs     each rank's input.
     * @param count      count, sendCount (AllGather) or recvCount (ReduceScatter).
     * @param type       element type.
     * @param op         reduction, or null for non-reducing collectives.
     * @param root       root of rooted collectives.
     * @return the expected output of every rank that has one, as one buffer; for ReduceScatter rank r's is slice r.
     */
    public static ByteBuffer expected(final Collective collective, final Algorithm algorithm,
        final ByteBuffer[] inputs, final long count, final DataType type, final ReduceOp op, final int root)
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

    private static void reduceRange(final ReductionOrder order, final ByteBuffer[] inputs, final ByteBuffer out,
        final long from, final long to, final DataType type, final ReduceOp op)
    {
        final int n = inputs.length;
        final long scalar = ReferenceArithmetic.scalarBits(type, op, n);
        final ReductionOrder.Combine combine = (a, b) -> ReferenceArithmetic.combine(type, op, a, b);
        for (long i = from; i < to; i++)
        {
            final int index = Math.toIntExact(i);
            final long acc = order.evaluate(
                rank -> ReferenceArithmetic.pre(type, op, scalar, ElementBuffers.get(inputs[rank], index, type)),
                combine);
            ElementBuffers.put(out, index, type, ReferenceArithmetic.finish(type, op, n, acc));
        }
    }
}
