package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.schedules.Generators;

import java.util.ArrayList;
import java.util.List;

/**
 * One AutoCCL subspace: an algorithm x protocol x transport, and the grid of its resource knobs (channels, chunk,
 * threads), each an ascending ladder from {@link KnobSpace}. A point of the grid is an index per knob. Immutable.
 */
final class Subspace
{
    /** The knob index of channels. */
    static final int CHANNELS = 0;
    /** The knob index of the chunk size. */
    static final int CHUNK = 1;
    /** The knob index of threads per block. */
    static final int THREADS = 2;
    /** The knobs, in the order coordinate descent walks them. */
    static final int KNOBS = 3;

    private final int index;
    private final Algorithm algorithm;
    private final Protocol protocol;
    private final TransportKind transport;
    private final int[][] ladders;

    private Subspace(final int index, final Algorithm algorithm, final Protocol protocol,
        final TransportKind transport, final int[][] ladders)
    {
        this.index = index;
        this.algorithm = algorithm;
        this.protocol = protocol;
        this.transport = transport;
        this.ladders = ladders;
    }

    /**
     * @param request     the call shape.
     * @param constraints what the settings allow.
     * @return the subspaces of {@link KnobSpace#candidates}, in its order (algorithm, protocol, transport).
     */
    static List<Subspace> of(final PlanRequest request, final PlanConstraints constraints)
    {
        final int[] channels = toArray(KnobSpace.channels(constraints));
        final int[] threads = {KnobSpace.threads(constraints)};
        final List<Subspace> subspaces = new ArrayList<>();
        for (final Algorithm algorithm : KnobSpace.algorithms(request.collective(), constraints))
        {
            for (final Protocol protocol : KnobSpace.protocols(algorithm, request.collective(), constraints))
            {
                final int[] chunks = toArray(KnobSpace.chunks(protocol, constraints));
                for (final TransportKind transport : KnobSpace.transports(request, constraints))
                {
                    subspaces.add(new Subspace(subspaces.size(), algorithm, protocol, transport,
                        new int[][]{channels, chunks, threads}));
                }
            }
        }
        return subspaces;
    }

    /**
     * @param subspaces the subspaces of a task.
     * @param plan      a plan.
     * @param request   the call shape (its collective decides what the plan's algorithm runs as).
     * @return the index of the subspace holding the plan's algorithm, protocol and transport, or -1.
     */
    static int indexOf(final List<Subspace> subspaces, final Plan plan, final PlanRequest request)
    {
        final Algorithm runs = Generators.effective(plan.algorithm(), request.collective());
        for (final Subspace subspace : subspaces)
        {
            if (subspace.algorithm == runs && subspace.protocol == plan.protocol() &&
                subspace.transport == plan.transport())
            {
                return subspace.index;
            }
        }
        return -1;
    }

    /** @return the place in the task's list of subspaces. */
    int index()
    {
        return index;
    }

    /**
     * @param knob a knob index.
     * @return how many values it takes here.
     */
    int size(final int knob)
    {
        return ladders[knob].length;
    }

    /** @return the points of the grid. */
    int points()
    {
        return ladders[CHANNELS].length * ladders[CHUNK].length * ladders[THREADS].length;
    }

    /** @return the knobs with more than one value, which descent can move. */
    int movableKnobs()
    {
        int movable = 0;
        for (final int[] ladder : ladders)
        {
            movable += ladder.length > 1 ? 1 : 0;
        }
        return movable;
    }

    /**
     * @param ordinal a point's number, 0..{@link #points()}-1, channels varying slowest.
     * @return the point.
     */
    int[] point(final int ordinal)
    {
        final int threadCount = ladders[THREADS].length;
        final int chunkCount = ladders[CHUNK].length;
        return new int[]{ordinal / (chunkCount * threadCount), ordinal / threadCount % chunkCount,
            ordinal % threadCount};
    }

    /**
     * @param point an index per knob.
     * @return the plan at that point.
     */
    Plan plan(final int[] point)
    {
        return new Plan(algorithm, protocol, transport, ladders[CHANNELS][point[CHANNELS]],
            ladders[THREADS][point[THREADS]], ladders[CHUNK][point[CHUNK]]);
    }

    /**
     * @param plan any plan.
     * @return the grid point nearest to its channels, chunk (capped to this protocol) and threads, each by ratio.
     */
    int[] project(final Plan plan)
    {
        return new int[]{
            nearest(ladders[CHANNELS], plan.channels()),
            nearest(ladders[CHUNK], KnobSpace.cap(protocol, plan.chunkBytes())),
            nearest(ladders[THREADS], plan.threads())};
    }

    /** @return the subspace as text: {@code ring/simple/p2p}. */
    @Override
    public String toString()
    {
        return algorithm.lowerName() + '/' + protocol.lowerName() + '/' + transport.lowerName();
    }

    private static int nearest(final int[] ladder, final int value)
    {
        int best = 0;
        double bestDistance = Double.POSITIVE_INFINITY;
        for (int i = 0; i < ladder.length; i++)
        {
            final double distance = Math.abs(StrictMath.log((double)ladder[i] / value));
            if (distance < bestDistance)
            {
                best = i;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static int[] toArray(final List<Integer> values)
    {
        final int[] array = new int[values.size()];
        for (int i = 0; i < array.length; i++)
        {
            array[i] = values.get(i);
        }
        return array;
    }
}
