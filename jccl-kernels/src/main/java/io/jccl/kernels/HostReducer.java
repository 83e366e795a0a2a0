package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.ReduceOp;
import org.agrona.UnsafeApi;

import java.math.BigDecimal;

/**
 * The host arithmetic of one (element type, operator) pair over raw native addresses (off-heap, native byte order).
 * Semantics are DESIGN.md's arithmetic contract:
 * <ul>
 *     <li>integers wrap (two's complement) in SUM, PROD and the pre-multiplication; MAX and MIN compare signed or
 *     unsigned as the type is;</li>
 *     <li>FLOAT32 computes in float and FLOAT64 in double; FLOAT16, BFLOAT16 and both FP8 types widen each operand
 *     to float and round back to the storage type after every operation (the FP8 types saturate);</li>
 *     <li>MAX and MIN on floating types follow CUDA's {@code fmaxf}/{@code fminf}: a NaN operand yields the other
 *     operand, otherwise {@link Math#max(float, float)}/{@link Math#min(float, float)};</li>
 *     <li>PREMULSUM is the SUM of the pre-multiplied operands, the scalar first converted to the element type
 *     (integers: truncated toward zero, then wrapped to the width; the narrow floats: rounded to the type).</li>
 * </ul>
 * AVG has no reducer: the caller runs PREMULSUM(1/n) on floating types and SUM then {@link #divide} on integers.
 * <p>
 * Instances are immutable and thread-safe; the ones without a scalar are shared. Every method is a hot-path loop:
 * no allocation, no bounds checks, no exceptions apart from {@link #divide}'s argument checks; each (type,
 * operator) has its own loop so the JIT sees one monomorphic element operation.
 */
public abstract class HostReducer
{
    private static final ReduceOp.Kind[] SCALAR_FREE_KINDS =
        { ReduceOp.Kind.SUM, ReduceOp.Kind.PROD, ReduceOp.Kind.MAX, ReduceOp.Kind.MIN };
    private static final HostReducer[][] SCALAR_FREE = new HostReducer[DataType.values().length][];

    static
    {
        for (final DataType type : DataType.values())
        {
            SCALAR_FREE[type.ordinal()] = new HostReducer[SCALAR_FREE_KINDS.length];
            for (final ReduceOp.Kind kind : SCALAR_FREE_KINDS)
            {
                SCALAR_FREE[type.ordinal()][kind.ordinal()] = create(type, kind, 0);
            }
        }
    }

    private final DataType type;
    private final ReduceOp.Kind kind;

    HostReducer(final DataType type, final ReduceOp.Kind kind)
    {
        this.type = type;
        this.kind = kind;
    }

    /**
     * @param type   the element type.
     * @param kind   SUM, PROD, MAX, MIN or PREMULSUM.
     * @param scalar PREMULSUM's multiplier, converted to the element type; ignored by the other kinds.
     * @return the reducer; a shared instance for the kinds without a scalar.
     * @throws JcclInvalidArgumentException if an argument is null, the kind is AVG, or PREMULSUM's scalar is NaN
     *                                      (or not finite for an integer type).
     */
    public static HostReducer of(final DataType type, final ReduceOp.Kind kind, final double scalar)
    {
        if (type == null || kind == null)
        {
            throw new JcclInvalidArgumentException("type=" + type + " and kind=" + kind + " must not be null");
        }
        if (kind == ReduceOp.Kind.AVG)
        {
            throw new JcclInvalidArgumentException("kind AVG has no host reducer: use PREMULSUM(1/n) on floating " +
                "types, SUM then divide on integers (type=" + type + ")");
        }
        if (kind != ReduceOp.Kind.PREMULSUM)
        {
            return SCALAR_FREE[type.ordinal()][kind.ordinal()];
        }
        if (Double.isNaN(scalar) || (!type.isFloatingPoint() && Double.isInfinite(scalar)))
        {
            throw new JcclInvalidArgumentException("scalar=" + scalar + " of PREMULSUM cannot be converted to " +
                type);
        }
        return create(type, kind, scalar);
    }

    private static HostReducer create(final DataType type, final ReduceOp.Kind kind, final double scalar)
    {
        return switch (type)
        {
            case INT8, UINT8 -> new Int8Reducer(type, kind, (byte)truncateAndWrap(scalar));
            case INT32, UINT32 -> new Int32Reducer(type, kind, (int)truncateAndWrap(scalar));
            case INT64, UINT64 -> new Int64Reducer(type, kind, truncateAndWrap(scalar));
            case FLOAT32 -> new Float32Reducer(kind, (float)scalar);
            case FLOAT64 -> new Float64Reducer(kind, scalar);
            case FLOAT16 -> new Float16Reducer(kind, Float16.fromFloat(FloatRounding.toFloatRoundToOdd(scalar)));
            case BFLOAT16 -> new BFloat16Reducer(kind, BFloat16.fromFloat(FloatRounding.toFloatRoundToOdd(scalar)));
            case FLOAT8_E4M3 ->
                new Float8E4M3Reducer(kind, Float8E4M3.fromFloat(FloatRounding.toFloatRoundToOdd(scalar)));
            case FLOAT8_E5M2 ->
                new Float8E5M2Reducer(kind, Float8E5M2.fromFloat(FloatRounding.toFloatRoundToOdd(scalar)));
        };
    }

    /**
     * The integer PreMulSum scalar as the integer reducers keep it (before narrowing to the element width), for
     * kernels that compute the same.
     *
     * @param scalar a finite double.
     * @return the scalar truncated toward zero, modulo 2^64.
     */
    public static long integerScalar(final double scalar)
    {
        return truncateAndWrap(scalar);
    }

    /**
     * @param scalar a finite double.
     * @return the scalar truncated toward zero, modulo 2^64 (the caller narrows it further).
     */
    static long truncateAndWrap(final double scalar)
    {
        // (long) saturates beyond 2^63; a double that large is an integer, so its low 64 bits are exact
        return Math.abs(scalar) < 0x1p63 ? (long)scalar : new BigDecimal(scalar).toBigInteger().longValue();
    }

    /**
     * For i in [0, count): {@code dst[i] = op(pre(a[i]), pre(b[i]))}, where pre multiplies by the scalar when the
     * kind is PREMULSUM and the operand's flag is set, and is the identity otherwise.
     *
     * @param a       address of the first operand.
     * @param premulA whether PREMULSUM pre-multiplies a (ignored by the other kinds).
     * @param b       address of the second operand.
     * @param premulB whether PREMULSUM pre-multiplies b (ignored by the other kinds).
     * @param dst     address of the result: exactly a, exactly b, or a range overlapping neither.
     * @param count   elements.
     */
    public final void reduce(final long a, final boolean premulA, final long b, final boolean premulB, final long dst,
        final long count)
    {
        final long length = count * type.byteSize();
        switch (kind)
        {
            case SUM -> sum(a, b, dst, length);
            case PROD -> prod(a, b, dst, length);
            case MAX -> max(a, b, dst, length);
            case MIN -> min(a, b, dst, length);
            default ->
            {
                if (premulA || premulB)
                {
                    premulSum(a, premulA, b, premulB, dst, length);
                }
                else
                {
                    sum(a, b, dst, length);
                }
            }
        }
    }

    /**
     * For i in [0, count): {@code dst[i] = pre(src[i])}; a plain memory copy unless PREMULSUM pre-multiplies.
     *
     * @param src    address of the source.
     * @param premul whether PREMULSUM pre-multiplies (ignored by the other kinds).
     * @param dst    address of the result: exactly src, or a range not overlapping it.
     * @param count  elements.
     */
    public final void copy(final long src, final boolean premul, final long dst, final long count)
    {
        if (premul && kind == ReduceOp.Kind.PREMULSUM)
        {
            scale(src, dst, count * type.byteSize());
        }
        else
        {
            UnsafeApi.copyMemory(src, dst, count * type.byteSize());
        }
    }

    // The element loops of one type: lengths are in bytes. Each subclass compiles its own loops, so the element
    // operation is inlined; dispatch happens once per call in reduce and copy above.

    /** {@code dst = a + b}. */
    abstract void sum(long a, long b, long dst, long length);

    /** {@code dst = a * b}. */
    abstract void prod(long a, long b, long dst, long length);

    /** {@code dst = max(a, b)}. */
    abstract void max(long a, long b, long dst, long length);

    /** {@code dst = min(a, b)}. */
    abstract void min(long a, long b, long dst, long length);

    /** {@code dst = pre(a) + pre(b)}, at least one of the flags set. */
    abstract void premulSum(long a, boolean premulA, long b, boolean premulB, long dst, long length);

    /** {@code dst = src * scalar}. */
    abstract void scale(long src, long dst, long length);

    /**
     * Divides in place, for AVG on integers (SUM, then this). Signed types truncate toward zero as Java and C do
     * (the minimum divided by -1 wraps to itself); UINT8, UINT32 and UINT64 divide unsigned, the divisor read as
     * an unsigned 64-bit value.
     *
     * @param address address of the elements.
     * @param count   elements.
     * @param divisor the divisor, not 0.
     * @throws JcclInvalidArgumentException if the divisor is 0 or the type is a floating type.
     */
    public abstract void divide(long address, long count, long divisor);

    /** @return the element type. */
    public final DataType type()
    {
        return type;
    }

    /** @return the operator: SUM, PROD, MAX, MIN or PREMULSUM. */
    public final ReduceOp.Kind kind()
    {
        return kind;
    }

    @Override
    public String toString()
    {
        return "HostReducer(" + type.ncclTestsName() + ", " + kind.ncclTestsName() + ")";
    }

    final void checkDivide(final long divisor)
    {
        if (type.isFloatingPoint())
        {
            throw new JcclInvalidArgumentException("divide is for integer types (AVG on floating types is " +
                "PREMULSUM), not " + type);
        }
        if (divisor == 0)
        {
            throw new JcclInvalidArgumentException("divisor=0 in divide of " + type);
        }
    }

    /** CUDA {@code fmaxf}: a NaN operand yields the other one. */
    static float fmax(final float x, final float y)
    {
        return x != x ? y : (y != y ? x : Math.max(x, y));
    }

    /** CUDA {@code fminf}: a NaN operand yields the other one. */
    static float fmin(final float x, final float y)
    {
        return x != x ? y : (y != y ? x : Math.min(x, y));
    }

    /** CUDA {@code fmax}: a NaN operand yields the other one. */
    static double fmax(final double x, final double y)
    {
        return x != x ? y : (y != y ? x : Math.max(x, y));
    }

    /** CUDA {@code fmin}: a NaN operand yields the other one. */
    static double fmin(final double x, final double y)
    {
        return x != x ? y : (y != y ? x : Math.min(x, y));
    }

    /** Unsigned 64-bit division without {@link Long#divideUnsigned}'s BigInteger path (JDK 17 allocates there). */
    static long divideUnsigned(final long dividend, final long divisor)
    {
        if (divisor < 0)
        {
            return Long.compareUnsigned(dividend, divisor) < 0 ? 0 : 1;
        }
        if (dividend >= 0)
        {
            return dividend / divisor;
        }
        final long quotient = ((dividend >>> 1) / divisor) << 1;
        final long remainder = dividend - quotient * divisor;
        return quotient + (Long.compareUnsigned(remainder, divisor) >= 0 ? 1 : 0);
    }
}
