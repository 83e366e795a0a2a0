package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.schedules.Generators;

import java.util.ArrayList;
import java.util.List;

/**
 * The plans the host backend offers for a call shape under the settings' constraints, in a fixed order
 * (algorithm, protocol, transport, channels, chunk, each ascending as listed below), so that a tuner that breaks
 * ties by that order picks the same plan on every rank.
 * <ul>
 *     <li>algorithms: those allowed, as they run ({@link Generators#effective}): TREE is not offered where it would
 *     run as RING, and AllToAll, which always runs its direct program, offers RING alone as a placeholder;</li>
 *     <li>protocols: those allowed; DIRECT only with SIMPLE where SIMPLE is allowed ({@link #protocols}): its one
 *     message per peer is a SIMPLE slot, whose header line carries up to 24 bytes and whose larger pieces a P2P
 *     receiver reads in place, and the flagged framing of LL and LL128 would only add copies to an algorithm whose
 *     point is latency;</li>
 *     <li>transports: the pinned one, else P2P and SHM on one node, and NET as well across nodes (the plan's
 *     transport names the path between ranks on one host; hops between hosts always cross the network);</li>
 *     <li>channels: the minimum, the powers of two between, and the maximum;</li>
 *     <li>chunk: the pinned size, else the ladder {@link #CHUNK_LADDER}; either capped by the protocol's slot
 *     payload ({@link #cap});</li>
 *     <li>threads: the pinned value, else {@link PinnedTuner#HOST_THREADS}. Threads per block have no effect on
 *     the host backend; a pinned value is only carried in the plan (and reported).</li>
 * </ul>
 * The slot payloads are those of jccl-transport's {@code ProtocolDescriptor} (NCCL's buffer sizes split into 8
 * slots), copied here because this module may not depend on that one.
 */
public final class KnobSpace
{
    /** Slots per FIFO (NCCL's {@code NCCL_STEPS}). */
    public static final int SLOTS = 8;
    /** SIMPLE: 4 MiB buffer over 8 slots, all of it data. */
    public static final int SIMPLE_SLOT_PAYLOAD = (4 << 20) / SLOTS;
    /** LL: 512 KiB of 8-byte words over 8 slots; half of each word is data. */
    public static final int LL_SLOT_PAYLOAD = (512 << 10) / SLOTS / 2;
    /** LL128: 36864 lines of 128 bytes over 8 slots; 120 of each 128 bytes are data. */
    public static final int LL128_SLOT_PAYLOAD = 36864 * 128 / SLOTS / 128 * 120;
    /** The chunk sizes offered when none is pinned, in bytes, ascending. */
    public static final List<Integer> CHUNK_LADDER = List.of(32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10);
    /** The chunk a plan gets when nothing else decides it (before the protocol's cap). */
    public static final int DEFAULT_CHUNK_BYTES = 128 << 10;

    private KnobSpace()
    {
    }

    /**
     * @param protocol a protocol.
     * @return the data one of its slots carries: the most a chunk can move in one step.
     */
    public static int slotPayload(final Protocol protocol)
    {
        return switch (protocol)
        {
            case SIMPLE -> SIMPLE_SLOT_PAYLOAD;
            case LL -> LL_SLOT_PAYLOAD;
            case LL128 -> LL128_SLOT_PAYLOAD;
        };
    }

    /**
     * @param protocol   a protocol.
     * @param chunkBytes a chunk size asked for, positive.
     * @return the chunk that runs: {@code min(chunkBytes, slotPayload(protocol))}.
     */
    public static int cap(final Protocol protocol, final int chunkBytes)
    {
        return Math.min(chunkBytes, slotPayload(protocol));
    }

    /**
     * @param request     the call shape.
     * @param constraints what the settings allow.
     * @return every plan offered, in the fixed order; never empty, and every one allowed by the constraints.
     */
    public static List<Plan> candidates(final PlanRequest request, final PlanConstraints constraints)
    {
        final Collective collective = request.collective();
        final int threads = threads(constraints);
        final List<Integer> channels = channels(constraints);
        final List<Plan> plans = new ArrayList<>();
        for (final Algorithm algorithm : algorithms(collective, constraints))
        {
            for (final Protocol protocol : protocols(algorithm, collective, constraints))
            {
                final List<Integer> chunks = chunks(protocol, constraints);
                for (final TransportKind transport : transports(request, constraints))
                {
                    for (final int channelCount : channels)
                    {
                        for (final int chunk : chunks)
                        {
                            plans.add(new Plan(algorithm, protocol, transport, channelCount, threads, chunk));
                        }
                    }
                }
            }
        }
        return plans;
    }

    /**
     * @param collective  the collective.
     * @param constraints what the settings allow.
     * @return the algorithms that run for it, distinct, in enum order.
     */
    public static List<Algorithm> algorithms(final Collective collective, final PlanConstraints constraints)
    {
        final List<Algorithm> algorithms = new ArrayList<>(2);
        for (final Algorithm algorithm : Algorithm.values())
        {
            if (Generators.effective(algorithm, collective) == algorithm &&
                (collective != Collective.ALL_TO_ALL || algorithm == Algorithm.RING) &&
                constraints.allowsAlgorithm(collective, algorithm))
            {
                algorithms.add(algorithm);
            }
        }
        return algorithms;
    }

    /**
     * @param algorithm   an algorithm offered for the collective ({@link #algorithms}).
     * @param collective  the collective.
     * @param constraints what the settings allow.
     * @return the protocols allowed, in enum order; for DIRECT only SIMPLE when it is allowed.
     */
    public static List<Protocol> protocols(final Algorithm algorithm, final Collective collective,
        final PlanConstraints constraints)
    {
        final List<Protocol> allowed = new ArrayList<>(Protocol.values().length);
        for (final Protocol protocol : Protocol.values())
        {
            if (constraints.protocols(collective).contains(protocol))
            {
                allowed.add(protocol);
            }
        }
        return algorithm == Algorithm.DIRECT && allowed.contains(Protocol.SIMPLE) ? List.of(Protocol.SIMPLE) : allowed;
    }

    /**
     * @param request     the call shape.
     * @param constraints what the settings allow.
     * @return the pinned transport; else P2P and SHM, and NET when the ranks span more than one node.
     */
    public static List<TransportKind> transports(final PlanRequest request, final PlanConstraints constraints)
    {
        if (constraints.transport() != null)
        {
            return List.of(constraints.transport());
        }
        return request.nodes() > 1 ? List.of(TransportKind.P2P, TransportKind.SHM, TransportKind.NET) :
            List.of(TransportKind.P2P, TransportKind.SHM);
    }

    /**
     * @param constraints what the settings allow.
     * @return the minimum channel count, the powers of two above it and below the maximum, and the maximum.
     */
    public static List<Integer> channels(final PlanConstraints constraints)
    {
        final int min = constraints.minChannels();
        final int max = constraints.maxChannels();
        final List<Integer> channels = new ArrayList<>();
        channels.add(min);
        for (int power = Integer.highestOneBit(min) << 1; power < max; power <<= 1)
        {
            channels.add(power);
        }
        if (max > min)
        {
            channels.add(max);
        }
        return channels;
    }

    /**
     * @param protocol    a protocol.
     * @param constraints what the settings allow.
     * @return the pinned chunk, capped; else the ladder, capped and without repeats, ascending.
     */
    public static List<Integer> chunks(final Protocol protocol, final PlanConstraints constraints)
    {
        if (constraints.chunkBytes() != 0)
        {
            return List.of(cap(protocol, constraints.chunkBytes()));
        }
        final List<Integer> chunks = new ArrayList<>(CHUNK_LADDER.size());
        for (final int chunk : CHUNK_LADDER)
        {
            final int capped = cap(protocol, chunk);
            if (!chunks.contains(capped))
            {
                chunks.add(capped);
            }
        }
        return chunks;
    }

    /**
     * @param constraints what the settings allow.
     * @return the pinned threads per block, else {@link PinnedTuner#HOST_THREADS} (no effect on the host backend).
     */
    public static int threads(final PlanConstraints constraints)
    {
        return constraints.threads() != 0 ? constraints.threads() : PinnedTuner.HOST_THREADS;
    }
}
