package io.jccl.testkit;

import io.jccl.Algorithm;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.jccl.testkit.ElementBuffers.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Self-tests of the reference collectives: reduction orders written out, and hand-computed results. */
class ReferenceCollectivesTest
{
    @Test
    void shouldFoldRoundTheRingWhenOrderIsRing()
    {
        assertEquals("((x1+x2)+x0)", ReductionOrder.ring(1, 3).toString());
        assertEquals("(((x3+x0)+x1)+x2)", ReductionOrder.ring(3, 4).toString());
        assertEquals("x0", ReductionOrder.ring(1, 1).toString());
    }

    @Test
    void shouldNestSubtreesWhenOrderIsTree()
    {
        assertEquals("x0", ReductionOrder.tree(0, 1).toString());
        assertEquals("(x1+x0)", ReductionOrder.tree(0, 2).toString());
        assertEquals("((x1+x0)+x2)", ReductionOrder.tree(0, 3).toString());
        assertEquals("((((x3+x1)+x4)+x0)+x2)", ReductionOrder.tree(0, 5).toString());
        // root 2 of 5: virtual v is real (v + 2) % 5
        assertEquals("((((x0+x3)+x1)+x2)+x4)", ReductionOrder.tree(2, 5).toString());
        assertEquals("(((((x7+x3)+x1)+x4)+x0)+((x5+x2)+x6))", ReductionOrder.tree(0, 8).toString());
    }

    @Test
    void shouldFoldInRankOrderNewestLeftWhenOrderIsDirect()
    {
        assertEquals("x0", ReductionOrder.direct(1).toString());
        assertEquals(ReductionOrder.tree(0, 2).toString(), ReductionOrder.direct(2).toString());
        assertEquals("(x3+(x2+(x1+x0)))", ReductionOrder.direct(4).toString());
    }

    @Test
    void shouldSplitSegmentsByFloorWhenCountNotDivisible()
    {
        assertEquals(0, ReductionOrder.segmentStart(7, 3, 0));
        assertEquals(2, ReductionOrder.segmentStart(7, 3, 1));
        assertEquals(4, ReductionOrder.segmentStart(7, 3, 2));
        assertEquals(7, ReductionOrder.segmentStart(7, 3, 3));
        assertEquals(0, ReductionOrder.segmentStart(1, 5, 4));
        assertEquals(1, ReductionOrder.segmentStart(1, 5, 5));
    }

    @Test
    void shouldSumEachRingSegmentInItsOwnOrderWhenFloat()
    {
        // each rank's 3 elements are equal; segment k starts at rank k+1 and ends at rank k
        final ByteBuffer[] in = floats(new float[][]{{1e8f, 1e8f, 1e8f}, {1f, 1f, 1f}, {-1e8f, -1e8f, -1e8f}});
        final ByteBuffer out = ReferenceCollectives.allReduce(Algorithm.RING, in, 3, DataType.FLOAT32, ReduceOp.SUM);
        assertEquals(0f, out.getFloat(0)); // (1 + -1e8) + 1e8: 1 is lost
        assertEquals(1f, out.getFloat(4)); // (-1e8 + 1e8) + 1
        assertEquals(0f, out.getFloat(8)); // (1e8 + 1) + -1e8
    }

    @Test
    void shouldSumInTreeOrderWhenTree()
    {
        // tree(0, 3) = (x1 + x0) + x2
        final ByteBuffer[] in = floats(new float[][]{{1f}, {1e8f}, {-1e8f}});
        assertEquals(0f, ReferenceCollectives.allReduce(Algorithm.TREE, in, 1, DataType.FLOAT32, ReduceOp.SUM)
            .getFloat(0));
        final ByteBuffer[] in2 = floats(new float[][]{{-1e8f}, {1e8f}, {1f}});
        assertEquals(1f, ReferenceCollectives.allReduce(Algorithm.TREE, in2, 1, DataType.FLOAT32, ReduceOp.SUM)
            .getFloat(0));
    }

    @Test
    void shouldEndWithRootWhenRingReduce()
    {
        // ring reduce, root 2 of 3: (x0 + x1) + x2
        final ByteBuffer[] in = floats(new float[][]{{1e8f}, {-1e8f}, {1f}});
        assertEquals(1f, ReferenceCollectives.reduce(Algorithm.RING, in, 1, DataType.FLOAT32, ReduceOp.SUM, 2)
            .getFloat(0));
        // root 0: (x1 + x2) + x0 = (-1e8 + 1) + 1e8 = 0
        assertEquals(0f, ReferenceCollectives.reduce(Algorithm.RING, in, 1, DataType.FLOAT32, ReduceOp.SUM, 0)
            .getFloat(0));
    }

    @Test
    void shouldMatchAllReduceSegmentWhenReduceScatter()
    {
        final ByteBuffer[] in = floats(new float[][]{{1e8f, 1e8f, 1e8f}, {1f, 1f, 1f}, {-1e8f, -1e8f, -1e8f}});
        final ByteBuffer out = ReferenceCollectives.reduceScatter(Algorithm.TREE, in, 1, DataType.FLOAT32,
            ReduceOp.SUM);
        assertEquals(0f, out.getFloat(0));
        assertEquals(1f, out.getFloat(4));
        assertEquals(0f, out.getFloat(8));
    }

    @Test
    void shouldWrapWhenIntegerSumOverflows()
    {
        final ByteBuffer[] in = bytes(new int[][]{{127, 200}, {1, 100}});
        final ByteBuffer out = ReferenceCollectives.allReduce(Algorithm.RING, in, 2, DataType.INT8, ReduceOp.SUM);
        assertEquals((byte)-128, out.get(0));
        assertEquals((byte)44, out.get(1));
        final ByteBuffer prod = ReferenceCollectives.allReduce(Algorithm.RING, in, 2, DataType.UINT8, ReduceOp.PROD);
        assertEquals((byte)127, prod.get(0));
        assertEquals((byte)(20000 & 0xff), prod.get(1));
    }

    @Test
    void shouldDivideWrappedSumWhenIntegerAvg()
    {
        final ByteBuffer[] in = bytes(new int[][]{{200, 0xfe}, {100, 0x01}});
        // UINT8: (200 + 100) mod 256 = 44, / 2 = 22; 0xff / 2 = 127
        final ByteBuffer unsigned = ReferenceCollectives.allReduce(Algorithm.RING, in, 2, DataType.UINT8,
            ReduceOp.AVG);
        assertEquals(22, unsigned.get(0) & 0xff);
        assertEquals(127, unsigned.get(1) & 0xff);
        // INT8: 44 / 2 = 22; -1 / 2 = 0 (truncation)
        final ByteBuffer signed = ReferenceCollectives.allReduce(Algorithm.RING, in, 2, DataType.INT8, ReduceOp.AVG);
        assertEquals(22, signed.get(0));
        assertEquals(0, signed.get(1));
        final ByteBuffer[] ints = ints(new int[][]{{-3}, {0}, {-4}});
        assertEquals(-2, ReferenceCollectives.allReduce(Algorithm.TREE, ints, 1, DataType.INT32, ReduceOp.AVG)
            .getInt(0));
        assertEquals(Integer.divideUnsigned(-7, 3), ReferenceCollectives.allReduce(Algorithm.TREE, ints, 1,
            DataType.UINT32, ReduceOp.AVG).getInt(0));
        final ByteBuffer[] longs = longs(new long[][]{{-1L}, {-1L}});
        assertEquals(Long.divideUnsigned(-2L, 2), ReferenceCollectives.allReduce(Algorithm.RING, longs, 1,
            DataType.UINT64, ReduceOp.AVG).getLong(0));
        assertEquals(-1L, ReferenceCollectives.allReduce(Algorithm.RING, longs, 1, DataType.INT64, ReduceOp.AVG)
            .getLong(0));
    }

    @Test
    void shouldCompareBySignednessWhenIntegerMaxMin()
    {
        final ByteBuffer[] in = ints(new int[][]{{-1}, {1}});
        assertEquals(1, ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.INT32, ReduceOp.MAX)
            .getInt(0));
        assertEquals(-1, ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.UINT32, ReduceOp.MAX)
            .getInt(0));
        assertEquals(1, ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.UINT32, ReduceOp.MIN)
            .getInt(0));
        final ByteBuffer[] longs = longs(new long[][]{{Long.MIN_VALUE}, {Long.MAX_VALUE}});
        assertEquals(Long.MIN_VALUE, ReferenceCollectives.allReduce(Algorithm.TREE, longs, 1, DataType.UINT64,
            ReduceOp.MAX).getLong(0));
        assertEquals(Long.MIN_VALUE, ReferenceCollectives.allReduce(Algorithm.TREE, longs, 1, DataType.INT64,
            ReduceOp.MIN).getLong(0));
    }

    @Test
    void shouldYieldOtherOperandWhenMaxMinMeetsNaN()
    {
        final ByteBuffer[] in = floats(new float[][]{{Float.NaN, Float.NaN, -0f, 0f}, {1f, Float.NaN, 0f, -0f}});
        final ByteBuffer max = ReferenceCollectives.allReduce(Algorithm.RING, in, 4, DataType.FLOAT32, ReduceOp.MAX);
        assertEquals(1f, max.getFloat(0));
        assertTrue(Float.isNaN(max.getFloat(4)));
        assertEquals(0, Float.floatToRawIntBits(max.getFloat(8)));
        assertEquals(0, Float.floatToRawIntBits(max.getFloat(12)));
        final ByteBuffer min = ReferenceCollectives.allReduce(Algorithm.RING, in, 4, DataType.FLOAT32, ReduceOp.MIN);
        assertEquals(1f, min.getFloat(0));
        assertEquals(0x8000_0000, Float.floatToRawIntBits(min.getFloat(8)));
        assertEquals(0x8000_0000, Float.floatToRawIntBits(min.getFloat(12)));
        final ByteBuffer[] halves = shorts(new int[][]{{0x7e00}, {0xbc00}});
        assertEquals((short)0xbc00, ReferenceCollectives.allReduce(Algorithm.TREE, halves, 1, DataType.FLOAT16,
            ReduceOp.MIN).getShort(0));
    }

    @Test
    void shouldTruncateScalarWhenPreMulSumOnIntegers()
    {
        final ByteBuffer[] in = bytes(new int[][]{{100}, {3}});
        // s = 2.5 -> 2: 200 wraps to -56, plus 6 = -50
        assertEquals(-50, ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.INT8,
            ReduceOp.preMulSum(2.5)).get(0));
        // s = -1.7 -> -1
        assertEquals(-103, ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.INT8,
            ReduceOp.preMulSum(-1.7)).get(0));
        // s = 300 wraps to 44 in 8 bits
        assertEquals((byte)(100 * 44 + 3 * 44), ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.INT8,
            ReduceOp.preMulSum(300)).get(0));
    }

    @Test
    void shouldRoundEachProductWhenPreMulSumOnFloats()
    {
        // ring(1, 2): pre(x1) + pre(x0), each pre rounded to float, then the sum
        final float x0 = 0.1f;
        final float x1 = 0.7f;
        final float s = (float)(1.0 / 3);
        final ByteBuffer[] in = floats(new float[][]{{x0}, {x1}});
        assertEquals(x1 * s + x0 * s, ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.FLOAT32,
            ReduceOp.preMulSum(1.0 / 3)).getFloat(0));
        // AVG on floats is PreMulSum(1/n)
        assertEquals(x1 * 0.5f + x0 * 0.5f, ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.FLOAT32,
            ReduceOp.AVG).getFloat(0));
        final ByteBuffer[] doubles = doubles(new double[][]{{0.1}, {0.7}, {0.3}});
        assertEquals((0.7 * (1.0 / 3) + 0.3 * (1.0 / 3)) + 0.1 * (1.0 / 3), ReferenceCollectives.allReduce(
            Algorithm.RING, doubles, 1, DataType.FLOAT64, ReduceOp.AVG).getDouble(0), 0.0);
    }

    @Test
    void shouldRoundAfterEveryStepWhenHalf()
    {
        // 2048 + 1 + 1 in half: each 1 is lost alone (2049 rounds to 2048), so the order decides
        final int h2048 = half(2048);
        final int h1 = half(1);
        final ByteBuffer[] in = shorts(new int[][]{{h2048, h2048, h2048}, {h1, h1, h1}, {h1, h1, h1}});
        // element 0 is in ring segment 0, ring(1, 3): (1 + 1) + 2048 = 2050
        assertEquals(half(2050), ReferenceCollectives.allReduce(Algorithm.RING, in, 3, DataType.FLOAT16,
            ReduceOp.SUM).getShort(0) & 0xffff);
        // tree(0, 3): (x1 + x0) + x2 = (1 + 2048) + 1 = 2048
        assertEquals(half(2048), ReferenceCollectives.allReduce(Algorithm.TREE, in, 3, DataType.FLOAT16,
            ReduceOp.SUM).getShort(0) & 0xffff);
        // AVG on half: s_T = half(1/3) = 0x3555, each pre rounded to half; ring(1, 3) = (p1 + p2) + p0
        final float third = NarrowFloat.FLOAT16.toFloat(0x3555);
        final int p0 = NarrowFloat.FLOAT16.fromFloat(2048 * third);
        final int p1 = NarrowFloat.FLOAT16.fromFloat(1 * third);
        final float p2 = NarrowFloat.FLOAT16.toFloat(p1);
        final int sum = NarrowFloat.FLOAT16.fromFloat(NarrowFloat.FLOAT16.toFloat(
            NarrowFloat.FLOAT16.fromFloat(p2 + p2)) + NarrowFloat.FLOAT16.toFloat(p0));
        assertEquals(sum, ReferenceCollectives.allReduce(Algorithm.RING, in, 3, DataType.FLOAT16, ReduceOp.AVG)
            .getShort(0) & 0xffff);
    }

    @Test
    void shouldSaturateWhenFp8SumOverflows()
    {
        final ByteBuffer[] in = bytes(new int[][]{{0x7e}, {0x7e}});
        assertEquals(0x7e, ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.FLOAT8_E4M3, ReduceOp.SUM)
            .get(0) & 0xff);
        final ByteBuffer[] e5 = bytes(new int[][]{{0x7b}, {0x7b}});
        assertEquals(0x7b, ReferenceCollectives.allReduce(Algorithm.RING, e5, 1, DataType.FLOAT8_E5M2, ReduceOp.SUM)
            .get(0) & 0xff);
    }

    @Test
    void shouldApplyPreWhenSingleRank()
    {
        final ByteBuffer[] in = floats(new float[][]{{3f}});
        assertEquals(7.5f, ReferenceCollectives.allReduce(Algorithm.TREE, in, 1, DataType.FLOAT32,
            ReduceOp.preMulSum(2.5)).getFloat(0));
        assertEquals(3f, ReferenceCollectives.allReduce(Algorithm.RING, in, 1, DataType.FLOAT32, ReduceOp.AVG)
            .getFloat(0));
        final ByteBuffer[] ints = ints(new int[][]{{-7}});
        assertEquals(-7, ReferenceCollectives.reduce(Algorithm.RING, ints, 1, DataType.INT32, ReduceOp.AVG, 0)
            .getInt(0));
    }

    @Test
    void shouldConcatenateInRankOrderWhenAllGather()
    {
        final ByteBuffer[] in = ints(new int[][]{{1, 2}, {3, 4}, {5, 6}});
        final ByteBuffer out = ReferenceCollectives.allGather(in, 2, DataType.INT32);
        for (int i = 0; i < 6; i++)
        {
            assertEquals(i + 1, get(out, i, DataType.INT32));
        }
        final ByteBuffer b = ReferenceCollectives.broadcast(in, 2, DataType.INT32, 1);
        assertEquals(3, b.getInt(0));
        assertEquals(4, b.getInt(4));
    }

    private static int half(final float value)
    {
        return NarrowFloat.FLOAT16.fromFloat(value);
    }

    static ByteBuffer[] floats(final float[][] values)
    {
        final ByteBuffer[] out = new ByteBuffer[values.length];
        for (int r = 0; r < values.length; r++)
        {
            out[r] = ElementBuffers.allocate(values[r].length, DataType.FLOAT32);
            for (int i = 0; i < values[r].length; i++)
            {
                out[r].putFloat(4 * i, values[r][i]);
            }
        }
        return out;
    }

    static ByteBuffer[] doubles(final double[][] values)
    {
        final ByteBuffer[] out = new ByteBuffer[values.length];
        for (int r = 0; r < values.length; r++)
        {
            out[r] = ElementBuffers.allocate(values[r].length, DataType.FLOAT64);
            for (int i = 0; i < values[r].length; i++)
            {
                out[r].putDouble(8 * i, values[r][i]);
            }
        }
        return out;
    }

    static ByteBuffer[] bytes(final int[][] values)
    {
        final ByteBuffer[] out = new ByteBuffer[values.length];
        for (int r = 0; r < values.length; r++)
        {
            out[r] = ElementBuffers.allocate(values[r].length, DataType.INT8);
            for (int i = 0; i < values[r].length; i++)
            {
                out[r].put(i, (byte)values[r][i]);
            }
        }
        return out;
    }

    static ByteBuffer[] shorts(final int[][] values)
    {
        final ByteBuffer[] out = new ByteBuffer[values.length];
        for (int r = 0; r < values.length; r++)
        {
            out[r] = ElementBuffers.allocate(values[r].length, DataType.FLOAT16);
            for (int i = 0; i < values[r].length; i++)
            {
                out[r].putShort(2 * i, (short)values[r][i]);
            }
        }
        return out;
    }

    static ByteBuffer[] ints(final int[][] values)
    {
        final ByteBuffer[] out = new ByteBuffer[values.length];
        for (int r = 0; r < values.length; r++)
        {
            out[r] = ElementBuffers.allocate(values[r].length, DataType.INT32);
            for (int i = 0; i < values[r].length; i++)
            {
                out[r].putInt(4 * i, values[r][i]);
            }
        }
        return out;
    }

    static ByteBuffer[] longs(final long[][] values)
    {
        final ByteBuffer[] out = new ByteBuffer[values.length];
        for (int r = 0; r < values.length; r++)
        {
            out[r] = ElementBuffers.allocate(values[r].length, DataType.INT64);
            for (int i = 0; i < values[r].length; i++)
            {
                out[r].putLong(8 * i, values[r][i]);
            }
        }
        return out;
    }
}
