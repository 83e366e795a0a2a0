package io.jccl;

import java.util.Objects;

/**
 * A reduction operator: SUM, PROD, MAX, MIN, AVG, or PreMulSum with a scalar (NCCL's
 * {@code ncclRedOpCreatePreMulSum}).
 * <p>
 * Semantics (DESIGN.md, arithmetic contract): AVG on floating types is PreMulSum(1/n), every input multiplied
 * by 1/n on load and then summed; on integers it is SUM followed by an integer division by n. MIN and MAX on
 * floating types follow CUDA's {@code fminf}/{@code fmaxf}: a NaN operand yields the other operand. PreMulSum's
 * scalar is converted to the element type before it is used, as NCCL does.
 */
public final class ReduceOp
{
    /** The operator families, with NCCL's {@code ncclRedOp_t} ids (PreMulSum has no fixed id in NCCL). */
    public enum Kind
    {
        /** Sum. */
        SUM(0, "sum"),
        /** Product. */
        PROD(1, "prod"),
        /** Maximum. */
        MAX(2, "max"),
        /** Minimum. */
        MIN(3, "min"),
        /** Average: PreMulSum(1/n) on floats, SUM then division on integers. */
        AVG(4, "avg"),
        /** Sum of inputs each first multiplied by a scalar. */
        PREMULSUM(5, "mulsum");

        private final int id;
        private final String ncclTestsName;

        Kind(final int id, final String ncclTestsName)
        {
            this.id = id;
            this.ncclTestsName = ncclTestsName;
        }

        /** @return the stable id ({@code ncclRedOp_t} for the five built-ins). */
        public int id()
        {
            return id;
        }

        /** @return the name nccl-tests prints ({@code sum prod max min avg mulsum}). */
        public String ncclTestsName()
        {
            return ncclTestsName;
        }
    }

    /** Sum. */
    public static final ReduceOp SUM = new ReduceOp(Kind.SUM, 0);
    /** Product. */
    public static final ReduceOp PROD = new ReduceOp(Kind.PROD, 0);
    /** Maximum ({@code fmaxf} semantics on floats). */
    public static final ReduceOp MAX = new ReduceOp(Kind.MAX, 0);
    /** Minimum ({@code fminf} semantics on floats). */
    public static final ReduceOp MIN = new ReduceOp(Kind.MIN, 0);
    /** Average over the ranks. */
    public static final ReduceOp AVG = new ReduceOp(Kind.AVG, 0);

    private static final ReduceOp[] BUILT_INS = {SUM, PROD, MAX, MIN, AVG};

    private final Kind kind;
    private final double scalar;

    private ReduceOp(final Kind kind, final double scalar)
    {
        this.kind = kind;
        this.scalar = scalar;
    }

    /**
     * NCCL's {@code ncclRedOpCreatePreMulSum}: every rank's input is multiplied by {@code scalar} as it is
     * loaded, then the products are summed.
     *
     * @param scalar the multiplier; converted to the element type of the call (truncated for integers).
     * @return the operator.
     * @throws JcclInvalidArgumentException if the scalar is NaN.
     */
    public static ReduceOp preMulSum(final double scalar)
    {
        if (Double.isNaN(scalar))
        {
            throw new JcclInvalidArgumentException("scalar of preMulSum is NaN");
        }
        return new ReduceOp(Kind.PREMULSUM, scalar);
    }

    /** @return the built-in operators SUM, PROD, MAX, MIN, AVG (as nccl-tests' {@code -o all} runs them). */
    public static ReduceOp[] builtIns()
    {
        return BUILT_INS.clone();
    }

    /**
     * @param name {@code sum prod max min avg} (any case); {@code mulsum} is PreMulSum, which nccl-tests runs with
     *             the scalar 1/n, so it needs the rank count: see {@link #preMulSum(double)}.
     * @return the built-in operator.
     * @throws JcclInvalidArgumentException for any other name.
     */
    public static ReduceOp fromName(final String name)
    {
        for (final ReduceOp op : BUILT_INS)
        {
            if (op.kind.ncclTestsName.equalsIgnoreCase(name))
            {
                return op;
            }
        }
        throw new JcclInvalidArgumentException("op '" + name + "' is not one of sum, prod, max, min, avg");
    }

    /** @return the operator family. */
    public Kind kind()
    {
        return kind;
    }

    /** @return PreMulSum's scalar; 0 for the other kinds. */
    public double scalar()
    {
        return scalar;
    }

    /** @return the name nccl-tests prints. */
    public String ncclTestsName()
    {
        return kind.ncclTestsName;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ReduceOp other && other.kind == kind &&
            Double.doubleToLongBits(other.scalar) == Double.doubleToLongBits(scalar);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(kind, scalar);
    }

    @Override
    public String toString()
    {
        return kind == Kind.PREMULSUM ? "mulsum(" + scalar + ")" : kind.ncclTestsName;
    }
}
