package io.jccl.bench;

import io.jccl.HostBuffer;

import java.nio.ByteBuffer;

/**
 * Prepares the buffers of a checked call and counts wrong elements afterwards, for the ranks one thread drives.
 * <p>
 * Each rank has a send and a receive allocation. Before the call, {@link #prepare} fills a window of each (the
 * bytes the call may touch plus {@link #GUARD_BYTES}) with a guard pattern unique to (rank, allocation, element),
 * then writes the rank's input where the call reads it. Afterwards {@link #verify} classifies every element of
 * both windows:
 * <ul>
 * <li>output: must equal the expected result ({@link ExpectedValues});</li>
 * <li>input that is not output (the send buffer out of place; in place, the other blocks of an in-place
 *     ReduceScatter or Scatter root and the whole buffer of a non-root Reduce or Gather): must still hold the
 *     input;</li>
 * <li>anything else, including the bytes after the buffers and a non-root's ignored buffer (Broadcast and Scatter
 *     send, Reduce and Gather receive): must still hold the guard pattern.</li>
 * </ul>
 * {@code #wrong} is the number of elements that fail, so it also catches writes outside the result.
 */
public final class ResultChecker
{
    /** Bytes checked after the end of the buffers a call uses. */
    public static final int GUARD_BYTES = 4096;

    private static final int BLOCK = 4096;
    private static final long GUARD_SEED = 0x6A63_636C_6775_6172L;

    private final BenchTool tool;
    private final DataPattern pattern;
    private final ExpectedValues expected;
    private final ElementCodec codec;
    private final CollByteCount counts;
    private final int elementSize;
    private final int root;
    private final boolean inPlace;
    private final long windowElements;
    private final long[] bits = new long[BLOCK];
    private final double[] values = new double[BLOCK];
    private final double[] tolerances = new double[BLOCK];
    private long cachedFirst = -1;
    private int cachedLength;
    private String firstMismatch;

    /**
     * @param tool     the collective.
     * @param pattern  the inputs.
     * @param expected the expected results of the same inputs.
     * @param counts   the call's counts.
     * @param root     root of Broadcast and Reduce.
     * @param inPlace  true for the in-place variant.
     */
    public ResultChecker(final BenchTool tool, final DataPattern pattern, final ExpectedValues expected,
        final CollByteCount counts, final int root, final boolean inPlace)
    {
        this.tool = tool;
        this.pattern = pattern;
        this.expected = expected;
        this.codec = pattern.codec();
        this.counts = counts;
        this.elementSize = codec.byteSize();
        this.root = root;
        this.inPlace = inPlace;
        this.windowElements = Math.max(counts.sendCount(), counts.recvCount()) + GUARD_BYTES / elementSize;
    }

    /** @return bytes of each allocation that {@link #prepare} writes and {@link #verify} reads. */
    public long windowBytes()
    {
        return windowElements * elementSize;
    }

    /** @return a description of the first wrong element of the last {@link #verify}, or null. */
    public String firstMismatch()
    {
        return firstMismatch;
    }

    /**
     * Fills the guard pattern and the rank's input.
     *
     * @param rank      the rank.
     * @param sendAlloc its send allocation (the call's send buffer starts at its beginning).
     * @param recvAlloc its receive allocation.
     */
    public void prepare(final int rank, final HostBuffer sendAlloc, final HostBuffer recvAlloc)
    {
        fillGuard(rank, 0, sendAlloc);
        fillGuard(rank, 1, recvAlloc);
        if (!hasInput(rank))
        {
            return;
        }
        final HostBuffer target = inPlace ? recvAlloc : sendAlloc;
        final ByteBuffer buffer = target.byteBuffer();
        final long start = inputStart(rank);
        for (long k = 0; k < counts.sendCount(); k++)
        {
            codec.write(buffer, byteIndex(target, start + k), pattern.input(rank, k));
        }
    }

    /**
     * Counts the wrong elements of the given ranks after the call.
     *
     * @param ranks      the ranks.
     * @param sendAllocs their send allocations, in the same order.
     * @param recvAllocs their receive allocations.
     * @return wrong elements over all of them.
     */
    public long verify(final int[] ranks, final HostBuffer[] sendAllocs, final HostBuffer[] recvAllocs)
    {
        firstMismatch = null;
        cachedFirst = -1;
        long wrong = 0;
        final long outputCount = counts.recvCount();
        for (long blockStart = 0; blockStart < outputCount; blockStart += BLOCK)
        {
            final int length = (int)Math.min(BLOCK, outputCount - blockStart);
            for (int i = 0; i < ranks.length; i++)
            {
                if (hasOutput(ranks[i]))
                {
                    wrong += verifyOutput(ranks[i], recvAllocs[i], blockStart, length);
                }
            }
        }
        for (int i = 0; i < ranks.length; i++)
        {
            wrong += verifyRest(ranks[i], 0, sendAllocs[i]);
            wrong += verifyRest(ranks[i], 1, recvAllocs[i]);
        }
        return wrong;
    }

    private long verifyOutput(final int rank, final HostBuffer recvAlloc, final long blockStart, final int length)
    {
        final long first = outputBase(rank) + blockStart;
        if (first != cachedFirst || length != cachedLength)
        {
            expected.compute(first, length, bits, values, tolerances);
            cachedFirst = first;
            cachedLength = length;
        }
        final ByteBuffer buffer = recvAlloc.byteBuffer();
        final long start = outputStart(rank) + blockStart;
        final ExpectedValues.Comparison comparison = expected.comparison();
        long wrong = 0;
        for (int i = 0; i < length; i++)
        {
            final long raw = codec.read(buffer, byteIndex(recvAlloc, start + i));
            final boolean ok = switch (comparison)
            {
                case BITS -> raw == bits[i];
                case VALUE -> codec.toDouble(raw) == values[i];
                case TOLERANCE -> Math.abs(codec.toDouble(raw) - values[i]) <= tolerances[i];
            };
            if (!ok)
            {
                wrong++;
                if (firstMismatch == null)
                {
                    firstMismatch = "rank " + rank + " output element " + (blockStart + i) + ": expected " +
                        (comparison == ExpectedValues.Comparison.BITS ? "0x" + Long.toHexString(bits[i]) :
                        values[i] + (comparison == ExpectedValues.Comparison.TOLERANCE ? " +- " + tolerances[i] : "")) +
                        ", got 0x" + Long.toHexString(raw) +
                        (codec.type().isFloatingPoint() ? " (" + codec.toDouble(raw) + ")" : "");
                }
            }
        }
        return wrong;
    }

    private long verifyRest(final int rank, final int allocation, final HostBuffer alloc)
    {
        final ByteBuffer buffer = alloc.byteBuffer();
        final boolean holdsOutput = allocation == 1 && hasOutput(rank);
        final long outputStart = outputStart(rank);
        final long outputEnd = outputStart + counts.recvCount();
        final boolean holdsInput = hasInput(rank) && (allocation == 1) == inPlace;
        final long inputStart = inputStart(rank);
        final long inputEnd = inputStart + counts.sendCount();
        long wrong = 0;
        for (long e = 0; e < windowElements; e++)
        {
            if (holdsOutput && e >= outputStart && e < outputEnd)
            {
                continue;
            }
            final boolean isInput = holdsInput && e >= inputStart && e < inputEnd;
            final long want = isInput ? pattern.input(rank, e - inputStart) : guard(rank, allocation, e);
            final long raw = codec.read(buffer, byteIndex(alloc, e));
            if (raw != want)
            {
                wrong++;
                if (firstMismatch == null)
                {
                    firstMismatch = "rank " + rank + (allocation == 0 ? " send" : " receive") + " buffer element " +
                        e + (isInput ? " (input, must be unchanged)" : " (outside the result, must be unchanged)") +
                        ": expected 0x" + Long.toHexString(want) + ", got 0x" + Long.toHexString(raw);
                }
            }
        }
        return wrong;
    }

    private void fillGuard(final int rank, final int allocation, final HostBuffer alloc)
    {
        final ByteBuffer buffer = alloc.byteBuffer();
        for (long e = 0; e < windowElements; e++)
        {
            codec.write(buffer, byteIndex(alloc, e), guard(rank, allocation, e));
        }
    }

    private long guard(final int rank, final int allocation, final long element)
    {
        return codec.wrap(DataPattern.hash(GUARD_SEED + allocation, rank, element));
    }

    /** Broadcast and Scatter read only the root's input; the others' send buffers are ignored. */
    private boolean hasInput(final int rank)
    {
        return tool != BenchTool.BROADCAST && tool != BenchTool.SCATTER || rank == root;
    }

    /** Reduce and Gather write only the root's receive buffer; the others' must stay as they were. */
    private boolean hasOutput(final int rank)
    {
        return tool != BenchTool.REDUCE && tool != BenchTool.GATHER || rank == root;
    }

    /** Element index of the rank's input in its send allocation, or in place in its receive allocation. */
    private long inputStart(final int rank)
    {
        return inPlace ? counts.sendInplaceOffset() * rank : 0;
    }

    /** Element index of the rank's output in its receive allocation. */
    private long outputStart(final int rank)
    {
        return inPlace ? counts.recvInplaceOffset() * rank : 0;
    }

    /** Global output index ({@link ExpectedValues}) of the rank's first output element. */
    private long outputBase(final int rank)
    {
        return switch (tool)
        {
            case REDUCE_SCATTER, SCATTER -> counts.paramCount() * rank;
            case ALL_TO_ALL, SEND_RECV -> counts.recvCount() * rank;
            default -> 0;
        };
    }

    private int byteIndex(final HostBuffer alloc, final long element)
    {
        return Math.toIntExact(alloc.offset() + element * elementSize);
    }
}
