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
 * The tools, with what differs between them in nccl-tests: the buffer counts per message size, the bandwidth
 * arithmetic, whether the table shows an operator and a root, and the calls themselves. The six collectives make one
 * call per rank; {@code sendrecv_perf} and {@code hypercube_perf} make point-to-point calls, and
 * {@code alltoall_perf --p2p} makes its all-to-all of them ({@link PointToPointCalls}); {@code gather_perf} and
 * {@code scatter_perf} call {@link Communicator#gather} and {@link Communicator#scatter}.
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
    ALL_TO_ALL("alltoall_perf", Collective.ALL_TO_ALL),
    /**
     * {@code sendrecv_perf}: every rank sends its buffer to rank + 1 and receives rank - 1's, one group; busbw =
     * algbw. In place is timed but not checked, as nccl-tests: the send and the receive are the same memory.
     */
    SEND_RECV("sendrecv_perf", null),
    /**
     * {@code hypercube_perf}: an AllGather by recursive doubling, log2(n) groups of one send and one receive with
     * rank ^ 2^k; size is the gathered buffer; algbw counts the (n-1) blocks a rank receives, busbw = algbw. Power of
     * two rank counts only.
     */
    HYPERCUBE("hypercube_perf", null),
    /** {@code gather_perf}: size is the root's gathered buffer; busbw = algbw x (n-1)/n. */
    GATHER("gather_perf", null),
    /** {@code scatter_perf}: size is the root's scattered buffer; busbw = algbw x (n-1)/n. */
    SCATTER("scatter_perf", null);

    /** The flag of {@code alltoall_perf}'s point-to-point variant. */
    public static final String P2P_FLAG = "--p2p";

    /** What the table prints as the operator of a collective without one. */
    public static final String NO_OP_NAME = "none";
    /** What the table prints as the root of a collective without one. */
    public static final int NO_ROOT = -1;

    /** nccl-tests' {@code hypercube.cu} block alignment, in elements. */
    private static final int HYPERCUBE_ALIGN = 4;

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

    /**
     * @return the collective the tool measures, whose plans, schedules and tuner tasks apply to it; null for the
     *         tools of point-to-point calls, Gather and Scatter, which have none.
     */
    public Collective collective()
    {
        return collective;
    }

    /** @return true when the tool takes {@code -o} (it reduces). */
    public boolean hasOp()
    {
        return collective != null && collective.isReducing();
    }

    /** @return true when the tool takes {@code -r} (Broadcast, Reduce, Gather, Scatter). */
    public boolean hasRoot()
    {
        return collective != null ? collective.isRooted() : this == GATHER || this == SCATTER;
    }

    /**
     * @param p2p true for {@code --p2p}.
     * @return true when each rank's calls are sends and receives that must be grouped even when the thread drives
     *         one rank (a ring shift outside a group would wait for itself).
     */
    public boolean pointToPoint(final boolean p2p)
    {
        return this == SEND_RECV || this == HYPERCUBE || p2p && this == ALL_TO_ALL;
    }

    /**
     * @param nRanks rank count.
     * @return the groups one call of the tool is made of: log2(n) for {@code hypercube_perf} (at least 1, for the
     *         copy of a rank's own block), 1 otherwise. A step's calls read what the step before received, so steps
     *         are never grouped together.
     */
    public int steps(final int nRanks)
    {
        return this == HYPERCUBE ? PointToPointCalls.hypercubeSteps(nRanks) : 1;
    }

    /**
     * @param p2p true for {@code --p2p}.
     * @return false where nccl-tests does not check the in-place results either, since the send and receive
     *         buffers are the same memory of one group of sends and receives ({@code sendrecv_perf},
     *         {@code alltoall_perf --p2p}): the in-place row is timed and its {@code #wrong} is N/A.
     */
    public boolean checksInPlace(final boolean p2p)
    {
        return this != SEND_RECV && !(p2p && this == ALL_TO_ALL);
    }

    /**
     * Rejects a run the tool cannot make, before any rank starts.
     *
     * @param nRanks       rank count of the run.
     * @param p2p          true for {@code --p2p}.
     * @param comparePlans true for {@code --compare-plans}.
     * @throws IllegalArgumentException naming the flag or the rank count.
     */
    public void checkRun(final int nRanks, final boolean p2p, final boolean comparePlans)
    {
        if (p2p && this != ALL_TO_ALL)
        {
            throw new IllegalArgumentException(P2P_FLAG + ": only " + ALL_TO_ALL.toolName + " has a point-to-point " +
                "variant; " + toolName + " has none");
        }
        if (this == HYPERCUBE && Integer.bitCount(nRanks) != 1)
        {
            throw new IllegalArgumentException(toolName + " needs a power of two ranks (-t x -g or --nprocs), not " +
                nRanks + ": each step exchanges with rank ^ 2^k");
        }
        if (comparePlans && (collective == null || p2p))
        {
            throw new IllegalArgumentException(ComparePlans.FLAG + " compares plans of a collective; " + toolName +
                (p2p ? " " + P2P_FLAG : "") + " runs point-to-point calls, which have none");
        }
    }

    /**
     * The counts of one call, as nccl-tests' {@code getCollByteCount}. AllGather, ReduceScatter, AllToAll, Gather and
     * Scatter split the message into per-rank blocks aligned down to 16 bytes ({@code (count / nRanks) &
     * -(16 / elementSize)}), so their table size is a multiple of {@code 16 x nRanks} bytes and small sizes become 0;
     * HyperCube into blocks of a multiple of 4 elements, as nccl-tests. AllToAll's count is the block sent to each
     * peer; its send and receive buffers both hold {@code nRanks} blocks, and in place both are the receive buffer
     * from its start. Gather and HyperCube are laid out as AllGather (in place, the send buffer is block
     * {@code rank} of the receive buffer), Scatter as ReduceScatter; SendRecv sends and receives the whole count.
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
            case HYPERCUBE ->
            {
                // nccl-tests' hypercube.cu aligns its blocks to 4 elements, not 16 bytes
                final long base = count / (HYPERCUBE_ALIGN * nRanks) * HYPERCUBE_ALIGN;
                yield new CollByteCount(base, base * nRanks, base, base, 0);
            }
            case GATHER ->
            {
                final long base = alignedBlock(count, elementSize, nRanks);
                yield new CollByteCount(base, base * nRanks, base, base, 0);
            }
            case SCATTER ->
            {
                final long base = alignedBlock(count, elementSize, nRanks);
                yield new CollByteCount(base * nRanks, base, base, 0, base);
            }
            default -> new CollByteCount(count, count, count, 0, 0);
        };
    }

    /**
     * nccl-tests' algorithm bandwidth: the bytes one rank's call moves, over the time (HyperCube: the n - 1 blocks a
     * rank receives, as nccl-tests' {@code HyperCubeGetBw}).
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
        final int blocks = this == HYPERCUBE ? nRanks - 1 : blocksPerRank() ? nRanks : 1;
        final double bytes = (double)paramCount * elementSize * blocks;
        return bytes / 1.0E9 / seconds;
    }

    /**
     * nccl-tests' bus bandwidth factor: what makes busbw comparable across rank counts (the fraction of the data
     * each link carries with the optimal algorithm).
     *
     * @param nRanks rank count.
     * @return 2(n-1)/n for AllReduce, (n-1)/n for AllGather, ReduceScatter, AllToAll, Gather and Scatter, 1 for
     *         Broadcast, Reduce, SendRecv and HyperCube.
     */
    public double busBandwidthFactor(final int nRanks)
    {
        return switch (this)
        {
            case ALL_REDUCE -> 2.0 * (nRanks - 1) / nRanks;
            case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, GATHER, SCATTER -> (double)(nRanks - 1) / nRanks;
            default -> 1.0;
        };
    }

    /**
     * Starts the collective on one rank: {@link #startStep} of step 0, without {@code --p2p}, out of place for
     * HyperCube (whose other steps this does not make).
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
        return startStep(comm, 0, false, false, send, recv, count, type, op, root, stream);
    }

    /**
     * Makes one rank's calls of one step ({@link #steps}); the caller groups the step's calls of all its ranks, and
     * groups them even for one rank when {@link #pointToPoint} says so.
     *
     * @param comm    the rank.
     * @param step    the step, 0 to {@link #steps} - 1.
     * @param p2p     true for {@code --p2p}: AllToAll as a send and a receive per peer.
     * @param inPlace true when {@code send} is the rank's block of {@code recv} (HyperCube copies it otherwise).
     * @param send    send buffer.
     * @param recv    receive buffer.
     * @param count   the count argument ({@link CollByteCount#paramCount()}).
     * @param type    element type.
     * @param op      operator (ignored by the tools without {@code -o}).
     * @param root    root (ignored unless rooted).
     * @param stream  ordering domain.
     * @return the handle of the rank's last call of the step (calls on one stream complete in order).
     */
    public Work startStep(final Communicator comm, final int step, final boolean p2p, final boolean inPlace,
        final Buffer send, final Buffer recv, final long count, final DataType type, final ReduceOp op,
        final int root, final Stream stream)
    {
        return switch (this)
        {
            case ALL_REDUCE -> comm.allReduce(send, recv, count, type, op, stream);
            case ALL_GATHER -> comm.allGather(send, recv, count, type, stream);
            case REDUCE_SCATTER -> comm.reduceScatter(send, recv, count, type, op, stream);
            case BROADCAST -> comm.broadcast(send, recv, count, type, root, stream);
            case REDUCE -> comm.reduce(send, recv, count, type, op, root, stream);
            case ALL_TO_ALL -> p2p ? PointToPointCalls.allToAll(comm, send, recv, count, type, stream) :
                comm.allToAll(send, recv, count, type, stream);
            case SEND_RECV -> PointToPointCalls.sendRecv(comm, send, recv, count, type, stream);
            case HYPERCUBE -> PointToPointCalls.hypercubeStep(comm, step, inPlace, send, recv, count, type, stream);
            case GATHER -> comm.gather(send, recv, count, type, root, stream);
            case SCATTER -> comm.scatter(send, recv, count, type, root, stream);
        };
    }

    /**
     * @return true when the count is a per-rank block and the buffers hold {@code nRanks} of them on one side
     *         (the output of AllGather, HyperCube and Gather, the input of ReduceScatter and Scatter) or both
     *         (AllToAll).
     */
    public boolean blocksPerRank()
    {
        return this == ALL_GATHER || this == REDUCE_SCATTER || this == ALL_TO_ALL || this == HYPERCUBE ||
            this == GATHER || this == SCATTER;
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
