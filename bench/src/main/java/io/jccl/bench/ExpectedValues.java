package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.testkit.ReferenceArithmetic;

/**
 * The result a correct collective produces, computed here from {@link DataPattern}'s inputs, never by calling
 * jccl's runtime: integers with jccl-testkit's reference arithmetic ({@link ReferenceArithmetic}: wrap-around,
 * signed or unsigned MIN and MAX, PreMulSum's scalar truncated as jccl converts it, AVG as SUM then division),
 * floating values as doubles (the narrow types decoded by jccl-testkit's formats through {@link ElementCodec}).
 * <p>
 * Elements are addressed by a global output index {@code g}: the element index for AllReduce, Reduce and
 * Broadcast, the index in the gathered buffer for AllGather ({@code g = rank x block + k}), the index in the
 * full reduced vector for ReduceScatter (rank r's output element k is {@code g = r x block + k}), and for AllToAll
 * the index over every rank's whole receive buffer (rank r's element {@code q x block + k}, which comes from rank q's
 * input element {@code r x block + k}, is {@code g = r x nRanks x block + q x block + k}). HyperCube and Gather
 * address theirs as AllGather, Scatter as ReduceScatter (rank r's element k is the root's input element
 * {@code g = r x block + k}), and SendRecv by {@code g = r x block + k} (rank r receives rank r - 1's input).
 * <p>
 * How results compare ({@link #comparison()}): integers and copies bit for bit; floating SUM, PROD, MIN and MAX by
 * value, exactly (the inputs make every partial result exact); floating AVG and PreMulSum within a tolerance,
 * because {@code x * (1/n)} rounds in the element type on every rank: {@code ((1 + u)^(n+1) - 1) sum|x * s| +
 * 2 n tiny}, where {@code u} is the type's unit roundoff and {@code tiny} its smallest subnormal: the rigorous bound
 * for the rounding of the scalar, n products and n - 1 additions, each to nearest (the higher-order terms matter for
 * FP8, whose u is 1/16 or 1/8), plus underflow.
 */
public final class ExpectedValues
{
    /** How a result element is compared with the expected one. */
    public enum Comparison
    {
        /** Raw bits equal. */
        BITS,
        /** Decoded values equal (so +0 equals -0; NaN never matches). */
        VALUE,
        /** Decoded values within the element's tolerance. */
        TOLERANCE
    }

    private final BenchTool tool;
    private final DataPattern pattern;
    private final ElementCodec codec;
    private final long block;
    private final int root;
    private final int nRanks;
    private final ReduceOp.Kind kind;
    private final boolean floating;
    private final Comparison comparison;
    private final ReduceOp op;
    private final long integerScalar;
    private final double floatScalar;
    private final double errorGrowth;
    private final double tiny;

    /**
     * @param tool    the collective.
     * @param pattern the inputs (its operator kind is null for AllGather and Broadcast).
     * @param block   elements per rank block: the count of AllGather, ReduceScatter, AllToAll, SendRecv, HyperCube,
     *                Gather and Scatter (unused otherwise).
     * @param root    root of Broadcast, Reduce, Gather and Scatter.
     * @param scalar  PreMulSum's scalar as given to {@link ReduceOp#preMulSum(double)} (converted to the element
     *                type here, as jccl does: truncated for integers).
     */
    public ExpectedValues(final BenchTool tool, final DataPattern pattern, final long block, final int root,
        final double scalar)
    {
        this.tool = tool;
        this.pattern = pattern;
        this.codec = pattern.codec();
        this.block = block;
        this.root = root;
        this.nRanks = pattern.nRanks();
        this.kind = tool.hasOp() ? pattern.kind() : null;
        this.floating = codec.type().isFloatingPoint();
        if (kind == null || !floating)
        {
            this.comparison = Comparison.BITS;
        }
        else if (kind == ReduceOp.Kind.AVG || kind == ReduceOp.Kind.PREMULSUM)
        {
            this.comparison = Comparison.TOLERANCE;
        }
        else
        {
            this.comparison = Comparison.VALUE;
        }
        this.op = kind == null ? null : kind == ReduceOp.Kind.PREMULSUM ? ReduceOp.preMulSum(scalar) : builtIn(kind);
        this.integerScalar = floating || op == null ? 0 : ReferenceArithmetic.scalarBits(codec.type(), op, nRanks);
        final double avgOrMulScalar = kind == ReduceOp.Kind.AVG ? 1.0 / nRanks : scalar;
        this.floatScalar = floating ? codec.toDouble(codec.fromDouble(avgOrMulScalar)) : 0.0;
        this.errorGrowth = floating ? Math.expm1((nRanks + 1) * Math.log1p(codec.unitRoundoff())) : 0.0;
        this.tiny = floating ? codec.minSubnormal() : 0.0;
    }

    /** @return how result elements compare with the expected ones. */
    public Comparison comparison()
    {
        return comparison;
    }

    /** @return the codec of the element type. */
    public ElementCodec codec()
    {
        return codec;
    }

    /**
     * Computes expected elements {@code first .. first + length - 1}.
     *
     * @param first      global output index of the first element.
     * @param length     element count.
     * @param bits       receives raw bits (comparison BITS).
     * @param values     receives values (comparison VALUE and TOLERANCE).
     * @param tolerances receives tolerances (comparison TOLERANCE).
     */
    public void compute(final long first, final int length, final long[] bits, final double[] values,
        final double[] tolerances)
    {
        for (int i = 0; i < length; i++)
        {
            final long g = first + i;
            if (kind == null)
            {
                bits[i] = copySource(g);
            }
            else if (!floating)
            {
                bits[i] = reduceInteger(g);
            }
            else
            {
                reduceFloat(g, values, tolerances, i);
            }
        }
    }

    /**
     * @param g global output index.
     * @return the expected raw bits (copies and integer reductions).
     */
    public long expectedBits(final long g)
    {
        return kind == null ? copySource(g) : reduceInteger(g);
    }

    /**
     * @param g global output index.
     * @return the expected value (floating reductions).
     */
    public double expectedValue(final long g)
    {
        final double[] value = new double[1];
        reduceFloat(g, value, new double[1], 0);
        return value[0];
    }

    /**
     * @param g global output index.
     * @return the tolerance (floating AVG and PreMulSum; 0 otherwise).
     */
    public double tolerance(final long g)
    {
        final double[] tolerance = new double[1];
        reduceFloat(g, new double[1], tolerance, 0);
        return tolerance[0];
    }

    private long copySource(final long g)
    {
        if (tool == BenchTool.ALL_GATHER || tool == BenchTool.HYPERCUBE || tool == BenchTool.GATHER)
        {
            return pattern.input((int)(g / block), g % block);
        }
        if (tool == BenchTool.SEND_RECV)
        {
            final int receiver = (int)(g / block);
            return pattern.input((receiver - 1 + nRanks) % nRanks, g % block);
        }
        if (tool == BenchTool.ALL_TO_ALL)
        {
            final long perRank = block * nRanks;
            final long receiver = g / perRank;
            final long within = g % perRank;
            return pattern.input((int)(within / block), receiver * block + within % block);
        }
        return pattern.input(root, g);
    }

    private long reduceInteger(final long g)
    {
        // in rank order; the integer operators are associative and commutative, wrap-around included, so any order
        // jccl reduces in gives these bits (AVG: the inputs keep the sum inside the type, so SUM-then-divide has one
        // answer)
        final DataType type = codec.type();
        long acc = ReferenceArithmetic.pre(type, op, integerScalar, pattern.input(0, g));
        for (int q = 1; q < nRanks; q++)
        {
            acc = ReferenceArithmetic.combine(type, op, acc,
                ReferenceArithmetic.pre(type, op, integerScalar, pattern.input(q, g)));
        }
        return ReferenceArithmetic.finish(type, op, nRanks, acc);
    }

    private static ReduceOp builtIn(final ReduceOp.Kind kind)
    {
        return switch (kind)
        {
            case SUM -> ReduceOp.SUM;
            case PROD -> ReduceOp.PROD;
            case MAX -> ReduceOp.MAX;
            case MIN -> ReduceOp.MIN;
            case AVG -> ReduceOp.AVG;
            case PREMULSUM -> throw new IllegalArgumentException("PreMulSum needs its scalar");
        };
    }

    private void reduceFloat(final long g, final double[] values, final double[] tolerances, final int slot)
    {
        double acc = 0;
        double sumAbs = 0;
        for (int q = 0; q < nRanks; q++)
        {
            final double x = pattern.inputValue(q, g);
            if (q == 0)
            {
                acc = comparison == Comparison.TOLERANCE ? x * floatScalar : x;
            }
            else
            {
                acc = switch (kind)
                {
                    case SUM -> acc + x;
                    case PROD -> acc * x;
                    case MAX -> Math.max(acc, x);
                    case MIN -> Math.min(acc, x);
                    case AVG, PREMULSUM -> acc + x * floatScalar;
                };
            }
            sumAbs += Math.abs(x * floatScalar);
        }
        values[slot] = acc;
        tolerances[slot] = comparison == Comparison.TOLERANCE ? errorGrowth * sumAbs + 2.0 * nRanks * tiny : 0.0;
    }
}
