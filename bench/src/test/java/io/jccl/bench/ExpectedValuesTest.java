package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Expected values against arithmetic written out independently here: Java's own int, byte and float types, and
 * simulations of jccl's rounding in several reduction orders.
 */
class ExpectedValuesTest
{
    private static ExpectedValues expected(final BenchTool tool, final DataType type, final ReduceOp.Kind kind,
        final int nRanks, final long block, final int root)
    {
        return new ExpectedValues(tool, new DataPattern(type, kind, nRanks, 42), block, root, 1.0 / nRanks);
    }

    @Test
    void shouldWrapAroundWhenInt32Sum()
    {
        final DataPattern pattern = new DataPattern(DataType.INT32, ReduceOp.Kind.SUM, 3, 42);
        final ExpectedValues expected = expected(BenchTool.ALL_REDUCE, DataType.INT32, ReduceOp.Kind.SUM, 3, 0, -1);
        assertEquals(ExpectedValues.Comparison.BITS, expected.comparison());
        for (long j = 0; j < 100; j++)
        {
            int sum = 0;
            for (int r = 0; r < 3; r++)
            {
                sum += (int)pattern.input(r, j);
            }
            assertEquals(sum & 0xFFFF_FFFFL, expected.expectedBits(j));
        }
    }

    @Test
    void shouldCompareUnsignedWhenUint8Max()
    {
        final DataPattern pattern = new DataPattern(DataType.UINT8, ReduceOp.Kind.MAX, 4, 42);
        final ExpectedValues expected = expected(BenchTool.ALL_REDUCE, DataType.UINT8, ReduceOp.Kind.MAX, 4, 0, -1);
        for (long j = 0; j < 100; j++)
        {
            int max = 0;
            for (int r = 0; r < 4; r++)
            {
                max = Math.max(max, (int)pattern.input(r, j) & 0xFF);
            }
            assertEquals(max, expected.expectedBits(j));
        }
    }

    @Test
    void shouldCompareUnsignedWhenUint64Min()
    {
        final DataPattern pattern = new DataPattern(DataType.UINT64, ReduceOp.Kind.MIN, 3, 42);
        final ExpectedValues expected = expected(BenchTool.REDUCE, DataType.UINT64, ReduceOp.Kind.MIN, 3, 0, 1);
        for (long j = 0; j < 100; j++)
        {
            long min = -1L;
            for (int r = 0; r < 3; r++)
            {
                final long x = pattern.input(r, j);
                min = Long.compareUnsigned(x, min) < 0 ? x : min;
            }
            assertEquals(min, expected.expectedBits(j));
        }
    }

    @Test
    void shouldTruncateTowardZeroWhenInt8Avg()
    {
        final DataPattern pattern = new DataPattern(DataType.INT8, ReduceOp.Kind.AVG, 3, 42);
        final ExpectedValues expected = expected(BenchTool.ALL_REDUCE, DataType.INT8, ReduceOp.Kind.AVG, 3, 0, -1);
        boolean sawNegative = false;
        for (long j = 0; j < 200; j++)
        {
            byte sum = 0;
            for (int r = 0; r < 3; r++)
            {
                sum += (byte)pattern.input(r, j);
            }
            final byte avg = (byte)(sum / 3);
            sawNegative |= sum < 0 && sum % 3 != 0;
            assertEquals(avg & 0xFF, expected.expectedBits(j));
        }
        assertTrue(sawNegative, "the pattern exercises truncation of negative sums");
    }

    @Test
    void shouldTruncateScalarWhenIntegerPreMulSum()
    {
        final ExpectedValues twoRanks = expected(BenchTool.ALL_REDUCE, DataType.INT32, ReduceOp.Kind.PREMULSUM, 2, 0,
            -1);
        assertEquals(0, twoRanks.expectedBits(5), "1/2 truncates to 0 in int32");
        final DataPattern pattern = new DataPattern(DataType.INT32, ReduceOp.Kind.PREMULSUM, 1, 42);
        final ExpectedValues oneRank = expected(BenchTool.ALL_REDUCE, DataType.INT32, ReduceOp.Kind.PREMULSUM, 1, 0,
            -1);
        assertEquals(pattern.input(0, 5), oneRank.expectedBits(5));
    }

    @Test
    void shouldBeExactInAnyOrderWhenFloatSum()
    {
        final DataPattern pattern = new DataPattern(DataType.FLOAT32, ReduceOp.Kind.SUM, 5, 42);
        final ExpectedValues expected = expected(BenchTool.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 5, 0, -1);
        assertEquals(ExpectedValues.Comparison.VALUE, expected.comparison());
        for (long j = 0; j < 100; j++)
        {
            float forward = 0;
            float backward = 0;
            for (int r = 0; r < 5; r++)
            {
                forward += Float.intBitsToFloat((int)pattern.input(r, j));
                backward += Float.intBitsToFloat((int)pattern.input(4 - r, j));
            }
            assertEquals(forward, backward);
            assertEquals(forward, expected.expectedValue(j));
        }
    }

    @Test
    void shouldBeExactInAnyOrderWhenNarrowFloatSumOrProd()
    {
        for (final DataType type : new DataType[] {DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT8_E4M3,
            DataType.FLOAT8_E5M2})
        {
            for (final ReduceOp.Kind kind : new ReduceOp.Kind[] {ReduceOp.Kind.SUM, ReduceOp.Kind.PROD,
                ReduceOp.Kind.MIN, ReduceOp.Kind.MAX})
            {
                for (final int nRanks : new int[] {2, 3, 8, 13})
                {
                    final ElementCodec codec = ElementCodec.of(type);
                    final DataPattern pattern = new DataPattern(type, kind, nRanks, 42);
                    final ExpectedValues expected = expected(BenchTool.ALL_REDUCE, type, kind, nRanks, 0, -1);
                    for (long j = 0; j < 50; j++)
                    {
                        for (final int[] order : orders(nRanks))
                        {
                            final double result = simulate(codec, pattern, kind, nRanks, j, order, 1.0);
                            assertEquals(expected.expectedValue(j), result, type + " " + kind + " n=" + nRanks);
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldToleratePerStepRoundingWhenFloatingAvg()
    {
        for (final DataType type : new DataType[] {DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64,
            DataType.BFLOAT16, DataType.FLOAT8_E4M3, DataType.FLOAT8_E5M2})
        {
            for (final ReduceOp.Kind kind : new ReduceOp.Kind[] {ReduceOp.Kind.AVG, ReduceOp.Kind.PREMULSUM})
            {
                for (final int nRanks : new int[] {2, 3, 5, 7, 8, 64})
                {
                    final ElementCodec codec = ElementCodec.of(type);
                    final DataPattern pattern = new DataPattern(type, kind, nRanks, 42);
                    final ExpectedValues expected = expected(BenchTool.ALL_REDUCE, type, kind, nRanks, 0, -1);
                    assertEquals(ExpectedValues.Comparison.TOLERANCE, expected.comparison());
                    final double scalar = codec.toDouble(codec.fromDouble(1.0 / nRanks));
                    for (long j = 0; j < 50; j++)
                    {
                        final double want = expected.expectedValue(j);
                        final double tolerance = expected.tolerance(j);
                        for (final int[] order : orders(nRanks))
                        {
                            final double got = simulate(codec, pattern, ReduceOp.Kind.PREMULSUM, nRanks, j, order,
                                scalar);
                            assertTrue(Math.abs(got - want) <= tolerance, type + " " + kind + " n=" + nRanks +
                                " want " + want + " +- " + tolerance + " got " + got);
                        }
                        // and the tolerance is tight enough to catch a sum that missed a rank
                        double sumAbs = 0;
                        for (int r = 0; r < nRanks; r++)
                        {
                            sumAbs += Math.abs(pattern.inputValue(r, j));
                        }
                        if (codec.mantissaBits() >= 7)
                        {
                            assertTrue(tolerance < 0.3 * sumAbs / nRanks || sumAbs == 0,
                                type + " tolerance " + tolerance + " for mean magnitude " + sumAbs / nRanks);
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldTakeBlockOfEachRankWhenAllGather()
    {
        final DataPattern pattern = new DataPattern(DataType.FLOAT64, null, 4, 42);
        final ExpectedValues expected = new ExpectedValues(BenchTool.ALL_GATHER, pattern, 10, -1, 0);
        assertEquals(ExpectedValues.Comparison.BITS, expected.comparison());
        assertEquals(pattern.input(0, 3), expected.expectedBits(3));
        assertEquals(pattern.input(2, 7), expected.expectedBits(27));
        assertEquals(pattern.input(3, 9), expected.expectedBits(39));
    }

    @Test
    void shouldTakeOwnBlockOfEachPeerWhenAllToAll()
    {
        final DataPattern pattern = new DataPattern(DataType.INT32, null, 3, 42);
        final ExpectedValues expected = new ExpectedValues(BenchTool.ALL_TO_ALL, pattern, 4, -1, 0);
        // rank r's receive buffer holds 3 blocks of 4: block q is rank q's send block r
        assertEquals(pattern.input(0, 1), expected.expectedBits(1));          // r=0, q=0, k=1
        assertEquals(pattern.input(2, 3), expected.expectedBits(11));         // r=0, q=2, k=3
        assertEquals(pattern.input(0, 4 + 2), expected.expectedBits(12 + 2)); // r=1, q=0, k=2
        assertEquals(pattern.input(1, 8), expected.expectedBits(24 + 4));     // r=2, q=1, k=0
        assertEquals(pattern.input(2, 11), expected.expectedBits(35));        // r=2, q=2, k=3
    }

    @Test
    void shouldTakePreviousRankWhenSendRecv()
    {
        final DataPattern pattern = new DataPattern(DataType.INT32, null, 3, 42);
        final ExpectedValues expected = new ExpectedValues(BenchTool.SEND_RECV, pattern, 5, -1, 0);
        // rank r's element k is g = 5 r + k and comes from rank r - 1 (rank 0's from rank 2)
        assertEquals(pattern.input(2, 1), expected.expectedBits(1));
        assertEquals(pattern.input(0, 4), expected.expectedBits(9));
        assertEquals(pattern.input(1, 0), expected.expectedBits(10));
    }

    @Test
    void shouldGatherLikeAllGatherWhenHypercubeOrGatherAndTakeRootBlockWhenScatter()
    {
        final DataPattern pattern = new DataPattern(DataType.UINT8, null, 4, 42);
        for (final BenchTool tool : new BenchTool[] {BenchTool.HYPERCUBE, BenchTool.GATHER})
        {
            final ExpectedValues expected = new ExpectedValues(tool, pattern, 10, 1, 0);
            assertEquals(pattern.input(0, 3), expected.expectedBits(3), tool.toolName());
            assertEquals(pattern.input(3, 9), expected.expectedBits(39), tool.toolName());
        }
        // scatter from root 1: rank 2's element 4 is the root's element 2 x 10 + 4
        final ExpectedValues scatter = new ExpectedValues(BenchTool.SCATTER, pattern, 10, 1, 0);
        assertEquals(pattern.input(1, 24), scatter.expectedBits(24));
    }

    @Test
    void shouldCopyRootWhenBroadcast()
    {
        final DataPattern pattern = new DataPattern(DataType.INT8, null, 4, 42);
        final ExpectedValues expected = new ExpectedValues(BenchTool.BROADCAST, pattern, 0, 2, 0);
        for (long j = 0; j < 20; j++)
        {
            assertEquals(pattern.input(2, j), expected.expectedBits(j));
        }
    }

    @Test
    void shouldReduceFullVectorIndexWhenReduceScatter()
    {
        final DataPattern pattern = new DataPattern(DataType.INT64, ReduceOp.Kind.SUM, 2, 42);
        final ExpectedValues expected = new ExpectedValues(BenchTool.REDUCE_SCATTER, pattern, 8, -1, 0);
        // rank 1's element 3 is element 8 + 3 of every rank's send buffer
        assertEquals(pattern.input(0, 11) + pattern.input(1, 11), expected.expectedBits(11));
    }

    private static int[][] orders(final int nRanks)
    {
        final int[] forward = new int[nRanks];
        final int[] backward = new int[nRanks];
        final int[] interleaved = new int[nRanks];
        for (int i = 0; i < nRanks; i++)
        {
            forward[i] = i;
            backward[i] = nRanks - 1 - i;
            interleaved[i] = (i * 2 + 1) % nRanks == i ? i : i % 2 == 0 ? i / 2 : nRanks - 1 - i / 2;
        }
        return new int[][] {forward, backward, interleaved};
    }

    /** jccl's contract: compute in double/float, round to the element type after every step. */
    private static double simulate(final ElementCodec codec, final DataPattern pattern, final ReduceOp.Kind kind,
        final int nRanks, final long index, final int[] order, final double scalar)
    {
        double acc = 0;
        boolean first = true;
        final boolean[] used = new boolean[nRanks];
        for (final int r : order)
        {
            if (used[r])
            {
                continue;
            }
            used[r] = true;
            double x = pattern.inputValue(r, index);
            if (kind == ReduceOp.Kind.PREMULSUM)
            {
                x = round(codec, x * scalar);
            }
            if (first)
            {
                acc = x;
                first = false;
                continue;
            }
            acc = round(codec, switch (kind)
            {
                case SUM, AVG, PREMULSUM -> acc + x;
                case PROD -> acc * x;
                case MAX -> Math.max(acc, x);
                case MIN -> Math.min(acc, x);
            });
        }
        for (int r = 0; r < nRanks; r++)
        {
            if (!used[r])
            {
                double x = pattern.inputValue(r, index);
                if (kind == ReduceOp.Kind.PREMULSUM)
                {
                    x = round(codec, x * scalar);
                }
                acc = round(codec, switch (kind)
                {
                    case SUM, AVG, PREMULSUM -> acc + x;
                    case PROD -> acc * x;
                    case MAX -> Math.max(acc, x);
                    case MIN -> Math.min(acc, x);
                });
            }
        }
        return acc;
    }

    private static double round(final ElementCodec codec, final double value)
    {
        return codec.toDouble(codec.fromDouble(value));
    }
}
