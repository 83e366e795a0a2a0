package io.jccl.testkit;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.math.BigDecimal;

/**
 * One element type's arithmetic as the arithmetic contract defines it (DESIGN.md), on raw bits: an element is its
 * bits zero-extended into a {@code long}. Every floating result is the exact result rounded once to the type:
 * <ul>
 *   <li>integers wrap (two's complement); MIN and MAX compare signed or unsigned by the type; division truncates
 *       toward zero;</li>
 *   <li>FLOAT32 and FLOAT64 are Java's IEEE float and double operations;</li>
 *   <li>the narrow floats compute in double and round once with {@link NarrowFloat}: a product of two narrow values
 *       is exact in double, and a sum rounds there innocuously (53 bits is more than twice their precision plus
 *       two), so the result is the exact one rounded once, which is also what jccl's "compute in float, round
 *       after every step" gives;</li>
 *   <li>MIN and MAX on floating types are CUDA's {@code fminf}/{@code fmaxf}: a NaN operand yields the other
 *       operand, and -0 is below +0.</li>
 * </ul>
 * PreMulSum's scalar is converted to the element type as jccl-kernels' reducers do: truncated toward zero modulo
 * 2^64 for integers, rounded once from the double for floating types. An expected NaN matches any NaN
 * ({@link #same(DataType, long, long)}). Stateless and thread-safe.
 */
public final class ReferenceArithmetic
{
    private ReferenceArithmetic()
    {
    }

    /**
     * @param type element type.
     * @return mask of the type's width.
     */
    public static long mask(final DataType type)
    {
        return type.byteSize() == 8 ? -1L : (1L << (8 * type.byteSize())) - 1;
    }

    /**
     * @param type element type.
     * @param bits raw bits.
     * @return the bits read as a signed value (sign-extended from the type's width).
     */
    public static long signExtend(final DataType type, final long bits)
    {
        final int shift = 64 - 8 * type.byteSize();
        return (bits << shift) >> shift;
    }

    /**
     * @param type a floating type.
     * @param bits raw bits.
     * @return the value (exact).
     */
    public static double toDouble(final DataType type, final long bits)
    {
        switch (type)
        {
            case FLOAT32:
                return Float.intBitsToFloat((int)bits);
            case FLOAT64:
                return Double.longBitsToDouble(bits);
            default:
                return NarrowFloat.of(type).toDouble((int)bits);
        }
    }

    /**
     * @param type  a floating type.
     * @param value a value.
     * @return the raw bits of the value rounded once to the type (to nearest, ties to even).
     */
    public static long fromDouble(final DataType type, final double value)
    {
        switch (type)
        {
            case FLOAT32:
                return Float.floatToRawIntBits((float)value) & 0xffff_ffffL;
            case FLOAT64:
                return Double.doubleToRawLongBits(value);
            default:
                return NarrowFloat.of(type).fromDouble(value);
        }
    }

    /**
     * @param type   element type.
     * @param scalar a PreMulSum scalar, finite for integer types.
     * @return the scalar converted to the element type, as raw bits.
     */
    public static long scalar(final DataType type, final double scalar)
    {
        if (!type.isFloatingPoint())
        {
            return new BigDecimal(scalar).toBigInteger().longValue() & mask(type);
        }
        return fromDouble(type, scalar);
    }

    /**
     * @param type element type.
     * @param op   reduction.
     * @return true when the op pre-multiplies inputs for this type: PreMulSum, and AVG on floating types.
     */
    public static boolean preMultiplies(final DataType type, final ReduceOp op)
    {
        return op.kind() == ReduceOp.Kind.PREMULSUM || (op.kind() == ReduceOp.Kind.AVG && type.isFloatingPoint());
    }

    /**
     * @param type element type.
     * @param op   reduction.
     * @param n    rank count (AVG on floating types multiplies by 1/n).
     * @return the pre-multiplication scalar converted to the element type, as raw bits; 0 when the op has none.
     */
    public static long scalarBits(final DataType type, final ReduceOp op, final int n)
    {
        if (!preMultiplies(type, op))
        {
            return 0;
        }
        return scalar(type, op.kind() == ReduceOp.Kind.AVG ? 1.0 / n : op.scalar());
    }

    /**
     * @param type   element type.
     * @param op     reduction.
     * @param scalar {@link #scalarBits(DataType, ReduceOp, int)}.
     * @param x      one rank's element.
     * @return {@code pre(x)}: x, or {@code round_T(x * s_T)} for pre-multiplying ops.
     */
    public static long pre(final DataType type, final ReduceOp op, final long scalar, final long x)
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
    public static long combine(final DataType type, final ReduceOp op, final long a, final long b)
    {
        return combine(type, op.kind(), a, b);
    }

    /**
     * @param type element type.
     * @param op   reduction.
     * @param n    rank count.
     * @param acc  the reduced value.
     * @return acc, divided by n for integer AVG (signed types truncating, unsigned ones unsigned).
     */
    public static long finish(final DataType type, final ReduceOp op, final int n, final long acc)
    {
        if (op.kind() != ReduceOp.Kind.AVG || type.isFloatingPoint())
        {
            return acc;
        }
        return divide(type, acc, n);
    }

    /**
     * One step of jccl-kernels' {@code HostReducer.reduce}: {@code op(pre(x), pre(y))}, where pre multiplies by the
     * scalar when its flag is set and the kind is PREMULSUM.
     *
     * @param type    element type.
     * @param kind    SUM, PROD, MAX, MIN or PREMULSUM.
     * @param scalar  PreMulSum's scalar as {@link #scalar(DataType, double)} converts it.
     * @param x       one operand.
     * @param premulX whether x is pre-multiplied.
     * @param y       the other.
     * @param premulY whether y is pre-multiplied.
     * @return the result, rounded to the type.
     */
    public static long reduce(final DataType type, final ReduceOp.Kind kind, final long scalar, final long x,
        final boolean premulX, final long y, final boolean premulY)
    {
        if (kind == ReduceOp.Kind.PREMULSUM)
        {
            return add(type, premulX ? multiply(type, x, scalar) : x, premulY ? multiply(type, y, scalar) : y);
        }
        if (kind == ReduceOp.Kind.AVG)
        {
            throw new IllegalArgumentException("AVG is PreMulSum or SUM then divide, not one step");
        }
        return combine(type, kind, x, y);
    }

    /**
     * @param type element type.
     * @param a    one operand.
     * @param b    the other.
     * @return {@code a + b}, rounded to the type or wrapped.
     */
    public static long add(final DataType type, final long a, final long b)
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
                return fromDouble(type, toDouble(type, a) + toDouble(type, b));
            default:
                return (a + b) & mask(type);
        }
    }

    /**
     * @param type element type.
     * @param a    one operand.
     * @param b    the other.
     * @return {@code a * b}, rounded to the type or wrapped.
     */
    public static long multiply(final DataType type, final long a, final long b)
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
                return fromDouble(type, toDouble(type, a) * toDouble(type, b));
            default:
                return (a * b) & mask(type);
        }
    }

    /**
     * @param type element type.
     * @param a    one operand.
     * @param b    the other.
     * @return the larger ({@code fmax} on floating types; an FP8 infinity saturates).
     */
    public static long max(final DataType type, final long a, final long b)
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
                return fromDouble(type, fmax(toDouble(type, a), toDouble(type, b)));
            default:
                return compareInteger(type, a, b) >= 0 ? a : b;
        }
    }

    /**
     * @param type element type.
     * @param a    one operand.
     * @param b    the other.
     * @return the smaller ({@code fmin} on floating types; an FP8 infinity saturates).
     */
    public static long min(final DataType type, final long a, final long b)
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
                return fromDouble(type, fmin(toDouble(type, a), toDouble(type, b)));
            default:
                return compareInteger(type, a, b) <= 0 ? a : b;
        }
    }

    /**
     * Integer division as jccl-kernels' {@code HostReducer.divide} takes its divisor: signed for signed types,
     * unsigned (all 64 bits) for unsigned ones.
     *
     * @param type    an integer type.
     * @param x       the dividend's raw bits.
     * @param divisor the divisor, non-zero.
     * @return the quotient truncated toward zero, wrapped.
     */
    public static long divide(final DataType type, final long x, final long divisor)
    {
        if (type.isFloatingPoint())
        {
            throw new IllegalArgumentException(type + " is not an integer type");
        }
        if (type.isSigned())
        {
            return (signExtend(type, x) / divisor) & mask(type);
        }
        return Long.divideUnsigned(x, divisor) & mask(type);
    }

    /**
     * CUDA {@code fmaxf}: a NaN operand yields the other operand, else {@link Math#max(float, float)} (-0 below +0).
     *
     * @param a one operand.
     * @param b the other.
     * @return the larger.
     */
    public static float fmax(final float a, final float b)
    {
        if (Float.isNaN(a))
        {
            return b;
        }
        return Float.isNaN(b) ? a : Math.max(a, b);
    }

    /**
     * CUDA {@code fminf}: a NaN operand yields the other operand, else {@link Math#min(float, float)} (-0 below +0).
     *
     * @param a one operand.
     * @param b the other.
     * @return the smaller.
     */
    public static float fmin(final float a, final float b)
    {
        if (Float.isNaN(a))
        {
            return b;
        }
        return Float.isNaN(b) ? a : Math.min(a, b);
    }

    /**
     * CUDA {@code fmax}: a NaN operand yields the other operand, else {@link Math#max(double, double)}.
     *
     * @param a one operand.
     * @param b the other.
     * @return the larger.
     */
    public static double fmax(final double a, final double b)
    {
        if (Double.isNaN(a))
        {
            return b;
        }
        return Double.isNaN(b) ? a : Math.max(a, b);
    }

    /**
     * CUDA {@code fmin}: a NaN operand yields the other operand, else {@link Math#min(double, double)}.
     *
     * @param a one operand.
     * @param b the other.
     * @return the smaller.
     */
    public static double fmin(final double a, final double b)
    {
        if (Double.isNaN(a))
        {
            return b;
        }
        return Double.isNaN(b) ? a : Math.min(a, b);
    }

    /**
     * @param type element type.
     * @param bits raw bits.
     * @return true when the bits are a NaN of a floating type.
     */
    public static boolean isNaN(final DataType type, final long bits)
    {
        return type.isFloatingPoint() && Double.isNaN(toDouble(type, bits));
    }

    /**
     * @param type     element type.
     * @param expected the expected raw bits.
     * @param actual   the actual raw bits.
     * @return whether they match: equal bits, or both NaN when a NaN is expected.
     */
    public static boolean same(final DataType type, final long expected, final long actual)
    {
        return isNaN(type, expected) ? isNaN(type, actual) : expected == actual;
    }

    /**
     * @param type element type.
     * @param bits raw bits.
     * @return the value and the bits, e.g. {@code -3 (0xfd)} or {@code 0.5 (0x3800)}.
     */
    public static String describe(final DataType type, final long bits)
    {
        final String value;
        if (type.isFloatingPoint())
        {
            value = type == DataType.FLOAT32 ? Float.toString(asFloat(bits)) : Double.toString(toDouble(type, bits));
        }
        else
        {
            value = type.isSigned() ? Long.toString(signExtend(type, bits)) : Long.toUnsignedString(bits);
        }
        return value + " (0x" + Long.toHexString(bits) + ")";
    }

    private static long combine(final DataType type, final ReduceOp.Kind kind, final long a, final long b)
    {
        switch (kind)
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
                throw new IllegalArgumentException(kind.toString());
        }
    }

    private static int compareInteger(final DataType type, final long a, final long b)
    {
        return type.isSigned() ? Long.compare(signExtend(type, a), signExtend(type, b)) : Long.compareUnsigned(a, b);
    }

    private static float asFloat(final long bits)
    {
        return Float.intBitsToFloat((int)bits);
    }

    private static long floatBits(final float value)
    {
        return Float.floatToRawIntBits(value) & 0xffff_ffffL;
    }
}
