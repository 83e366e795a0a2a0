package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;

import java.util.Arrays;

/**
 * The six tools, with what differs between them in nccl-tests: the buffer counts per message size, the bandwidth
 * arithmetic, whether the table shows an operator and a root, and the call itself.
 */
public enum BenchTool
{
    /** {@code all_reduce_perf}: busbw = algbw x 2(n-1)/n. */
    ALL_REDUCE("all_reduce_perf", Collective.ALL_REDUCE),
    /** {@code all_gather_perf}: size is the gathered buffer; busbw = algbw x (n-1)/n. */
    ALL_GATHER("all_gather_perf", Collective.ALL_GATHER),
    /** {@code reduce_scatter_perf}: size is the scattered buffer; busbw = algbw x (n-1)/n. */
    REDUCE_SCATTER("reduce_scatter_perf", Collective.REDUCE_SCATTER),
    /** {@code broadcast_perf}: busbw = algbw. */
    BROADCAST("broadcast_perf", Collective.BROADCAST),
    /** {@code reduce_perf}: busbw = algbw. */
    REDUCE("reduce_perf", Collective.REDUCE),
    /**
     * {@code alltoall_perf}: size is the whole per-rank buffer (one block per peer); busbw = algbw x (n-1)/n, since
     * the block a rank keeps for itself crosses no link.
     */
    ALL_TO_ALL("alltoall_perf", Collective.ALL_TO_ALL);

    /** What the table prints as the operator of a collective without one. */
    public static final String NO_OP_NAME = "none";
    /** What the table prints as the root of a collective without one. */
    public static final int NO_ROOT = -1;

    private final String toolName;
    private final Collective collective;

    BenchTool(final String toolName, final Collective collective)
    {
        this.toolName = toolName;
        this.collective = collective;
    }

    /** @return the command name, as nccl-tests' binary ({@code all_reduce_perf}, ...). */
    public String toolName()
    {
        return toolName;
    }

    /** @return the collective the tool measures. */
    public Collective collective()
    {
        return collective;
    }

    /** @return true when the tool takes {@code -o} (it reduces). */
    public boolean hasOp()
    {
        return collective.isReducing();
    }

    /** @return true when the tool takes {@code -r} (Broadcast, Reduce). */
    public boolean hasRoot()
    {
        return collective.isRooted();
    }

    /**
     * The counts of one call, as nccl-tests' {@code getCollByteCount}. AllGather, ReduceScatter and AllToAll split
     * the message into per-rank blocks aligned down to 16 bytes ({@code (count / nRanks) & -(16 / elementSize)}), so
     * their table size is a multiple of {@code 16 x nRanks} bytes and small sizes become 0. AllToAll's count is the
     * block sent to each peer; its send and receive buffers both hold {@code nRanks} blocks, and in place both are
     * the receive buffer from its start.
     *
     * @param count       elements of the message size ({@code size / elementSize}).
     * @param elementSize bytes per element.
     * @param nRanks      rank count.
     * @return the counts.
     */
    public CollByteCount byteCount(final long count, final int elementSize, final int nRanks)
    {
        return switch (this)
        {
            case ALL_GATHER ->
            {
                final long base = alignedBlock(count, elementSize, nRanks);
                yield new CollByteCount(base, base * nRanks, base, base, 0);
            }
            case REDUCE_SCATTER ->
            {
                final long base = alignedBlock(count, elementSize, nRanks);
                yield new CollByteCount(base * nRanks, base, base, 0, base);
            }
            case ALL_TO_ALL ->
            {
                final long base = alignedBlock(count, elementSize, nRanks);
                yield new CollByteCount(base * nRanks, base * nRanks, base, 0, 0);
            }
            default -> new CollByteCount(count, count, count, 0, 0);
        };
    }

    /**
     * nccl-tests' algorithm bandwidth: the bytes one rank's call moves, over the time.
     *
     * @param paramCount  the count passed to the collective.
     * @param elementSize bytes per element.
     * @param seconds     time of one call.
     * @param nRanks      rank count.
     * @return GB/s (10^9 bytes per second).
     */
    public double algorithmBandwidth(final long paramCount, final int elementSize, final double seconds,
        final int nRanks)
    {
        final double bytes = (double)paramCount * elementSize * (blocksPerRank() ? nRanks : 1);
        return bytes / 1.0E9 / seconds;
    }

    /**
     * nccl-tests' bus bandwidth factor: what makes busbw comparable across rank counts (the fraction of the data
     * each link carries with the optimal algorithm).
     *
     * @param nRanks rank count.
     * @return 2(n-1)/n for AllReduce, (n-1)/n for AllGather, ReduceScatter and AllToAll, 1 for Broadcast and Reduce.
     */
    public double busBandwidthFactor(final int nRanks)
    {
        return switch (this)
        {
            case ALL_REDUCE -> 2.0 * (nRanks - 1) / nRanks;
            case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL -> (double)(nRanks - 1) / nRanks;
            default -> 1.0;
        };
    }

    /**
     * Starts the collective on one rank.
     *
     * @param comm   the rank.
     * @param send   send buffer.
     * @param recv   receive buffer.
     * @param count  the count argument ({@link CollByteCount#paramCount()}).
     * @param type   element type.
     * @param op     operator (ignored by AllGather, Broadcast and AllToAll).
     * @param root   root (ignored unless rooted).
     * @param stream ordering domain.
     * @return the call's handle.
     */
    public Work start(final Communicator comm, final Buffer send, final Buffer recv, final long count,
        final DataType type, final ReduceOp op, final int root, final Stream stream)
    {
        return switch (this)
        {
            case ALL_REDUCE -> comm.allReduce(send, recv, count, type, op, stream);
            case ALL_GATHER -> comm.allGather(send, recv, count, type, stream);
            case REDUCE_SCATTER -> comm.reduceScatter(send, recv, count, type, op, stream);
            case BROADCAST -> comm.broadcast(send, recv, count, type, root, stream);
            case REDUCE -> comm.reduce(send, recv, count, type, op, root, stream);
            case ALL_TO_ALL -> comm.allToAll(send, recv, count, type, stream);
        };
    }

    /**
     * @return true when the count is a per-rank block and the buffers hold {@code nRanks} of them on one side
     *         (AllGather's output, ReduceScatter's input) or both (AllToAll).
     */
    public boolean blocksPerRank()
    {
        return this == ALL_GATHER || this == REDUCE_SCATTER || this == ALL_TO_ALL;
    }

    /**
     * @param name a tool name, with or without the {@code _perf} suffix ({@code all_reduce_perf}, {@code all_reduce}).
     * @return the tool.
     * @throws IllegalArgumentException naming the tools if none matches.
     */
    public static BenchTool fromName(final String name)
    {
        for (final BenchTool tool : values())
        {
            if (tool.toolName.equals(name) || tool.toolName.equals(name + "_perf"))
            {
                return tool;
            }
        }
        throw new IllegalArgumentException("unknown tool '" + name + "'; one of " + names());
    }

    /** @return the tool names, in order. */
    public static String names()
    {
        return Arrays.stream(values()).map(BenchTool::toolName).toList().toString();
    }

    private static long alignedBlock(final long count, final int elementSize, final int nRanks)
    {
        return (count / nRanks) & -(16L / elementSize);
    }
}
