package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.ReduceOp;
import io.jccl.testkit.RandomElements;
import io.jccl.testkit.ReferenceArithmetic;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

class HostReducerTest
{
    private static final int[] COUNTS = { 0, 1, 7, 1021 };
    /** Elements past count that must stay untouched. */
    private static final int GUARD = 3;
    private static final int CAPACITY = 1021 + GUARD;
    private static final ReduceOp.Kind[] KINDS =
        { ReduceOp.Kind.SUM, ReduceOp.Kind.PROD, ReduceOp.Kind.MAX, ReduceOp.Kind.MIN, ReduceOp.Kind.PREMULSUM };
    /** 1/n as AVG uses it, exact, negative, truncated, overflowing and wrapping, a binary16 double-rounding trap. */
    private static final double[] SCALARS =
        { 1.0 / 3, 0.125, -2.75, 3.9, 1e10, -1e20, 0x1p63, 1 + 0x1p-11 + 0x1p-40, -0.0, 1.0 };

    private enum Layout
    {
        OUT_OF_PLACE, DST_IS_A, DST_IS_B
    }

    private final ByteBuffer bufferA = allocate();
    private final ByteBuffer bufferB = allocate();
    private final ByteBuffer bufferDst = allocate();

    static Stream<Arguments> typesAndKinds()
    {
        return Arrays.stream(DataType.values())
            .flatMap(type -> Arrays.stream(KINDS).map(kind -> Arguments.of(type, kind)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("typesAndKinds")
    void shouldMatchReferenceWhenReducing(final DataType type, final ReduceOp.Kind kind)
    {
        final Random random = new Random(type.ordinal() * 31L + kind.ordinal());
        for (final double scalar : scalarsOf(kind))
        {
            final HostReducer reducer = HostReducer.of(type, kind, scalar);
            final long scalarBits = ReferenceArithmetic.scalar(type, scalar);
            for (final int count : COUNTS)
            {
                for (final Layout layout : Layout.values())
                {
                    for (int flags = 0; flags < 4; flags++)
                    {
                        final boolean premulA = (flags & 1) != 0;
                        final boolean premulB = (flags & 2) != 0;
                        final long[] a = fill(bufferA, type, random);
                        final long[] b = fill(bufferB, type, random);
                        final ByteBuffer dstBuffer =
                            layout == Layout.DST_IS_A ? bufferA : layout == Layout.DST_IS_B ? bufferB : bufferDst;
                        final long[] expected = layout == Layout.DST_IS_A ? a.clone() :
                            layout == Layout.DST_IS_B ? b.clone() : fill(dstBuffer, type, random);
                        for (int i = 0; i < count; i++)
                        {
                            expected[i] =
                                ReferenceArithmetic.reduce(type, kind, scalarBits, a[i], premulA, b[i], premulB);
                        }

                        reducer.reduce(
                            BufferUtil.address(bufferA), premulA, BufferUtil.address(bufferB), premulB,
                            BufferUtil.address(dstBuffer), count);

                        final String context = reducer + " scalar=" + scalar + " count=" + count + " " + layout +
                            " premulA=" + premulA + " premulB=" + premulB;
                        for (int i = 0; i < count + GUARD; i++)
                        {
                            final long actual = get(dstBuffer, type, i);
                            if (!ReferenceArithmetic.same(type, expected[i], actual))
                            {
                                fail(context + " element " + i + ": a=" + ReferenceArithmetic.describe(type, a[i]) +
                                    " b=" + ReferenceArithmetic.describe(type, b[i]) + " expected " +
                                    ReferenceArithmetic.describe(type, expected[i]) + " but was " +
                                    ReferenceArithmetic.describe(type, actual));
                            }
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("typesAndKinds")
    void shouldMatchReferenceWhenCopying(final DataType type, final ReduceOp.Kind kind)
    {
        final Random random = new Random(type.ordinal() * 37L + kind.ordinal());
        for (final double scalar : scalarsOf(kind))
        {
            final HostReducer reducer = HostReducer.of(type, kind, scalar);
            final long scalarBits = ReferenceArithmetic.scalar(type, scalar);
            for (final int count : COUNTS)
            {
                for (int flags = 0; flags < 4; flags++)
                {
                    final boolean premul = (flags & 1) != 0;
                    final boolean inPlace = (flags & 2) != 0;
                    final boolean multiplies = premul && kind == ReduceOp.Kind.PREMULSUM;
                    final long[] src = fill(bufferA, type, random);
                    final ByteBuffer dstBuffer = inPlace ? bufferA : bufferDst;
                    final long[] expected = inPlace ? src.clone() : fill(dstBuffer, type, random);
                    for (int i = 0; i < count; i++)
                    {
                        expected[i] = multiplies ? ReferenceArithmetic.multiply(type, src[i], scalarBits) : src[i];
                    }

                    reducer.copy(BufferUtil.address(bufferA), premul, BufferUtil.address(dstBuffer), count);

                    for (int i = 0; i < count + GUARD; i++)
                    {
                        final long actual = get(dstBuffer, type, i);
                        // a plain copy keeps every bit, NaN payloads included
                        final boolean same =
                            multiplies ? ReferenceArithmetic.same(type, expected[i], actual) : expected[i] == actual;
                        if (!same)
                        {
                            fail(reducer + " scalar=" + scalar + " count=" + count + " premul=" + premul +
                                " inPlace=" + inPlace + " element " + i + ": src=" +
                                ReferenceArithmetic.describe(type, src[i]) +
                                " expected " + ReferenceArithmetic.describe(type, expected[i]) + " but was " +
                                ReferenceArithmetic.describe(type, actual));
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = { "INT8", "UINT8", "INT32", "UINT32", "INT64", "UINT64" })
    void shouldDivideLikeBigIntegerWhenTypeIsInteger(final DataType type)
    {
        final Random random = new Random(type.ordinal());
        final long[] divisors = { 1, 2, 3, 7, 1000, 1L << 40, -1, -3, -2, Long.MIN_VALUE, Long.MAX_VALUE };
        final HostReducer reducer = HostReducer.of(type, ReduceOp.Kind.SUM, 0);
        for (final long divisor : divisors)
        {
            for (final int count : COUNTS)
            {
                final long[] expected = fill(bufferA, type, random);
                final long[] values = expected.clone();
                for (int i = 0; i < count; i++)
                {
                    expected[i] = ReferenceArithmetic.divide(type, values[i], divisor);
                }

                reducer.divide(BufferUtil.address(bufferA), count, divisor);

                for (int i = 0; i < count + GUARD; i++)
                {
                    assertEquals(
                        expected[i], get(bufferA, type, i),
                        () -> type + " " + ReferenceArithmetic.describe(type, values[0]) + "... / " + divisor +
                            " count=" + count);
                }
            }
        }
    }

    @Test
    void shouldDivideUnsignedWhenValueHasTopBitSet()
    {
        put(bufferA, DataType.UINT8, 0, 0xFF);
        put(bufferA, DataType.UINT8, 1, 0x80);
        HostReducer.of(DataType.UINT8, ReduceOp.Kind.SUM, 0).divide(BufferUtil.address(bufferA), 2, 2);
        assertEquals(0x7F, get(bufferA, DataType.UINT8, 0));
        assertEquals(0x40, get(bufferA, DataType.UINT8, 1));

        put(bufferA, DataType.UINT64, 0, -1L);
        HostReducer.of(DataType.UINT64, ReduceOp.Kind.SUM, 0).divide(BufferUtil.address(bufferA), 1, 3);
        assertEquals(Long.divideUnsigned(-1L, 3), get(bufferA, DataType.UINT64, 0));
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = { "FLOAT16", "FLOAT32", "FLOAT64", "BFLOAT16", "FLOAT8_E4M3",
        "FLOAT8_E5M2" })
    void shouldRejectDivideWhenTypeIsFloating(final DataType type)
    {
        final HostReducer reducer = HostReducer.of(type, ReduceOp.Kind.SUM, 0);
        assertThrows(JcclInvalidArgumentException.class, () -> reducer.divide(BufferUtil.address(bufferA), 1, 2));
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = { "INT8", "UINT64" })
    void shouldRejectDivideWhenDivisorIsZero(final DataType type)
    {
        final HostReducer reducer = HostReducer.of(type, ReduceOp.Kind.SUM, 0);
        assertThrows(JcclInvalidArgumentException.class, () -> reducer.divide(BufferUtil.address(bufferA), 1, 0));
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void shouldRejectAvgWhenAskedForAReducer(final DataType type)
    {
        assertThrows(JcclInvalidArgumentException.class, () -> HostReducer.of(type, ReduceOp.Kind.AVG, 0));
    }

    @Test
    void shouldRejectNullWhenTypeOrKindIsMissing()
    {
        assertThrows(JcclInvalidArgumentException.class, () -> HostReducer.of(null, ReduceOp.Kind.SUM, 0));
        assertThrows(JcclInvalidArgumentException.class, () -> HostReducer.of(DataType.INT8, null, 0));
    }

    @Test
    void shouldRejectScalarWhenItCannotBeConverted()
    {
        assertThrows(
            JcclInvalidArgumentException.class,
            () -> HostReducer.of(DataType.FLOAT32, ReduceOp.Kind.PREMULSUM, Double.NaN));
        assertThrows(
            JcclInvalidArgumentException.class,
            () -> HostReducer.of(DataType.INT32, ReduceOp.Kind.PREMULSUM, Double.POSITIVE_INFINITY));
        assertEquals(
            ReduceOp.Kind.PREMULSUM,
            HostReducer.of(DataType.FLOAT16, ReduceOp.Kind.PREMULSUM, Double.NEGATIVE_INFINITY).kind());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("typesAndKinds")
    void shouldReportTypeAndKindWhenCreated(final DataType type, final ReduceOp.Kind kind)
    {
        final HostReducer reducer = HostReducer.of(type, kind, 0.5);
        assertEquals(type, reducer.type());
        assertEquals(kind, reducer.kind());
        if (kind == ReduceOp.Kind.PREMULSUM)
        {
            assertNotSame(reducer, HostReducer.of(type, kind, 0.5));
        }
        else
        {
            assertSame(reducer, HostReducer.of(type, kind, 7.0));
        }
    }

    @Test
    void shouldFollowFmaxfWhenAnOperandIsNaN()
    {
        putFloats(bufferA, Float.NaN, 1f, Float.NaN, -0f);
        putFloats(bufferB, 2f, Float.NaN, Float.NaN, 0f);
        HostReducer.of(DataType.FLOAT32, ReduceOp.Kind.MAX, 0)
            .reduce(BufferUtil.address(bufferA), false, BufferUtil.address(bufferB), false,
                BufferUtil.address(bufferDst), 4);
        assertEquals(2f, bufferDst.getFloat(0));
        assertEquals(1f, bufferDst.getFloat(4));
        assertEquals(Float.NaN, bufferDst.getFloat(8));
        assertEquals(Float.floatToRawIntBits(0f), Float.floatToRawIntBits(bufferDst.getFloat(12)));
    }

    @Test
    void shouldSaturateWhenE5M2SumOverflowsOrReadsInfinity()
    {
        bufferA.put(0, Float8E5M2.MAX_VALUE).put(1, Float8E5M2.POSITIVE_INFINITY);
        bufferB.put(0, Float8E5M2.MAX_VALUE).put(1, (byte)0);
        HostReducer.of(DataType.FLOAT8_E5M2, ReduceOp.Kind.SUM, 0)
            .reduce(BufferUtil.address(bufferA), false, BufferUtil.address(bufferB), false,
                BufferUtil.address(bufferDst), 2);
        assertEquals(Float8E5M2.MAX_VALUE, bufferDst.get(0));
        assertEquals(Float8E5M2.MAX_VALUE, bufferDst.get(1));
    }

    @Test
    void shouldRoundAfterEveryStepWhenPremultiplyingFloat16()
    {
        // 1/3 rounds to 0x3555 = 0.333251953125; 1 * that is exact, and 0.333251953125 * 2 sums to 0.66650390625
        final short one = Float16.fromFloat(1f);
        bufferA.putShort(0, one);
        bufferB.putShort(0, one);
        HostReducer.of(DataType.FLOAT16, ReduceOp.Kind.PREMULSUM, 1.0 / 3)
            .reduce(BufferUtil.address(bufferA), true, BufferUtil.address(bufferB), true,
                BufferUtil.address(bufferDst), 1);
        assertEquals(0x3955, bufferDst.getShort(0));
        assertEquals(0.66650390625f, Float16.toFloat(bufferDst.getShort(0)));
    }

    @Test
    void shouldCompareUnsignedWhenTypeIsUnsigned()
    {
        bufferA.put(0, (byte)0xFF).put(1, (byte)0x01);
        bufferB.put(0, (byte)0x01).put(1, (byte)0x80);
        HostReducer.of(DataType.UINT8, ReduceOp.Kind.MAX, 0)
            .reduce(BufferUtil.address(bufferA), false, BufferUtil.address(bufferB), false,
                BufferUtil.address(bufferDst), 2);
        assertEquals((byte)0xFF, bufferDst.get(0));
        assertEquals((byte)0x80, bufferDst.get(1));
        HostReducer.of(DataType.INT8, ReduceOp.Kind.MAX, 0)
            .reduce(BufferUtil.address(bufferA), false, BufferUtil.address(bufferB), false,
                BufferUtil.address(bufferDst), 2);
        assertEquals((byte)0x01, bufferDst.get(0));
        assertEquals((byte)0x01, bufferDst.get(1));
    }

    private static double[] scalarsOf(final ReduceOp.Kind kind)
    {
        return kind == ReduceOp.Kind.PREMULSUM ? SCALARS : new double[]{ 0 };
    }

    private static ByteBuffer allocate()
    {
        return ByteBuffer.allocateDirect(CAPACITY * Long.BYTES).order(ByteOrder.nativeOrder());
    }

    private static long[] fill(
        final ByteBuffer buffer, final DataType type, final Random random)
    {
        final long[] values = new long[CAPACITY];
        for (int i = 0; i < CAPACITY; i++)
        {
            values[i] = RandomElements.next(type, random);
            put(buffer, type, i, values[i]);
        }
        return values;
    }

    private static long get(final ByteBuffer buffer, final DataType type, final int index)
    {
        final int offset = index * type.byteSize();
        return switch (type.byteSize())
        {
            case 1 -> buffer.get(offset) & 0xFFL;
            case 2 -> buffer.getShort(offset) & 0xFFFFL;
            case 4 -> buffer.getInt(offset) & 0xFFFF_FFFFL;
            default -> buffer.getLong(offset);
        };
    }

    private static void put(final ByteBuffer buffer, final DataType type, final int index, final long bits)
    {
        final int offset = index * type.byteSize();
        switch (type.byteSize())
        {
            case 1 -> buffer.put(offset, (byte)bits);
            case 2 -> buffer.putShort(offset, (short)bits);
            case 4 -> buffer.putInt(offset, (int)bits);
            default -> buffer.putLong(offset, bits);
        }
    }

    private static void putFloats(final ByteBuffer buffer, final float... values)
    {
        for (int i = 0; i < values.length; i++)
        {
            buffer.putFloat(i * Float.BYTES, values[i]);
        }
    }
}
