package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DataPatternTest
{
    private static final int[] RANK_COUNTS = {1, 2, 3, 5, 8, 17, 64};

    @Test
    void shouldDifferPerRankAndElementWhenIntegers()
    {
        final DataPattern pattern = new DataPattern(DataType.INT32, ReduceOp.Kind.SUM, 8, 1);
        final Set<Long> seen = new HashSet<>();
        for (int rank = 0; rank < 8; rank++)
        {
            for (long index = 0; index < 1000; index++)
            {
                seen.add(pattern.input(rank, index));
            }
        }
        assertTrue(seen.size() > 7990, "inputs repeat: " + seen.size());
        assertNotEquals(new DataPattern(DataType.INT32, ReduceOp.Kind.SUM, 8, 2).input(0, 0), pattern.input(0, 0));
    }

    @Test
    void shouldNeverBeAllZeroWhenAnyTypeAndOp()
    {
        for (final DataType type : DataType.values())
        {
            for (final ReduceOp.Kind kind : kindsAndCopy())
            {
                for (final int nRanks : RANK_COUNTS)
                {
                    final DataPattern pattern = new DataPattern(type, kind, nRanks, 7);
                    int nonZero = 0;
                    for (int rank = 0; rank < nRanks; rank++)
                    {
                        for (long index = 0; index < 64; index++)
                        {
                            nonZero += pattern.input(rank, index) != 0 ? 1 : 0;
                        }
                    }
                    assertTrue(nonZero > 0, type + " " + kind + " n=" + nRanks);
                }
            }
        }
    }

    @Test
    void shouldKeepEveryPartialSumExactWhenFloatingSum()
    {
        for (final DataType type : floatingTypes())
        {
            final ElementCodec codec = ElementCodec.of(type);
            for (final ReduceOp.Kind kind : new ReduceOp.Kind[] {ReduceOp.Kind.SUM, ReduceOp.Kind.AVG,
                ReduceOp.Kind.PREMULSUM})
            {
                for (final int nRanks : RANK_COUNTS)
                {
                    final DataPattern pattern = new DataPattern(type, kind, nRanks, 3);
                    for (long index = 0; index < 200; index++)
                    {
                        double sumAbs = 0;
                        for (int rank = 0; rank < nRanks; rank++)
                        {
                            final double x = pattern.inputValue(rank, index);
                            assertEquals(Math.rint(x), x, "an integer");
                            sumAbs += Math.abs(x);
                        }
                        // every partial sum of integers bounded by the exact range is exact in the type
                        assertTrue(sumAbs <= codec.exactIntegerBound(), type + " " + kind + " n=" + nRanks +
                            " sum|x|=" + sumAbs);
                    }
                }
            }
        }
    }

    @Test
    void shouldUsePowersOfTwoWhenFloatingProd()
    {
        for (final DataType type : floatingTypes())
        {
            for (final int nRanks : RANK_COUNTS)
            {
                final DataPattern pattern = new DataPattern(type, ReduceOp.Kind.PROD, nRanks, 5);
                for (long index = 0; index < 100; index++)
                {
                    int exponentSum = 0;
                    int exponentMax = 0;
                    for (int rank = 0; rank < nRanks; rank++)
                    {
                        final double x = Math.abs(pattern.inputValue(rank, index));
                        assertTrue(x == 1 || x == 2 || x == 0.5, type + " " + x);
                        exponentMax += x == 1 ? 0 : 1;
                        exponentSum += Math.getExponent(x);
                    }
                    assertTrue(exponentMax <= 4, "at most four factors that are not +-1");
                    assertTrue(Math.abs(exponentSum) <= 4);
                }
            }
        }
    }

    @Test
    void shouldNotOverflowWhenIntegerAvg()
    {
        for (final DataType type : new DataType[] {DataType.INT8, DataType.UINT8, DataType.INT32, DataType.UINT32,
            DataType.INT64, DataType.UINT64})
        {
            final ElementCodec codec = ElementCodec.of(type);
            for (final int nRanks : new int[] {1, 2, 3, 8, 64, 200})
            {
                final DataPattern pattern = new DataPattern(type, ReduceOp.Kind.AVG, nRanks, 11);
                for (long index = 0; index < 50; index++)
                {
                    java.math.BigInteger sum = java.math.BigInteger.ZERO;
                    for (int rank = 0; rank < nRanks; rank++)
                    {
                        final long value = codec.toLong(pattern.input(rank, index));
                        sum = sum.add(type.isSigned() || type.byteSize() < 8 ? java.math.BigInteger.valueOf(value) :
                            new java.math.BigInteger(Long.toUnsignedString(value)));
                    }
                    final int bits = 8 * type.byteSize();
                    final java.math.BigInteger max = type.isSigned() ?
                        java.math.BigInteger.ONE.shiftLeft(bits - 1).subtract(java.math.BigInteger.ONE) :
                        java.math.BigInteger.ONE.shiftLeft(bits).subtract(java.math.BigInteger.ONE);
                    assertTrue(sum.abs().compareTo(max) <= 0, type + " n=" + nRanks + " sum=" + sum);
                }
            }
        }
    }

    @Test
    void shouldBeOddWhenIntegerProd()
    {
        final DataPattern pattern = new DataPattern(DataType.UINT8, ReduceOp.Kind.PROD, 4, 1);
        for (long index = 0; index < 100; index++)
        {
            assertEquals(1, pattern.input(2, index) & 1);
        }
    }

    @Test
    void shouldStayFiniteWhenCopyingFloatingBits()
    {
        for (final DataType type : floatingTypes())
        {
            final ElementCodec codec = ElementCodec.of(type);
            final DataPattern pattern = new DataPattern(type, null, 4, 9);
            for (long index = 0; index < 5000; index++)
            {
                assertFalse(codec.isSpecial(pattern.input(1, index)), type + " " + index);
            }
        }
    }

    private static DataType[] floatingTypes()
    {
        return new DataType[] {DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64, DataType.BFLOAT16,
            DataType.FLOAT8_E4M3, DataType.FLOAT8_E5M2};
    }

    private static ReduceOp.Kind[] kindsAndCopy()
    {
        final ReduceOp.Kind[] kinds = ReduceOp.Kind.values();
        final ReduceOp.Kind[] all = java.util.Arrays.copyOf(kinds, kinds.length + 1);
        all[kinds.length] = null;
        return all;
    }
}
