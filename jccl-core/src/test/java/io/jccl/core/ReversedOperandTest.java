package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.kernels.cuda.EmulatedCuda;
import io.jccl.testkit.ElementBuffers;
import io.jccl.testkit.NarrowFloat;
import io.jccl.testkit.ReferenceArithmetic;
import io.jccl.testkit.ReferenceCollectives;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two ranks' AllReduce (the tree's exchange, the direct program) where rank 1 reduces with its own input first in
 * one step ({@code rrcr}): every rank's output is {@code op(x1, x0)} bit for bit, for every type and op, on inputs
 * that pair every special value with every other (signed zeros, NaNs with different payloads and signs, infinities,
 * subnormals), so an operand order that differs anywhere shows; on the host executor and on the CUDA interpreter
 * (its Java model, SIMPLE and LL), in place and not.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReversedOperandTest
{
    private static final EmulatedCuda CUDA = new EmulatedCuda();

    @Test
    void shouldComputeOpOfRankOneThenRankZeroBitForBitOnEveryExecutor()
    {
        int cases = 0;
        for (final Algorithm algorithm : new Algorithm[] {Algorithm.TREE, Algorithm.DIRECT})
        {
            for (final String executor : new String[] {"host", "cuda-simple", "cuda-ll"})
            {
                final Context context = new Context().algorithm(algorithm).timeoutMs(60_000);
                if (executor.startsWith("cuda"))
                {
                    context.cuda(CUDA).protocol(executor.endsWith("ll") ? Protocol.LL : Protocol.SIMPLE);
                }
                final Communicator[] comms = Jccl.initAll(context, 2);
                try
                {
                    for (final DataType type : DataType.values())
                    {
                        for (final ReduceOp op : ops())
                        {
                            for (final boolean inPlace : new boolean[] {false, true})
                            {
                                run(comms, algorithm, executor, type, op, inPlace);
                                cases++;
                            }
                        }
                    }
                }
                finally
                {
                    for (final Communicator c : comms)
                    {
                        c.close();
                    }
                }
            }
        }
        assertEquals(2 * 3 * DataType.values().length * ops().size() * 2, cases);
    }

    private static List<ReduceOp> ops()
    {
        final List<ReduceOp> ops = new ArrayList<>(List.of(ReduceOp.builtIns()));
        ops.add(ReduceOp.preMulSum(0.75));
        return ops;
    }

    private static void run(final Communicator[] comms, final Algorithm algorithm, final String executor,
        final DataType type, final ReduceOp op, final boolean inPlace)
    {
        final long[] specials = specials(type);
        final int count = specials.length * specials.length;
        final ByteBuffer[] inputs = new ByteBuffer[2];
        for (int r = 0; r < 2; r++)
        {
            inputs[r] = ElementBuffers.allocate(count, type);
            for (int i = 0; i < count; i++)
            {
                // rank 0 walks the values slowly, rank 1 fast: every ordered pair meets once
                ElementBuffers.put(inputs[r], i, type, specials[r == 0 ? i / specials.length : i % specials.length]);
            }
        }
        final ByteBuffer expected = ReferenceCollectives.expected(Collective.ALL_REDUCE, algorithm, inputs, count,
            type, op, -1);
        final CollectiveGrid.GridCase gridCase = new CollectiveGrid.GridCase(Collective.ALL_REDUCE, type, op, 2,
            count, inPlace, algorithm, -1, CollectiveGrid.Drive.GROUP, CollectiveGrid.Pipeline.DEFAULT);
        final CollectiveHarness.RankBuffers[] buffers = CollectiveHarness.buffers(gridCase, inputs, expected);
        if (executor.startsWith("cuda"))
        {
            for (final CollectiveHarness.RankBuffers b : buffers)
            {
                b.send = CudaEmulatedGridTest.device(b.send);
                b.recv = CudaEmulatedGridTest.device(b.recv);
            }
        }
        CollectiveHarness.run(gridCase, comms, buffers);
        CollectiveHarness.check(type, buffers);
        // the harness takes any NaN for any NaN; here every bit counts, NaN payloads and signs included, with two
        // exceptions: the narrow floats' reference goes through double, which keeps no payload; and where both
        // inputs are NaN, arithmetic (not MIN or MAX) returns either payload as the JIT orders the machine operands.
        // Both ranks' outputs must be the same bits otherwise, whatever the type.
        final boolean arithmetic = op.kind() != ReduceOp.Kind.MIN && op.kind() != ReduceOp.Kind.MAX;
        final ByteBuffer[] outputs = new ByteBuffer[2];
        for (int r = 0; r < 2; r++)
        {
            for (final CollectiveHarness.Region region : buffers[r].regions)
            {
                if (region.output)
                {
                    final byte[] actual = new byte[region.outputTo - region.outputFrom];
                    region.whole.byteBuffer().get(Math.toIntExact(region.whole.offset()) + region.outputFrom,
                        actual);
                    outputs[r] = ByteBuffer.wrap(actual).order(java.nio.ByteOrder.nativeOrder());
                }
            }
        }
        for (int i = 0; i < count; i++)
        {
            final long x0 = ElementBuffers.get(inputs[0], i, type);
            final long x1 = ElementBuffers.get(inputs[1], i, type);
            final boolean anyNaN = arithmetic && ReferenceArithmetic.isNaN(type, x0) &&
                ReferenceArithmetic.isNaN(type, x1);
            final long e = ElementBuffers.get(expected, i, type);
            for (int r = 0; r < 2; r++)
            {
                final long a = ElementBuffers.get(outputs[r], i, type);
                final boolean looseNaN = anyNaN || NarrowFloat.isNarrow(type);
                if (e != a && !(looseNaN && ReferenceArithmetic.isNaN(type, e) && ReferenceArithmetic.isNaN(type, a)))
                {
                    throw new AssertionError(what(algorithm, executor, type, op, inPlace) + ": rank " + r +
                        " element " + i + " (inputs 0x" + Long.toHexString(x0) + " and 0x" + Long.toHexString(x1) +
                        ") is 0x" + Long.toHexString(a) + ", op(x1, x0) is 0x" + Long.toHexString(e));
                }
            }
            final long a0 = ElementBuffers.get(outputs[0], i, type);
            final long a1 = ElementBuffers.get(outputs[1], i, type);
            if (a0 != a1 && !anyNaN)
            {
                throw new AssertionError(what(algorithm, executor, type, op, inPlace) + ": element " + i +
                    " (inputs 0x" + Long.toHexString(x0) + " and 0x" + Long.toHexString(x1) + ") is 0x" +
                    Long.toHexString(a0) + " on rank 0 and 0x" + Long.toHexString(a1) + " on rank 1");
            }
        }
    }

    private static String what(final Algorithm algorithm, final String executor, final DataType type,
        final ReduceOp op, final boolean inPlace)
    {
        return algorithm + " " + executor + " " + type.ncclTestsName() + " " + op + (inPlace ? " in place" : "");
    }

    /** @return raw bit patterns of the type's special values (and a few plain ones), as the reference reads them. */
    private static long[] specials(final DataType type)
    {
        return switch (type)
        {
            case FLOAT32 -> new long[] {0, 0x8000_0000L, 0x7fc0_0000L, 0x7fc0_0001L, 0xffc0_1234L, 0x7fa0_0000L,
                0x7f80_0000L, 0xff80_0000L, 0x0000_0001L, 0x8000_0001L, 0x3f80_0000L, 0xbf80_0000L, 0x4060_0000L};
            case FLOAT64 -> new long[] {0, 0x8000_0000_0000_0000L, 0x7ff8_0000_0000_0000L, 0x7ff8_0000_0000_0001L,
                0xfff8_0000_0000_1234L, 0x7ff4_0000_0000_0000L, 0x7ff0_0000_0000_0000L, 0xfff0_0000_0000_0000L, 1,
                0x8000_0000_0000_0001L, 0x3ff0_0000_0000_0000L, 0xbff0_0000_0000_0000L};
            case FLOAT16 -> new long[] {0, 0x8000, 0x7e00, 0x7e01, 0xfe34, 0x7d00, 0x7c00, 0xfc00, 0x0001, 0x8001,
                0x3c00, 0xbc00, 0x4300};
            case BFLOAT16 -> new long[] {0, 0x8000, 0x7fc0, 0x7fc1, 0xffd2, 0x7fa0, 0x7f80, 0xff80, 0x0001, 0x8001,
                0x3f80, 0xbf80, 0x4060};
            case FLOAT8_E4M3 -> new long[] {0, 0x80, 0x7f, 0xff, 0x01, 0x81, 0x38, 0xb8, 0x7e, 0xfe};
            case FLOAT8_E5M2 -> new long[] {0, 0x80, 0x7e, 0x7f, 0xfe, 0x7c, 0xfc, 0x01, 0x81, 0x3c, 0xbc};
            case INT8, UINT8 -> new long[] {0, 1, 0x7f, 0x80, 0xff, 0x55};
            case INT32, UINT32 -> new long[] {0, 1, 0x7fff_ffffL, 0x8000_0000L, 0xffff_ffffL, 12345};
            case INT64, UINT64 -> new long[] {0, 1, Long.MAX_VALUE, Long.MIN_VALUE, -1, 12345};
        };
    }
}
