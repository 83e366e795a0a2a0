package io.jccl.testkit;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Self-tests of the element arithmetic: against exact models written here (BigInteger for integers, BigDecimal
 * rounded once for every floating type), and the scalar conversions jccl-kernels' reducers use.
 */
class ReferenceArithmeticTest
{
    @ParameterizedTest
    @EnumSource(DataType.class)
    void shouldRoundExactResultOnceWhenAddingOrMultiplying(final DataType type)
    {
        final Random random = new Random(type.ordinal() * 7L);
        int checked = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final long a = RandomElements.next(type, random);
            final long b = RandomElements.next(type, random);
            checked += check(type, "+", a, b, ReferenceArithmetic.add(type, a, b), exactAdd(type, a, b));
            checked += check(type, "*", a, b, ReferenceArithmetic.multiply(type, a, b), exactMultiply(type, a, b));
        }
        assertTrue(checked > 20_000, "most random operands have an exact model: " + checked);
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"INT8", "UINT8", "INT32", "UINT32", "INT64", "UINT64"})
    void shouldDivideLikeBigIntegerWhenTypeIsInteger(final DataType type)
    {
        final Random random = new Random(type.ordinal());
        final long[] divisors = {1, 2, 3, 7, 1000, 1L << 40, -1, -3, -2, Long.MIN_VALUE, Long.MAX_VALUE};
        for (final long divisor : divisors)
        {
            for (int i = 0; i < 1000; i++)
            {
                final long x = RandomElements.next(type, random);
                final BigInteger d = type.isSigned() ? BigInteger.valueOf(divisor) :
                    new BigInteger(Long.toUnsignedString(divisor));
                assertEquals(big(type, x).divide(d).longValue() & ReferenceArithmetic.mask(type),
                    ReferenceArithmetic.divide(type, x, divisor), () -> type + " " + x + " / " + divisor);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> ReferenceArithmetic.divide(DataType.FLOAT32, 1, 2));
    }

    @Test
    void shouldTruncateAndWrapScalarWhenTypeIsInteger()
    {
        assertEquals(2, ReferenceArithmetic.scalar(DataType.INT8, 2.5));
        assertEquals(0xff, ReferenceArithmetic.scalar(DataType.INT8, -1.7));
        assertEquals(44, ReferenceArithmetic.scalar(DataType.INT8, 300));
        // beyond a long: modulo 2^64 as the reducers take it, not Java's saturating (long) cast
        assertEquals(0, ReferenceArithmetic.scalar(DataType.INT8, 1e20));
        assertEquals(Long.MIN_VALUE, ReferenceArithmetic.scalar(DataType.INT64, 0x1p63));
        assertEquals(new BigDecimal(-1e20).toBigInteger().longValue() & 0xffff_ffffL,
            ReferenceArithmetic.scalar(DataType.UINT32, -1e20));
    }

    @Test
    void shouldRoundScalarOnceWhenTypeIsNarrow()
    {
        // 1 + 2^-11 + 2^-40 is above binary16's midpoint 1 + 2^-11; through float it would land on it and tie down
        final double trap = 1 + 0x1p-11 + 0x1p-40;
        assertEquals(0x3c01, ReferenceArithmetic.scalar(DataType.FLOAT16, trap));
        assertEquals(0x3c00, NarrowFloat.FLOAT16.fromFloat((float)trap));
        assertEquals(0x3555, ReferenceArithmetic.scalarBits(DataType.FLOAT16, ReduceOp.AVG, 3));
        assertEquals(0, ReferenceArithmetic.scalarBits(DataType.INT32, ReduceOp.AVG, 3));
        assertEquals(Float.floatToRawIntBits(0.25f),
            ReferenceArithmetic.scalarBits(DataType.FLOAT32, ReduceOp.preMulSum(0.25), 3));
    }

    @Test
    void shouldFollowCudaWhenMaxOrMinMeetsNaNOrSignedZero()
    {
        assertEquals(2f, ReferenceArithmetic.fmax(Float.NaN, 2f));
        assertEquals(1f, ReferenceArithmetic.fmin(1f, Float.NaN));
        assertTrue(Float.isNaN(ReferenceArithmetic.fmax(Float.NaN, Float.NaN)));
        assertEquals(0, Float.floatToRawIntBits(ReferenceArithmetic.fmax(-0f, 0f)));
        assertEquals(0x8000_0000, Float.floatToRawIntBits(ReferenceArithmetic.fmin(0f, -0f)));
        assertEquals(0.0, ReferenceArithmetic.fmax(-0.0, 0.0));
        assertEquals(-0.0, ReferenceArithmetic.fmin(0.0, -0.0));
        assertEquals(3.0, ReferenceArithmetic.fmin(Double.NaN, 3.0));
        // an FP8 infinity saturates on the way back, as every E5M2 result does
        assertEquals(0x7b, ReferenceArithmetic.max(DataType.FLOAT8_E5M2, 0x7c, 0x3c));
    }

    @Test
    void shouldStepAsHostReducerWhenReducing()
    {
        final long scalar = ReferenceArithmetic.scalar(DataType.FLOAT16, 1.0 / 3);
        final long one = NarrowFloat.FLOAT16.fromFloat(1f);
        // 1/3 rounds to 0x3555 = 0.333251953125; 1 * that is exact, and twice it is 0.66650390625
        assertEquals(0x3955, ReferenceArithmetic.reduce(DataType.FLOAT16, ReduceOp.Kind.PREMULSUM, scalar, one,
            true, one, true));
        // only y is pre-multiplied: 1 + 0.333251953125 rounds to 1 + 341/1024
        assertEquals(0x3d55, ReferenceArithmetic.reduce(DataType.FLOAT16,
            ReduceOp.Kind.PREMULSUM, scalar, one, false, one, true));
        assertEquals(0xff, ReferenceArithmetic.reduce(DataType.UINT8, ReduceOp.Kind.MAX, 0, 0xff, false, 1, false));
        assertEquals(1, ReferenceArithmetic.reduce(DataType.INT8, ReduceOp.Kind.MAX, 0, 0xff, false, 1, false));
        assertThrows(IllegalArgumentException.class, () -> ReferenceArithmetic.reduce(DataType.INT8,
            ReduceOp.Kind.AVG, 0, 1, false, 1, false));
    }

    @Test
    void shouldMatchAnyNaNWhenNaNExpected()
    {
        assertTrue(ReferenceArithmetic.same(DataType.FLOAT16, 0x7e00, 0xfc01));
        assertFalse(ReferenceArithmetic.same(DataType.FLOAT16, 0x7e00, 0x7c00));
        assertTrue(ReferenceArithmetic.same(DataType.FLOAT8_E4M3, 0xff, 0x7f));
        assertFalse(ReferenceArithmetic.same(DataType.FLOAT32, 0, 0x8000_0000L));
        assertFalse(ReferenceArithmetic.isNaN(DataType.INT32, 0x7fc0_0000L));
        assertEquals("-3 (0xfd)", ReferenceArithmetic.describe(DataType.INT8, 0xfd));
        assertEquals("253 (0xfd)", ReferenceArithmetic.describe(DataType.UINT8, 0xfd));
        assertEquals("0.5 (0x3800)", ReferenceArithmetic.describe(DataType.FLOAT16, 0x3800));
    }

    private static int check(final DataType type, final String op, final long a, final long b, final long actual,
        final Long exact)
    {
        if (exact == null)
        {
            return 0;
        }
        if (!ReferenceArithmetic.same(type, exact, actual))
        {
            fail(type + " " + ReferenceArithmetic.describe(type, a) + " " + op + " " +
                ReferenceArithmetic.describe(type, b) + ": exact " + ReferenceArithmetic.describe(type, exact) +
                " but was " + ReferenceArithmetic.describe(type, actual));
        }
        return 1;
    }

    /** @return the exact sum rounded once or wrapped; null where IEEE's special rules decide (not modelled here). */
    private static Long exactAdd(final DataType type, final long a, final long b)
    {
        if (!type.isFloatingPoint())
        {
            return big(type, a).add(big(type, b)).longValue() & ReferenceArithmetic.mask(type);
        }
        final BigDecimal[] operands = finiteOperands(type, a, b);
        return operands == null ? null : roundOnce(type, operands[0].add(operands[1]));
    }

    private static Long exactMultiply(final DataType type, final long a, final long b)
    {
        if (!type.isFloatingPoint())
        {
            return big(type, a).multiply(big(type, b)).longValue() & ReferenceArithmetic.mask(type);
        }
        final BigDecimal[] operands = finiteOperands(type, a, b);
        return operands == null ? null : roundOnce(type, operands[0].multiply(operands[1]));
    }

    private static BigDecimal[] finiteOperands(final DataType type, final long a, final long b)
    {
        final double x = ReferenceArithmetic.toDouble(type, a);
        final double y = ReferenceArithmetic.toDouble(type, b);
        if (!Double.isFinite(x) || !Double.isFinite(y))
        {
            return null;
        }
        return new BigDecimal[]{new BigDecimal(x), new BigDecimal(y)};
    }

    /** Rounds a non-zero exact value once; null for an exact zero, whose sign IEEE's rules decide. */
    private static Long roundOnce(final DataType type, final BigDecimal exact)
    {
        if (exact.signum() == 0)
        {
            return null;
        }
        switch (type)
        {
            case FLOAT32:
                final float f = exact.floatValue();
                return Float.floatToRawIntBits(f == 0 ? Math.copySign(0f, exact.signum()) : f) & 0xffff_ffffL;
            case FLOAT64:
                final double d = exact.doubleValue();
                return Double.doubleToRawLongBits(d == 0 ? Math.copySign(0.0, exact.signum()) : d);
            default:
                return (long)NarrowFloat.of(type).roundExact(exact);
        }
    }

    private static BigInteger big(final DataType type, final long bits)
    {
        if (type.isSigned())
        {
            return BigInteger.valueOf(ReferenceArithmetic.signExtend(type, bits));
        }
        return new BigInteger(Long.toUnsignedString(bits & ReferenceArithmetic.mask(type)));
    }
}
