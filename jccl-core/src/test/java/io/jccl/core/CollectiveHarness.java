package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.core.CollectiveGrid.Drive;
import io.jccl.core.CollectiveGrid.GridCase;
import io.jccl.testkit.ElementBuffers;
import io.jccl.testkit.NarrowFloat;
import io.jccl.testkit.ReferenceArithmetic;
import io.jccl.testkit.ReferenceCollectives;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runs one grid case on real communicators and checks it against {@link ReferenceCollectives}: every rank's
 * buffers live inside a larger allocation whose guard bytes before and after must survive; the output must equal
 * the reference bit for bit (two NaNs of a floating type count as equal: NaN payloads and signs are not part of
 * the arithmetic contract); everything else (an out-of-place send, a non-root Reduce's receive buffer, the rest of
 * an in-place ReduceScatter's send) must be left as it was.
 */
final class CollectiveHarness
{
    /** Guard bytes after every buffer. */
    static final int GUARD_BYTES = 64;
    /** How long a thread-per-rank case may take before it is reported as hung. */
    static final long RANK_JOIN_TIMEOUT_MS = 90_000;

    private CollectiveHarness()
    {
    }

    /** One allocation, with what it held before the call and what it must hold after. */
    static final class Region
    {
        final String name;
        final HostBuffer whole;
        final byte[] before;
        final byte[] expected;
        final int bufferOffset;
        final int outputFrom;
        final int outputTo;
        final boolean output;

        Region(final String name, final HostBuffer whole, final int bufferOffset, final int outputFrom,
            final int outputTo, final ByteBuffer outputBytes)
        {
            this.name = name;
            this.whole = whole;
            this.bufferOffset = bufferOffset;
            this.before = read(whole);
            this.expected = before.clone();
            this.outputFrom = outputFrom;
            this.outputTo = outputTo;
            this.output = outputBytes != null;
            if (output)
            {
                outputBytes.get(0, expected, outputFrom, outputTo - outputFrom);
            }
        }
    }

    /** The buffers of one rank for one case. */
    static final class RankBuffers
    {
        Buffer send;
        Buffer recv;
        final List<Region> regions = new ArrayList<>();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Inputs
    // ---------------------------------------------------------------------------------------------------------

    /**
     * @param gridCase the case.
     * @return every rank's input, unique per rank and element (up to the type's range), from the case's seed.
     */
    static ByteBuffer[] inputs(final GridCase gridCase)
    {
        final boolean specials = gridCase.op() != null &&
            (gridCase.op().kind() == ReduceOp.Kind.MAX || gridCase.op().kind() == ReduceOp.Kind.MIN);
        final ByteBuffer[] inputs = new ByteBuffer[gridCase.ranks()];
        for (int r = 0; r < inputs.length; r++)
        {
            inputs[r] = randomElements(new SplittableRandom(gridCase.seed() + 0x632BE59BD9B4E019L * (r + 1)),
                gridCase.inputCount(), gridCase.type(), specials);
        }
        return inputs;
    }

    /**
     * @param random   the generator.
     * @param count    elements.
     * @param type     element type.
     * @param specials whether floating inputs include NaN, +0 and -0 now and then (for MIN/MAX).
     * @return the elements in a native-order heap buffer.
     */
    static ByteBuffer randomElements(final SplittableRandom random, final long count, final DataType type,
        final boolean specials)
    {
        final ByteBuffer out = ElementBuffers.allocate(count, type);
        for (int i = 0; i < count; i++)
        {
            ElementBuffers.put(out, i, type, randomElement(random, type, specials));
        }
        return out;
    }

    /**
     * @param random   the generator.
     * @param type     element type.
     * @param specials whether a floating value may be NaN, +0 or -0 (1 in 32 each).
     * @return raw bits: integers over their whole range; floating values non-integral in (-4, 4).
     */
    static long randomElement(final SplittableRandom random, final DataType type, final boolean specials)
    {
        if (!type.isFloatingPoint())
        {
            return random.nextLong() & ReferenceArithmetic.mask(type);
        }
        double value = (random.nextDouble() * 2 - 1) * (1 << random.nextInt(3));
        if (specials)
        {
            final int pick = random.nextInt(32);
            value = pick == 0 ? Double.NaN : pick == 1 ? 0.0 : pick == 2 ? -0.0 : value;
        }
        // narrow types and FLOAT32 round the value to float first, as the inputs always were
        return ReferenceArithmetic.fromDouble(type, type == DataType.FLOAT64 ? value : (float)value);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Buffers
    // ---------------------------------------------------------------------------------------------------------

    /**
     * @param gridCase the case.
     * @param inputs   every rank's input.
     * @param expected the reference output ({@link ReferenceCollectives#expected}).
     * @return every rank's buffers, filled, with the regions to check afterwards.
     */
    static RankBuffers[] buffers(final GridCase gridCase, final ByteBuffer[] inputs, final ByteBuffer expected)
    {
        final SplittableRandom pattern = new SplittableRandom(~gridCase.seed());
        final DataType type = gridCase.type();
        final int n = gridCase.ranks();
        final int elementBytes = type.byteSize();
        final int countBytes = Math.toIntExact(gridCase.count() * elementBytes);
        // misalign some cases by a few elements: NCCL requires only element alignment
        final int guardBefore = GUARD_BYTES + elementBytes * (int)((gridCase.seed() >>> 7) % 3);
        // the receive buffer of a non-root Reduce and the send buffer of a non-root Broadcast may be null
        final boolean nullIgnored = ((gridCase.seed() >>> 3) & 1) == 0;
        final Collective collective = gridCase.collective();
        final RankBuffers[] ranks = new RankBuffers[n];
        for (int r = 0; r < n; r++)
        {
            final RankBuffers b = new RankBuffers();
            ranks[r] = b;
            final boolean root = r == gridCase.root();
            final ByteBuffer output = outputOf(gridCase, expected, r);
            if (gridCase.inPlace())
            {
                switch (collective)
                {
                    case ALL_GATHER:
                    {
                        final HostBuffer whole = guarded(pattern, guardBefore, n * countBytes);
                        whole.byteBuffer().put(guardBefore + r * countBytes, inputs[r], 0, countBytes);
                        b.recv = whole.slice(guardBefore, (long)n * countBytes);
                        b.send = b.recv.view(type, (long)r * gridCase.count(), gridCase.count());
                        b.regions.add(new Region("rank " + r + " recv", whole, guardBefore, guardBefore,
                            guardBefore + n * countBytes, output));
                        break;
                    }
                    case REDUCE_SCATTER:
                    {
                        final HostBuffer whole = guarded(pattern, guardBefore, n * countBytes);
                        whole.byteBuffer().put(guardBefore, inputs[r], 0, n * countBytes);
                        b.send = whole.slice(guardBefore, (long)n * countBytes);
                        b.recv = b.send.view(type, (long)r * gridCase.count(), gridCase.count());
                        final int from = guardBefore + r * countBytes;
                        b.regions.add(new Region("rank " + r + " send", whole, guardBefore, from, from + countBytes,
                            output));
                        break;
                    }
                    default:
                    {
                        final HostBuffer whole = guarded(pattern, guardBefore, countBytes);
                        whole.byteBuffer().put(guardBefore, inputs[r], 0, countBytes);
                        b.send = whole.slice(guardBefore, countBytes);
                        b.recv = b.send;
                        b.regions.add(new Region("rank " + r + " send=recv", whole, guardBefore, guardBefore,
                            guardBefore + countBytes, output));
                        break;
                    }
                }
            }
            else
            {
                final int inBytes = Math.toIntExact(gridCase.inputCount() * elementBytes);
                final int outBytes = Math.toIntExact(gridCase.outputCount() * elementBytes);
                if (!(collective == Collective.BROADCAST && !root && nullIgnored))
                {
                    final HostBuffer whole = guarded(pattern, guardBefore, inBytes);
                    whole.byteBuffer().put(guardBefore, inputs[r], 0, inBytes);
                    b.send = whole.slice(guardBefore, inBytes);
                    b.regions.add(new Region("rank " + r + " send", whole, guardBefore, guardBefore,
                        guardBefore + inBytes, null));
                }
                if (!(collective == Collective.REDUCE && !root && nullIgnored))
                {
                    final HostBuffer whole = guarded(pattern, guardBefore, outBytes);
                    b.recv = whole.slice(guardBefore, outBytes);
                    b.regions.add(new Region("rank " + r + " recv", whole, guardBefore, guardBefore,
                        guardBefore + outBytes, output));
                }
            }
        }
        return ranks;
    }

    /** @return what rank r's output buffer must hold afterwards, or null where it must be left as it was. */
    private static ByteBuffer outputOf(final GridCase gridCase, final ByteBuffer expected, final int r)
    {
        switch (gridCase.collective())
        {
            case REDUCE:
                return r == gridCase.root() ? expected : null;
            case REDUCE_SCATTER:
            {
                final int bytes = Math.toIntExact(gridCase.count() * gridCase.type().byteSize());
                return expected.slice(r * bytes, bytes).order(expected.order());
            }
            default:
                return expected;
        }
    }

    /** @return a jccl allocation of guard + length + guard bytes, every byte from the pattern. */
    private static HostBuffer guarded(final SplittableRandom pattern, final int guardBefore, final int length)
    {
        final HostBuffer whole = HostBuffer.allocate((long)guardBefore + length + GUARD_BYTES);
        final byte[] bytes = new byte[Math.toIntExact(whole.length())];
        pattern.nextBytes(bytes);
        whole.byteBuffer().put(0, bytes);
        return whole;
    }

    private static byte[] read(final HostBuffer whole)
    {
        final byte[] bytes = new byte[Math.toIntExact(whole.length())];
        whole.byteBuffer().get(Math.toIntExact(whole.offset()), bytes);
        return bytes;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Running
    // ---------------------------------------------------------------------------------------------------------

    /**
     * Runs the case on the communicators and checks every byte.
     *
     * @param gridCase the case.
     * @param comms    communicators, index = rank, of the case's rank count and algorithm.
     * @throws AssertionError describing the first differences.
     */
    static void runAndCheck(final GridCase gridCase, final Communicator[] comms)
    {
        final ByteBuffer[] inputs = inputs(gridCase);
        final ByteBuffer expected = ReferenceCollectives.expected(gridCase.collective(), gridCase.algorithm(),
            inputs, gridCase.count(), gridCase.type(), gridCase.op(), gridCase.root());
        final RankBuffers[] buffers = buffers(gridCase, inputs, expected);
        run(gridCase, comms, buffers);
        check(gridCase.type(), buffers);
    }

    /**
     * @param gridCase the case.
     * @param comms    communicators.
     * @param buffers  every rank's buffers.
     */
    static void run(final GridCase gridCase, final Communicator[] comms, final RankBuffers[] buffers)
    {
        final int n = comms.length;
        if (gridCase.drive() == Drive.GROUP)
        {
            final Work[] works = new Work[n];
            Jccl.groupStart();
            try
            {
                for (int r = 0; r < n; r++)
                {
                    works[r] = issue(gridCase, comms[r], buffers[r].send, buffers[r].recv);
                }
            }
            finally
            {
                Jccl.groupEnd();
            }
            for (final Work work : works)
            {
                work.join();
            }
            return;
        }
        final Throwable[] failures = new Throwable[n];
        final Thread[] threads = new Thread[n];
        for (int r = 0; r < n; r++)
        {
            final int rank = r;
            threads[r] = new Thread(() ->
            {
                try
                {
                    issueBlocking(gridCase, comms[rank], buffers[rank].send, buffers[rank].recv);
                }
                catch (final Throwable t)
                {
                    failures[rank] = t;
                }
            }, "grid-rank-" + r);
            threads[r].setDaemon(true);
            threads[r].start();
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RANK_JOIN_TIMEOUT_MS);
        for (int r = 0; r < n; r++)
        {
            try
            {
                threads[r].join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for rank " + r, ex);
            }
            if (threads[r].isAlive())
            {
                throw new AssertionError("rank " + r + " did not return within " + RANK_JOIN_TIMEOUT_MS + " ms");
            }
        }
        for (int r = 0; r < n; r++)
        {
            if (failures[r] != null)
            {
                throw new AssertionError("rank " + r + " failed: " + failures[r], failures[r]);
            }
        }
    }

    /** @return the asynchronous call of the case on one rank. */
    static Work issue(final GridCase gridCase, final Communicator comm, final Buffer send, final Buffer recv)
    {
        final DataType type = gridCase.type();
        final long count = gridCase.count();
        switch (gridCase.collective())
        {
            case ALL_REDUCE:
                return comm.allReduce(send, recv, count, type, gridCase.op(), Stream.DEFAULT);
            case ALL_GATHER:
                return comm.allGather(send, recv, count, type, Stream.DEFAULT);
            case REDUCE_SCATTER:
                return comm.reduceScatter(send, recv, count, type, gridCase.op(), Stream.DEFAULT);
            case BROADCAST:
                return comm.broadcast(send, recv, count, type, gridCase.root(), Stream.DEFAULT);
            case REDUCE:
                return comm.reduce(send, recv, count, type, gridCase.op(), gridCase.root(), Stream.DEFAULT);
            default:
                throw new IllegalArgumentException(gridCase.collective().toString());
        }
    }

    /** Makes the blocking call of the case on one rank. */
    static void issueBlocking(final GridCase gridCase, final Communicator comm, final Buffer send, final Buffer recv)
    {
        final DataType type = gridCase.type();
        final long count = gridCase.count();
        switch (gridCase.collective())
        {
            case ALL_REDUCE:
                comm.allReduce(send, recv, count, type, gridCase.op());
                break;
            case ALL_GATHER:
                comm.allGather(send, recv, count, type);
                break;
            case REDUCE_SCATTER:
                comm.reduceScatter(send, recv, count, type, gridCase.op());
                break;
            case BROADCAST:
                comm.broadcast(send, recv, count, type, gridCase.root());
                break;
            case REDUCE:
                comm.reduce(send, recv, count, type, gridCase.op(), gridCase.root());
                break;
            default:
                throw new IllegalArgumentException(gridCase.collective().toString());
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Checking
    // ---------------------------------------------------------------------------------------------------------

    /**
     * @param type    element type.
     * @param buffers every rank's buffers after the call.
     * @throws AssertionError listing the first differences of every region that differs.
     */
    static void check(final DataType type, final RankBuffers[] buffers)
    {
        final StringBuilder report = new StringBuilder();
        for (final RankBuffers rank : buffers)
        {
            for (final Region region : rank.regions)
            {
                checkRegion(type, region, report);
            }
        }
        if (report.length() > 0)
        {
            throw new AssertionError(report.toString());
        }
    }

    private static void checkRegion(final DataType type, final Region region, final StringBuilder report)
    {
        final byte[] actual = read(region.whole);
        final byte[] expected = region.expected;
        final int size = type.byteSize();
        int mismatches = 0;
        final StringBuilder details = new StringBuilder();
        int from = 0;
        int diff;
        while ((diff = Arrays.mismatch(expected, from, expected.length, actual, from, actual.length)) >= 0)
        {
            final int at = from + diff;
            if (at >= region.outputFrom && at < region.outputTo)
            {
                final int element = (at - region.outputFrom) / size;
                final int elementStart = region.outputFrom + element * size;
                final long e = ElementBuffers.get(ByteBuffer.wrap(expected, elementStart, size).slice()
                    .order(java.nio.ByteOrder.nativeOrder()), 0, type);
                final long a = ElementBuffers.get(ByteBuffer.wrap(actual, elementStart, size).slice()
                    .order(java.nio.ByteOrder.nativeOrder()), 0, type);
                from = elementStart + size;
                if (region.output && ReferenceArithmetic.isNaN(type, e) && ReferenceArithmetic.isNaN(type, a))
                {
                    continue;
                }
                if (mismatches++ < 5)
                {
                    details.append(region.output ? "\n    output element " : "\n    element (must not change) ").append((elementStart - region.outputFrom) / size)
                        .append(" (buffer byte ").append(elementStart - region.bufferOffset).append("): expected 0x")
                        .append(Long.toHexString(e)).append(' ').append(describe(type, e)).append(", was 0x")
                        .append(Long.toHexString(a)).append(' ').append(describe(type, a));
                }
            }
            else
            {
                from = at + 1;
                if (mismatches++ < 5)
                {
                    final long end = region.whole.length() - GUARD_BYTES;
                    final String where = at < region.bufferOffset ?
                        "guard byte " + (region.bufferOffset - at) + " before the buffer" :
                        at >= end ? "guard byte " + (at - end) + " after the buffer's end" :
                        "byte " + (at - region.bufferOffset) + " of the buffer, which must not change";
                    details.append("\n    ").append(where).append(": expected 0x")
                        .append(Integer.toHexString(expected[at] & 0xff)).append(", was 0x")
                        .append(Integer.toHexString(actual[at] & 0xff));
                }
            }
        }
        if (mismatches > 0)
        {
            report.append("\n  ").append(region.name).append(": ").append(mismatches).append(" difference(s)")
                .append(details);
        }
    }

    private static String describe(final DataType type, final long bits)
    {
        switch (type)
        {
            case FLOAT32:
                return "(" + Float.intBitsToFloat((int)bits) + ")";
            case FLOAT64:
                return "(" + Double.longBitsToDouble(bits) + ")";
            case FLOAT16:
            case BFLOAT16:
            case FLOAT8_E4M3:
            case FLOAT8_E5M2:
                return "(" + NarrowFloat.of(type).toFloat((int)bits) + ")";
            default:
                return "(" + (type.isSigned() ? ReferenceArithmetic.signExtend(type, bits) :
                    Long.toUnsignedString(bits)) + ")";
        }
    }
}
