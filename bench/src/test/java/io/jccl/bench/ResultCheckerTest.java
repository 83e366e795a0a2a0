package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checker against outputs computed here with plain int and float loops, then against deliberate damage: a wrong
 * output, a changed input, a write past the end, a write into a block the call must leave alone.
 */
class ResultCheckerTest
{
    private static final int N = 2;

    private final HostBuffer[] sends = new HostBuffer[N];
    private final HostBuffer[] recvs = new HostBuffer[N];
    private final int[] ranks = {0, 1};

    private ResultChecker checker(final BenchTool tool, final DataType type, final ReduceOp.Kind kind,
        final long size, final int root, final boolean inPlace)
    {
        final CollByteCount counts = tool.byteCount(size / type.byteSize(), type.byteSize(), N);
        final DataPattern pattern = new DataPattern(type, kind, N, 1234);
        final ExpectedValues expected = new ExpectedValues(tool, pattern, counts.paramCount(), root, 1.0 / N);
        final ResultChecker checker = new ResultChecker(tool, pattern, expected, counts, root, inPlace);
        for (int r = 0; r < N; r++)
        {
            sends[r] = HostBuffer.allocate(size + ResultChecker.GUARD_BYTES);
            recvs[r] = HostBuffer.allocate(size + ResultChecker.GUARD_BYTES);
            checker.prepare(r, sends[r], recvs[r]);
        }
        return checker;
    }

    private long verify(final ResultChecker checker)
    {
        return checker.verify(ranks, sends, recvs);
    }

    @Test
    void shouldFindNothingWhenAllReduceIsRight()
    {
        final ResultChecker checker = checker(BenchTool.ALL_REDUCE, DataType.INT32, ReduceOp.Kind.SUM, 4096, -1, false);
        for (int r = 0; r < N; r++)
        {
            for (int i = 0; i < 1024; i++)
            {
                recvs[r].byteBuffer().putInt(4 * i, sends[0].byteBuffer().getInt(4 * i) +
                    sends[1].byteBuffer().getInt(4 * i));
            }
        }
        assertEquals(0, verify(checker));
        assertNull(checker.firstMismatch());
    }

    @Test
    void shouldCountEveryElementWhenNothingWasWritten()
    {
        final ResultChecker checker = checker(BenchTool.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 4096, -1,
            false);
        assertEquals(2 * 1024, verify(checker));
        assertNotNull(checker.firstMismatch());
    }

    @Test
    void shouldCountDamageWhenOutputInputOrGuardChanged()
    {
        final ResultChecker checker = checker(BenchTool.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 4096, -1,
            false);
        writeFloatAllReduce();
        assertEquals(0, verify(checker));
        final ByteBuffer recv1 = recvs[1].byteBuffer();
        recv1.putFloat(40, recv1.getFloat(40) + 1);
        assertEquals(1, verify(checker), "a wrong output element");
        recv1.putFloat(40, recv1.getFloat(40) - 1);
        sends[0].byteBuffer().put(7, (byte)(sends[0].byteBuffer().get(7) ^ 0x10));
        assertEquals(1, verify(checker), "a changed input");
        sends[0].byteBuffer().put(7, (byte)(sends[0].byteBuffer().get(7) ^ 0x10));
        recv1.put(4096, (byte)(recv1.get(4096) ^ 1));
        assertEquals(1, verify(checker), "a write just past the end");
        assertTrue(checker.firstMismatch().contains("outside the result"), checker.firstMismatch());
    }

    @Test
    void shouldDemandOtherBlocksIntactWhenReduceScatterInPlace()
    {
        // 2 ranks x 256 floats: in place, each rank's receive allocation holds all 512 inputs, output at rank x 256
        final ResultChecker checker = checker(BenchTool.REDUCE_SCATTER, DataType.FLOAT32, ReduceOp.Kind.SUM, 2048, -1,
            true);
        final float[][] full = new float[N][512];
        for (int r = 0; r < N; r++)
        {
            for (int i = 0; i < 512; i++)
            {
                full[r][i] = recvs[r].byteBuffer().getFloat(4 * i);
            }
        }
        for (int r = 0; r < N; r++)
        {
            for (int k = 0; k < 256; k++)
            {
                recvs[r].byteBuffer().putFloat(4 * (r * 256 + k), full[0][r * 256 + k] + full[1][r * 256 + k]);
            }
        }
        assertEquals(0, verify(checker));
        // rank 0 scribbles on rank 1's block of its own buffer: NCCL never writes there
        recvs[0].byteBuffer().putFloat(4 * 300, 1.0e9f);
        assertEquals(1, verify(checker));
        assertTrue(checker.firstMismatch().contains("input, must be unchanged"), checker.firstMismatch());
    }

    @Test
    void shouldDemandNonRootBufferUntouchedWhenReduce()
    {
        final ResultChecker checker = checker(BenchTool.REDUCE, DataType.INT8, ReduceOp.Kind.MAX, 64, 1, false);
        for (int i = 0; i < 64; i++)
        {
            recvs[1].byteBuffer().put(i, (byte)Math.max(sends[0].byteBuffer().get(i), sends[1].byteBuffer().get(i)));
        }
        assertEquals(0, verify(checker));
        recvs[0].byteBuffer().put(3, (byte)0);
        recvs[0].byteBuffer().put(4, (byte)0);
        assertTrue(verify(checker) >= 1, "the non-root's receive buffer changed");
    }

    @Test
    void shouldAcceptCopiesWhenBroadcastAndAllGather()
    {
        final ResultChecker broadcast = checker(BenchTool.BROADCAST, DataType.FLOAT16, null, 512, 0, true);
        // in place: root's buffer already holds its input; rank 1 receives a copy
        for (int i = 0; i < 256; i++)
        {
            recvs[1].byteBuffer().putShort(2 * i, recvs[0].byteBuffer().getShort(2 * i));
        }
        assertEquals(0, verify(broadcast));

        final ResultChecker gather = checker(BenchTool.ALL_GATHER, DataType.FLOAT64, null, 1024, -1, false);
        for (int r = 0; r < N; r++)
        {
            for (int q = 0; q < N; q++)
            {
                for (int k = 0; k < 64; k++)
                {
                    recvs[r].byteBuffer().putLong(8 * (q * 64 + k), sends[q].byteBuffer().getLong(8 * k));
                }
            }
        }
        assertEquals(0, verify(gather));
        recvs[1].byteBuffer().putLong(8 * 70, 0);
        assertEquals(1, verify(gather));
    }

    @Test
    void shouldAcceptExchangedBlocksWhenAllToAll()
    {
        for (final boolean inPlace : new boolean[] {false, true})
        {
            // 1 KiB of int32 over 2 ranks: 128 elements per peer, both buffers 256
            final ResultChecker checker = checker(BenchTool.ALL_TO_ALL, DataType.INT32, null, 1024, -1, inPlace);
            final HostBuffer[] inputs = inPlace ? recvs : sends;
            final int[][] snapshot = new int[N][256];
            for (int q = 0; q < N; q++)
            {
                for (int e = 0; e < 256; e++)
                {
                    snapshot[q][e] = inputs[q].byteBuffer().getInt(4 * e);
                }
            }
            for (int r = 0; r < N; r++)
            {
                for (int q = 0; q < N; q++)
                {
                    for (int k = 0; k < 128; k++)
                    {
                        recvs[r].byteBuffer().putInt(4 * (q * 128 + k), snapshot[q][r * 128 + k]);
                    }
                }
            }
            assertEquals(0, verify(checker), inPlace ? "in place" : "out of place");
            recvs[1].byteBuffer().putInt(4 * 5, recvs[1].byteBuffer().getInt(4 * 5) ^ 1);
            assertEquals(1, verify(checker));
            assertNotNull(checker.firstMismatch());
        }
    }

    @Test
    void shouldCoverCallAndGuardWhenWindow()
    {
        final ResultChecker checker = checker(BenchTool.ALL_GATHER, DataType.INT32, null, 1024, -1, true);
        assertEquals(1024 + ResultChecker.GUARD_BYTES, checker.windowBytes());
    }

    private void writeFloatAllReduce()
    {
        for (int r = 0; r < N; r++)
        {
            for (int i = 0; i < 1024; i++)
            {
                recvs[r].byteBuffer().putFloat(4 * i, sends[0].byteBuffer().getFloat(4 * i) +
                    sends[1].byteBuffer().getFloat(4 * i));
            }
        }
    }

    @Test
    void shouldCountEveryElementWhenSendRecvShiftsTheWrongWay()
    {
        // two ranks cannot tell the directions apart: three can
        final int n = 3;
        final int count = 256;
        final DataPattern pattern = new DataPattern(DataType.INT32, null, n, 1234);
        final CollByteCount counts = BenchTool.SEND_RECV.byteCount(count, 4, n);
        final ExpectedValues expected = new ExpectedValues(BenchTool.SEND_RECV, pattern, counts.paramCount(), -1, 0);
        final ResultChecker checker = new ResultChecker(BenchTool.SEND_RECV, pattern, expected, counts, -1, false);
        final HostBuffer[] sendAllocs = new HostBuffer[n];
        final HostBuffer[] recvAllocs = new HostBuffer[n];
        for (int r = 0; r < n; r++)
        {
            sendAllocs[r] = HostBuffer.allocate(4L * count + ResultChecker.GUARD_BYTES);
            recvAllocs[r] = HostBuffer.allocate(4L * count + ResultChecker.GUARD_BYTES);
            checker.prepare(r, sendAllocs[r], recvAllocs[r]);
        }
        for (final int shift : new int[] {n - 1, 1})
        {
            for (int r = 0; r < n; r++)
            {
                // receive from rank r + shift: n - 1 is the previous rank, as the ring shift says
                final ByteBuffer from = sendAllocs[(r + shift) % n].byteBuffer();
                for (int i = 0; i < count; i++)
                {
                    recvAllocs[r].byteBuffer().putInt(4 * i, from.getInt(4 * i));
                }
            }
            assertEquals(shift == 1 ? (long)n * count : 0, checker.verify(new int[] {0, 1, 2}, sendAllocs, recvAllocs),
                "shift " + shift);
        }
    }

    @Test
    void shouldCountNonRootWriteWhenGatherOrScatter()
    {
        // gather: rank 1 (not the root) must leave its receive buffer alone
        final ResultChecker gather = checker(BenchTool.GATHER, DataType.INT32, null, 1024, 0, false);
        for (int q = 0; q < N; q++)
        {
            for (int i = 0; i < 128; i++)
            {
                recvs[0].byteBuffer().putInt(4 * (128 * q + i), sends[q].byteBuffer().getInt(4 * i));
            }
        }
        assertEquals(0, verify(gather));
        recvs[1].byteBuffer().putInt(0, recvs[1].byteBuffer().getInt(0) ^ 1);
        assertEquals(1, verify(gather));
        // scatter from root 1: rank 0 receives the root's block 0, and its own send buffer is the guard's
        final ResultChecker scatter = checker(BenchTool.SCATTER, DataType.INT32, null, 1024, 1, false);
        for (int r = 0; r < N; r++)
        {
            for (int i = 0; i < 128; i++)
            {
                recvs[r].byteBuffer().putInt(4 * i, sends[1].byteBuffer().getInt(4 * (128 * r + i)));
            }
        }
        assertEquals(0, verify(scatter));
        sends[0].byteBuffer().putInt(8, sends[0].byteBuffer().getInt(8) ^ 1);
        assertEquals(1, verify(scatter));
    }
}
