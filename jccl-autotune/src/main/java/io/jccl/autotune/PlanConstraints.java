package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.Settings;
import io.jccl.StableHash;
import io.jccl.TransportKind;
import io.jccl.schedules.Generators;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;

/**
 * What the settings allow a tuner to choose: {@code JCCL_ALGO}, {@code JCCL_PROTO}, {@code JCCL_TRANSPORT},
 * {@code JCCL_MIN_NCHANNELS}, {@code JCCL_MAX_NCHANNELS}, {@code JCCL_NTHREADS} and {@code JCCL_CHUNK_SIZE}, in
 * NCCL's syntax (DESIGN.md, "The knobs"). Immutable and thread-safe.
 * <p>
 * {@code JCCL_ALGO} and {@code JCCL_PROTO} take, case-insensitively:
 * <ul>
 *     <li>a comma list of what is allowed: {@code ring,tree}, {@code simple,ll};</li>
 *     <li>a list of what is not, after a {@code ^}: {@code ^ll128};</li>
 *     <li>per collective, {@code ;}-separated {@code name:list} parts, each list in either form:
 *     {@code allreduce:tree,ring;allgather:^ll}. A part without a name is the default for the collectives no part
 *     names ({@code ring;allreduce:tree}); without one they are unrestricted. Names are NCCL's: {@code allreduce,
 *     allgather, reducescatter, broadcast, reduce, alltoall}; {@code sendrecv} is accepted and ignored.</li>
 * </ul>
 * NCCL's algorithms that jccl lacks ({@code nvls, nvls_tree, collnet_direct, collnet_chain, pat}, with NCCL's
 * spellings without the underscore, and {@code collnet}) are dropped with a line in {@link #warnings()}, so a value
 * written for NCCL is accepted; a list left empty by that is an error. Any other name is an error naming the
 * variable and the valid values.
 * <p>
 * An algorithm is compared by what runs ({@link Generators#effective}): with {@code JCCL_ALGO=tree} an AllGather
 * still runs, as a ring, because a tree cannot compute it; with {@code allgather:ring} a plan naming TREE for an
 * AllGather is allowed, since it runs as RING.
 */
public final class PlanConstraints
{
    /** The variable that restricts algorithms. */
    public static final String ALGO_ENV = Settings.ALGO;
    /** The variable that restricts protocols. */
    public static final String PROTO_ENV = Settings.PROTO;
    /** The variable that pins the transport. */
    public static final String TRANSPORT_ENV = Settings.TRANSPORT;
    /** The variable that sets the fewest channels. */
    public static final String MIN_CHANNELS_ENV = Settings.MIN_NCHANNELS;
    /** The variable that sets the most channels. */
    public static final String MAX_CHANNELS_ENV = Settings.MAX_NCHANNELS;
    /** The variable that pins threads per block. */
    public static final String THREADS_ENV = Settings.NTHREADS;
    /** The variable that pins the chunk size. */
    public static final String CHUNK_ENV = Settings.CHUNK_SIZE;

    /** NCCL's algorithm names that jccl does not have, lower case: dropped with a warning. */
    public static final Set<String> NCCL_ONLY_ALGORITHMS = Set.of("nvls", "nvlstree", "nvls_tree", "collnet",
        "collnetdirect", "collnet_direct", "collnetchain", "collnet_chain", "pat");

    /** The algorithms' valid values, for messages. */
    static final String VALID_ALGORITHMS = "ring, tree, direct";
    /** The protocols' valid values, for messages. */
    static final String VALID_PROTOCOLS = "simple, ll, ll128";
    /** The chunk size's valid values, for messages. */
    static final String VALID_CHUNK = "a positive byte count, optionally with a K, M or G suffix " +
        "(131072, 128K, 1M), at most " + Integer.MAX_VALUE;

    private static final PlanConstraints NONE = new PlanConstraints(fill(EnumSet.allOf(Algorithm.class)),
        fill(EnumSet.allOf(Protocol.class)), null, 1, Plan.MAX_CHANNELS, 0, 0, List.of());

    private final Map<Collective, Set<Algorithm>> algorithms;
    private final Map<Collective, Set<Protocol>> protocols;
    private final TransportKind transport;
    private final int minChannels;
    private final int maxChannels;
    private final int threads;
    private final int chunkBytes;
    private final List<String> warnings;
    /** {@link #algoSpec()}: asked on every call the online tuner may decide, so built with the constraints. */
    private final String algoSpec;

    private PlanConstraints(final Map<Collective, Set<Algorithm>> algorithms,
        final Map<Collective, Set<Protocol>> protocols, final TransportKind transport, final int minChannels,
        final int maxChannels, final int threads, final int chunkBytes, final List<String> warnings)
    {
        this.algorithms = freeze(algorithms);
        this.protocols = freeze(protocols);
        this.transport = transport;
        this.minChannels = minChannels;
        this.maxChannels = maxChannels;
        this.threads = threads;
        this.chunkBytes = chunkBytes;
        this.warnings = List.copyOf(warnings);
        this.algoSpec = PlanConstraintsSyntax.spec(this.algorithms, Algorithm.class, Algorithm::lowerName);
    }

    /** @return constraints that allow every plan: nothing pinned. */
    public static PlanConstraints none()
    {
        return NONE;
    }

    /**
     * Parses the settings' values as the {@code JCCL_*} variables hold them; null or blank means unset.
     *
     * @param algo        {@code JCCL_ALGO}: algorithms, in NCCL's syntax.
     * @param proto       {@code JCCL_PROTO}: protocols, in NCCL's syntax.
     * @param transport   {@code JCCL_TRANSPORT}: one of p2p, shm, net.
     * @param minChannels {@code JCCL_MIN_NCHANNELS}: 1..32, default 1.
     * @param maxChannels {@code JCCL_MAX_NCHANNELS}: 1..32, default 32, not below the minimum.
     * @param threads     {@code JCCL_NTHREADS}: 32..640, a multiple of 32.
     * @param chunk       {@code JCCL_CHUNK_SIZE}: bytes, optionally with a K or M suffix.
     * @return the constraints, with any warnings in {@link #warnings()}.
     * @throws JcclInvalidArgumentException naming the variable and its valid values, on any value it cannot take.
     */
    public static PlanConstraints parse(final String algo, final String proto, final String transport,
        final String minChannels, final String maxChannels, final String threads, final String chunk)
    {
        return PlanConstraintsSyntax.parse(algo, proto, transport, minChannels, maxChannels, threads, chunk);
    }

    /**
     * Parses a size as {@code JCCL_CHUNK_SIZE} takes it ({@link Settings#parseBytes(String, String)}: bytes with an
     * optional {@code K}, {@code M} or {@code G} suffix in either case), at least 1 and at most
     * {@link Integer#MAX_VALUE}.
     *
     * @param variable the variable or field being parsed, for the message.
     * @param value    the text.
     * @return the size in bytes, at least 1.
     * @throws JcclInvalidArgumentException naming the variable and the valid values.
     */
    public static int parseChunkBytes(final String variable, final String value)
    {
        return PlanConstraintsSyntax.parseChunkBytes(variable, value);
    }

    /**
     * @param algorithms the algorithms allowed for every collective, not empty.
     * @return a copy with that restriction in place of the current one.
     * @throws JcclInvalidArgumentException if the set is empty.
     */
    public PlanConstraints withAlgorithms(final Set<Algorithm> algorithms)
    {
        return copy(fill(nonEmpty(ALGO_ENV, algorithms, VALID_ALGORITHMS)), this.protocols);
    }

    /**
     * @param collective the collective restricted.
     * @param algorithms the algorithms allowed for it, not empty.
     * @return a copy with that collective's restriction replaced.
     * @throws JcclInvalidArgumentException if the set is empty.
     */
    public PlanConstraints withAlgorithms(final Collective collective, final Set<Algorithm> algorithms)
    {
        final Map<Collective, Set<Algorithm>> copy = new EnumMap<>(this.algorithms);
        copy.put(Objects.requireNonNull(collective, "collective"),
            nonEmpty(ALGO_ENV, algorithms, VALID_ALGORITHMS));
        return copy(copy, this.protocols);
    }

    /**
     * @param protocols the protocols allowed for every collective, not empty.
     * @return a copy with that restriction in place of the current one.
     * @throws JcclInvalidArgumentException if the set is empty.
     */
    public PlanConstraints withProtocols(final Set<Protocol> protocols)
    {
        return copy(this.algorithms, fill(nonEmpty(PROTO_ENV, protocols, VALID_PROTOCOLS)));
    }

    /**
     * @param collective the collective restricted.
     * @param protocols  the protocols allowed for it, not empty.
     * @return a copy with that collective's restriction replaced.
     * @throws JcclInvalidArgumentException if the set is empty.
     */
    public PlanConstraints withProtocols(final Collective collective, final Set<Protocol> protocols)
    {
        final Map<Collective, Set<Protocol>> copy = new EnumMap<>(this.protocols);
        copy.put(Objects.requireNonNull(collective, "collective"),
            nonEmpty(PROTO_ENV, protocols, VALID_PROTOCOLS));
        return copy(this.algorithms, copy);
    }

    /**
     * @param transport the only transport allowed, or null to leave it free.
     * @return a copy with the transport pinned or freed.
     */
    public PlanConstraints withTransport(final TransportKind transport)
    {
        return new PlanConstraints(algorithms, protocols, transport, minChannels, maxChannels, threads, chunkBytes,
            warnings);
    }

    /**
     * @param minChannels the fewest channels, 1..32.
     * @param maxChannels the most channels, minChannels..32.
     * @return a copy with that channel range.
     * @throws JcclInvalidArgumentException naming {@code JCCL_MIN_NCHANNELS} or {@code JCCL_MAX_NCHANNELS}.
     */
    public PlanConstraints withChannels(final int minChannels, final int maxChannels)
    {
        checkChannels(MIN_CHANNELS_ENV, minChannels);
        checkChannels(MAX_CHANNELS_ENV, maxChannels);
        if (minChannels > maxChannels)
        {
            throw new JcclInvalidArgumentException(MIN_CHANNELS_ENV + "=" + minChannels + " is above " +
                MAX_CHANNELS_ENV + "=" + maxChannels + "; valid values: 1 <= " + MIN_CHANNELS_ENV + " <= " +
                MAX_CHANNELS_ENV + " <= " + Plan.MAX_CHANNELS);
        }
        return new PlanConstraints(algorithms, protocols, transport, minChannels, maxChannels, threads, chunkBytes,
            warnings);
    }

    /**
     * @param threads threads per block, 32..640 in multiples of 32, or 0 to leave it free.
     * @return a copy with threads pinned or freed.
     * @throws JcclInvalidArgumentException naming {@code JCCL_NTHREADS}.
     */
    public PlanConstraints withThreads(final int threads)
    {
        if (threads != 0 && (threads < Plan.MIN_THREADS || threads > Plan.MAX_THREADS || threads % 32 != 0))
        {
            throw new JcclInvalidArgumentException(THREADS_ENV + "=" + threads + " is invalid; valid values: " +
                threadsRange());
        }
        return new PlanConstraints(algorithms, protocols, transport, minChannels, maxChannels, threads, chunkBytes,
            warnings);
    }

    /**
     * @param chunkBytes the chunk size in bytes, positive (capped by each protocol's slot payload when used), or 0
     *                   to leave it free.
     * @return a copy with the chunk size pinned or freed.
     * @throws JcclInvalidArgumentException naming {@code JCCL_CHUNK_SIZE}.
     */
    public PlanConstraints withChunkBytes(final int chunkBytes)
    {
        if (chunkBytes < 0)
        {
            throw new JcclInvalidArgumentException(CHUNK_ENV + "=" + chunkBytes + " is negative; valid values: " +
                VALID_CHUNK);
        }
        return new PlanConstraints(algorithms, protocols, transport, minChannels, maxChannels, threads, chunkBytes,
            warnings);
    }

    /**
     * @param collective the collective of the call.
     * @param plan       a plan for it.
     * @return true when the settings allow the plan for that collective.
     */
    public boolean allows(final Collective collective, final Plan plan)
    {
        return rejection(collective, plan) == null;
    }

    /**
     * @param collective the collective of the call.
     * @param plan       a plan for it.
     * @return null when the settings allow the plan, else the setting that forbids it in the env syntax (for logs).
     */
    public String rejection(final Collective collective, final Plan plan)
    {
        if (!allowsAlgorithm(collective, plan.algorithm()))
        {
            return ALGO_ENV + "=" + algoSpec();
        }
        if (!protocols.get(collective).contains(plan.protocol()))
        {
            return PROTO_ENV + "=" + protoSpec();
        }
        if (transport != null && transport != plan.transport())
        {
            return TRANSPORT_ENV + "=" + transport.lowerName();
        }
        if (plan.channels() < minChannels || plan.channels() > maxChannels)
        {
            return MIN_CHANNELS_ENV + "=" + minChannels + " " + MAX_CHANNELS_ENV + "=" + maxChannels;
        }
        if (threads != 0 && plan.threads() != threads)
        {
            return THREADS_ENV + "=" + threads;
        }
        if (chunkBytes != 0 && plan.chunkBytes() != KnobSpace.cap(plan.protocol(), chunkBytes))
        {
            return CHUNK_ENV + "=" + PlanConstraintsSyntax.formatBytes(chunkBytes);
        }
        return null;
    }

    /**
     * @param collective a collective.
     * @param algorithm  an algorithm asked for.
     * @return true when what the algorithm runs as for that collective is what an allowed algorithm runs as.
     */
    public boolean allowsAlgorithm(final Collective collective, final Algorithm algorithm)
    {
        final Algorithm runs = Generators.effective(algorithm, collective);
        for (final Algorithm allowed : algorithms.get(collective))
        {
            if (Generators.effective(allowed, collective) == runs)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param collective a collective.
     * @return the algorithms allowed for it as configured, never empty (see {@link #allowsAlgorithm}).
     */
    public Set<Algorithm> algorithms(final Collective collective)
    {
        return algorithms.get(collective);
    }

    /**
     * @param collective a collective.
     * @return the protocols allowed for it, never empty.
     */
    public Set<Protocol> protocols(final Collective collective)
    {
        return protocols.get(collective);
    }

    /** @return the pinned transport, or null when free. */
    public TransportKind transport()
    {
        return transport;
    }

    /** @return the fewest channels, 1 when unset. */
    public int minChannels()
    {
        return minChannels;
    }

    /** @return the most channels, {@link Plan#MAX_CHANNELS} when unset. */
    public int maxChannels()
    {
        return maxChannels;
    }

    /** @return the pinned threads per block, or 0 when unset. */
    public int threads()
    {
        return threads;
    }

    /** @return the pinned chunk size in bytes (before each protocol's cap), or 0 when unset. */
    public int chunkBytes()
    {
        return chunkBytes;
    }

    /** @return what parsing dropped with a warning (NCCL-only names), for the caller to log; never null. */
    public List<String> warnings()
    {
        return warnings;
    }

    /** @return the canonical {@code JCCL_ALGO} value (inclusion lists only), or null when unrestricted. */
    public String algoSpec()
    {
        return algoSpec;
    }

    /** @return the canonical {@code JCCL_PROTO} value (inclusion lists only), or null when unrestricted. */
    public String protoSpec()
    {
        return PlanConstraintsSyntax.spec(protocols, Protocol.class, Protocol::lowerName);
    }

    /** @return true when nothing is restricted. */
    public boolean isNone()
    {
        return equals(NONE);
    }

    /**
     * @return a 64-bit hash of {@link #toString()}, the same in every JVM: ranks compare it at communicator
     *         creation (warnings do not count).
     */
    public long stableHash()
    {
        return StableHash.of(toString());
    }

    /**
     * @return the settings in the env syntax, canonical (so equal constraints print equal), e.g.
     *         {@code JCCL_ALGO=allreduce:tree JCCL_PROTO=simple,ll JCCL_MAX_NCHANNELS=4}; {@code none} when nothing
     *         is restricted.
     */
    @Override
    public String toString()
    {
        final StringJoiner out = new StringJoiner(" ");
        final String algo = algoSpec();
        if (algo != null)
        {
            out.add(ALGO_ENV + "=" + algo);
        }
        final String proto = protoSpec();
        if (proto != null)
        {
            out.add(PROTO_ENV + "=" + proto);
        }
        if (transport != null)
        {
            out.add(TRANSPORT_ENV + "=" + transport.lowerName());
        }
        if (minChannels != 1)
        {
            out.add(MIN_CHANNELS_ENV + "=" + minChannels);
        }
        if (maxChannels != Plan.MAX_CHANNELS)
        {
            out.add(MAX_CHANNELS_ENV + "=" + maxChannels);
        }
        if (threads != 0)
        {
            out.add(THREADS_ENV + "=" + threads);
        }
        if (chunkBytes != 0)
        {
            out.add(CHUNK_ENV + "=" + PlanConstraintsSyntax.formatBytes(chunkBytes));
        }
        return out.length() == 0 ? "none" : out.toString();
    }

    /**
     * @param other another object.
     * @return true when it is constraints allowing exactly the same plans (warnings do not count).
     */
    @Override
    public boolean equals(final Object other)
    {
        if (this == other)
        {
            return true;
        }
        if (!(other instanceof PlanConstraints))
        {
            return false;
        }
        final PlanConstraints that = (PlanConstraints)other;
        return algorithms.equals(that.algorithms) && protocols.equals(that.protocols) && transport == that.transport &&
            minChannels == that.minChannels && maxChannels == that.maxChannels && threads == that.threads &&
            chunkBytes == that.chunkBytes;
    }

    /** @return a hash consistent with {@link #equals}. */
    @Override
    public int hashCode()
    {
        return Objects.hash(algorithms, protocols, transport, minChannels, maxChannels, threads, chunkBytes);
    }

    /** @return the threads' valid values, for messages. */
    static String threadsRange()
    {
        return "a multiple of 32 in " + Plan.MIN_THREADS + ".." + Plan.MAX_THREADS;
    }

    /**
     * @param algorithms the algorithms allowed per collective, every set not empty.
     * @param protocols  the protocols allowed per collective, every set not empty.
     * @param warnings   what parsing dropped with a warning.
     * @return constraints with those selections and warnings and nothing else restricted.
     */
    static PlanConstraints selecting(final Map<Collective, Set<Algorithm>> algorithms,
        final Map<Collective, Set<Protocol>> protocols, final List<String> warnings)
    {
        return NONE.withWarnings(warnings).copy(algorithms, protocols);
    }

    private PlanConstraints copy(final Map<Collective, Set<Algorithm>> algorithms,
        final Map<Collective, Set<Protocol>> protocols)
    {
        return new PlanConstraints(algorithms, protocols, transport, minChannels, maxChannels, threads, chunkBytes,
            warnings);
    }

    private PlanConstraints withWarnings(final List<String> warnings)
    {
        return new PlanConstraints(algorithms, protocols, transport, minChannels, maxChannels, threads, chunkBytes,
            warnings);
    }

    private static void checkChannels(final String variable, final int channels)
    {
        if (channels < 1 || channels > Plan.MAX_CHANNELS)
        {
            throw new JcclInvalidArgumentException(variable + "=" + channels + " is outside the valid values 1.." +
                Plan.MAX_CHANNELS);
        }
    }

    private static <E extends Enum<E>> Set<E> nonEmpty(final String variable, final Set<E> set, final String valid)
    {
        if (set == null || set.isEmpty())
        {
            throw new JcclInvalidArgumentException(variable + " allows nothing (an empty set); valid values: " +
                valid);
        }
        return EnumSet.copyOf(set);
    }

    /**
     * @param set what every collective allows.
     * @param <E> the knob: {@link Algorithm} or {@link Protocol}.
     * @return a map from every collective to that set.
     */
    static <E extends Enum<E>> Map<Collective, Set<E>> fill(final Set<E> set)
    {
        final Map<Collective, Set<E>> map = new EnumMap<>(Collective.class);
        for (final Collective collective : Collective.values())
        {
            map.put(collective, set);
        }
        return map;
    }

    private static <E extends Enum<E>> Map<Collective, Set<E>> freeze(final Map<Collective, Set<E>> map)
    {
        final Map<Collective, Set<E>> copy = new EnumMap<>(Collective.class);
        for (final Map.Entry<Collective, Set<E>> entry : map.entrySet())
        {
            copy.put(entry.getKey(), Collections.unmodifiableSet(EnumSet.copyOf(entry.getValue())));
        }
        return Collections.unmodifiableMap(copy);
    }
}
