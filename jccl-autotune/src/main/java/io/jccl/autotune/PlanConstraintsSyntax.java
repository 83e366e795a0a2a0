package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.Settings;
import io.jccl.TransportKind;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The settings' {@code JCCL_*} syntax, read and written: the parser of their values into {@link PlanConstraints}
 * (NCCL's {@code JCCL_ALGO} and {@code JCCL_PROTO} syntax with comma lists, {@code ^} exclusion, per-collective
 * {@code name:list} parts and NCCL-only algorithms dropped with a warning, as {@link PlanConstraints} describes it;
 * the transport, the channels, the threads and the chunk size), every error naming the variable and its valid
 * values; and the canonical text of a selection or a size, which the parser reads back as the same constraints.
 * Stateless.
 */
final class PlanConstraintsSyntax
{
    private static final String SENDRECV = "sendrecv";
    private static final String VALID_COLLECTIVES =
        "allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv";

    private PlanConstraintsSyntax()
    {
    }

    /**
     * Parses the settings' values as the {@code JCCL_*} variables hold them; null or blank means unset
     * ({@link PlanConstraints#parse}).
     *
     * @param algo        {@code JCCL_ALGO}: algorithms, in NCCL's syntax.
     * @param proto       {@code JCCL_PROTO}: protocols, in NCCL's syntax.
     * @param transport   {@code JCCL_TRANSPORT}: one of p2p, shm, net.
     * @param minChannels {@code JCCL_MIN_NCHANNELS}: 1..32, default 1.
     * @param maxChannels {@code JCCL_MAX_NCHANNELS}: 1..32, default 32, not below the minimum.
     * @param threads     {@code JCCL_NTHREADS}: 32..640, a multiple of 32.
     * @param chunk       {@code JCCL_CHUNK_SIZE}: bytes, optionally with a K or M suffix.
     * @return the constraints, with any warnings in {@link PlanConstraints#warnings()}.
     * @throws JcclInvalidArgumentException naming the variable and its valid values, on any value it cannot take.
     */
    static PlanConstraints parse(final String algo, final String proto, final String transport,
        final String minChannels, final String maxChannels, final String threads, final String chunk)
    {
        final List<String> warnings = new ArrayList<>();
        final Map<Collective, Set<Algorithm>> algorithms = isBlank(algo) ?
            PlanConstraints.fill(EnumSet.allOf(Algorithm.class)) :
            parseSelection(PlanConstraints.ALGO_ENV, algo.strip(), Algorithm.class,
            PlanConstraintsSyntax::algorithmNamed, PlanConstraints.NCCL_ONLY_ALGORITHMS,
            PlanConstraints.VALID_ALGORITHMS, "algorithm", warnings);
        final Map<Collective, Set<Protocol>> protocols = isBlank(proto) ?
            PlanConstraints.fill(EnumSet.allOf(Protocol.class)) :
            parseSelection(PlanConstraints.PROTO_ENV, proto.strip(), Protocol.class,
            PlanConstraintsSyntax::protocolNamed, Set.of(), PlanConstraints.VALID_PROTOCOLS, "protocol", warnings);
        final TransportKind transportKind = isBlank(transport) ? null :
            parseTransport(PlanConstraints.TRANSPORT_ENV, transport);
        final int min = isBlank(minChannels) ? 1 :
            parseInt(PlanConstraints.MIN_CHANNELS_ENV, minChannels, "1.." + Plan.MAX_CHANNELS);
        final int max = isBlank(maxChannels) ? Plan.MAX_CHANNELS :
            parseInt(PlanConstraints.MAX_CHANNELS_ENV, maxChannels, "1.." + Plan.MAX_CHANNELS);
        final int threadCount = isBlank(threads) ? 0 :
            parseInt(PlanConstraints.THREADS_ENV, threads, PlanConstraints.threadsRange());
        if (!isBlank(threads) && threadCount == 0)
        {
            throw new JcclInvalidArgumentException(PlanConstraints.THREADS_ENV + "='" + threads +
                "' is invalid; valid values: " + PlanConstraints.threadsRange());
        }
        final int chunkLength = isBlank(chunk) ? 0 : parseChunkBytes(PlanConstraints.CHUNK_ENV, chunk);
        return PlanConstraints.selecting(algorithms, protocols, warnings)
            .withTransport(transportKind)
            .withChannels(min, max)
            .withThreads(threadCount)
            .withChunkBytes(chunkLength);
    }

    /**
     * Parses a size as {@code JCCL_CHUNK_SIZE} takes it ({@link PlanConstraints#parseChunkBytes}).
     *
     * @param variable the variable or field being parsed, for the message.
     * @param value    the text.
     * @return the size in bytes, at least 1.
     * @throws JcclInvalidArgumentException naming the variable and the valid values.
     */
    static int parseChunkBytes(final String variable, final String value)
    {
        final long bytes;
        try
        {
            bytes = Settings.parseBytes(variable, value);
        }
        catch (final JcclInvalidArgumentException ex)
        {
            throw new JcclInvalidArgumentException(variable + "='" + value + "' is not a size; valid values: " +
                PlanConstraints.VALID_CHUNK, ex);
        }
        if (bytes < 1 || bytes > Integer.MAX_VALUE)
        {
            throw new JcclInvalidArgumentException(variable + "='" + value + "' is out of range; valid values: " +
                PlanConstraints.VALID_CHUNK);
        }
        return (int)bytes;
    }

    /**
     * @param variable the variable or field being parsed, for the message.
     * @param value    the text: p2p, shm or net, in any case.
     * @return the transport.
     * @throws JcclInvalidArgumentException naming the variable and the valid values.
     */
    static TransportKind parseTransport(final String variable, final String value)
    {
        final String name = value.strip();
        for (final TransportKind kind : TransportKind.values())
        {
            if (kind.lowerName().equalsIgnoreCase(name))
            {
                return kind;
            }
        }
        throw new JcclInvalidArgumentException(variable + "='" + value + "' is not a transport; valid values: " +
            "p2p, shm, net");
    }

    private static int parseInt(final String variable, final String value, final String valid)
    {
        try
        {
            return Integer.parseInt(value.strip());
        }
        catch (final NumberFormatException ex)
        {
            throw new JcclInvalidArgumentException(variable + "='" + value + "' is not an integer; valid values: " +
                valid);
        }
    }

    private static boolean isBlank(final String value)
    {
        return value == null || value.isBlank();
    }

    private static Algorithm algorithmNamed(final String lowerName)
    {
        for (final Algorithm algorithm : Algorithm.values())
        {
            if (algorithm.lowerName().equals(lowerName))
            {
                return algorithm;
            }
        }
        return null;
    }

    private static Protocol protocolNamed(final String lowerName)
    {
        for (final Protocol protocol : Protocol.values())
        {
            if (protocol.lowerName().equals(lowerName))
            {
                return protocol;
            }
        }
        return null;
    }

    private static Collective collectiveNamed(final String lowerName)
    {
        for (final Collective collective : Collective.values())
        {
            if (collective.xmlName().equals(lowerName))
            {
                return collective;
            }
        }
        return null;
    }

    private static <E extends Enum<E>> Map<Collective, Set<E>> parseSelection(final String variable,
        final String value, final Class<E> type, final Function<String, E> lookup, final Set<String> ncclOnly,
        final String valid, final String what, final List<String> warnings)
    {
        final Map<Collective, Set<E>> result = PlanConstraints.fill(EnumSet.allOf(type));
        final Set<Collective> named = EnumSet.noneOf(Collective.class);
        Set<E> defaults = null;
        for (final String rawPart : value.split(";", -1))
        {
            final String part = rawPart.strip();
            if (part.isEmpty())
            {
                continue;
            }
            final int colon = part.indexOf(':');
            if (colon < 0)
            {
                if (defaults != null)
                {
                    throw new JcclInvalidArgumentException(variable + "='" + value + "' has two parts without a " +
                        "collective; at most one part may omit its 'collective:' prefix");
                }
                defaults = parseList(variable, value, part, type, lookup, ncclOnly, valid, what, warnings);
                continue;
            }
            final String name = part.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            final String list = part.substring(colon + 1);
            if (SENDRECV.equals(name))
            {
                parseList(variable, value, list, type, lookup, ncclOnly, valid, what, warnings);
                continue;
            }
            final Collective collective = collectiveNamed(name);
            if (collective == null)
            {
                throw new JcclInvalidArgumentException(variable + "='" + value + "' names an unknown collective '" +
                    part.substring(0, colon).strip() + "'; valid collectives: " + VALID_COLLECTIVES);
            }
            if (!named.add(collective))
            {
                throw new JcclInvalidArgumentException(variable + "='" + value + "' names collective '" + name +
                    "' twice");
            }
            result.put(collective, parseList(variable, value, list, type, lookup, ncclOnly, valid, what, warnings));
        }
        for (final Collective collective : Collective.values())
        {
            if (defaults != null && !named.contains(collective))
            {
                result.put(collective, defaults);
            }
            if (result.get(collective).isEmpty())
            {
                throw new JcclInvalidArgumentException(variable + "='" + value + "' leaves no " + what + " for " +
                    collective.xmlName() + "; valid values: " + valid);
            }
        }
        return result;
    }

    private static <E extends Enum<E>> Set<E> parseList(final String variable, final String value,
        final String list, final Class<E> type, final Function<String, E> lookup, final Set<String> ncclOnly,
        final String valid, final String what, final List<String> warnings)
    {
        final String trimmed = list.strip();
        final boolean exclude = trimmed.startsWith("^");
        final Set<E> listed = EnumSet.noneOf(type);
        boolean droppedAny = false;
        for (final String rawToken : (exclude ? trimmed.substring(1) : trimmed).split(",", -1))
        {
            final String token = rawToken.strip();
            if (token.isEmpty())
            {
                continue;
            }
            final String lower = token.toLowerCase(Locale.ROOT);
            final E element = lookup.apply(lower);
            if (element != null)
            {
                listed.add(element);
            }
            else if (ncclOnly.contains(lower))
            {
                droppedAny = true;
                warnings.add(variable + ": '" + token + "' is an NCCL " + what + " jccl does not have; ignored");
            }
            else
            {
                throw new JcclInvalidArgumentException(variable + "='" + value + "' names an unknown " + what + " '" +
                    token + "'; valid values: " + valid + (ncclOnly.isEmpty() ? "" :
                    " (NCCL's " + String.join(", ", new TreeSet<>(ncclOnly)) + " are ignored)"));
            }
        }
        if (exclude)
        {
            final Set<E> complement = EnumSet.allOf(type);
            complement.removeAll(listed);
            return complement;
        }
        if (listed.isEmpty())
        {
            throw new JcclInvalidArgumentException(variable + "='" + value + "' has an empty " + what + " list" +
                (droppedAny ? " once NCCL-only names are ignored" : "") + "; valid values: " + valid);
        }
        return listed;
    }

    /**
     * @param bytes a byte count.
     * @return it with a K or M suffix where that is exact ({@code 131072} is {@code 128K}), as
     *         {@link #parseChunkBytes} reads it back.
     */
    static String formatBytes(final long bytes)
    {
        if (bytes > 0 && bytes % (1 << 20) == 0)
        {
            return (bytes >> 20) + "M";
        }
        if (bytes > 0 && bytes % (1 << 10) == 0)
        {
            return (bytes >> 10) + "K";
        }
        return Long.toString(bytes);
    }

    /**
     * @param map  what each collective allows.
     * @param type the knob: {@link Algorithm} or {@link Protocol}.
     * @param name the name of a value of the knob, as the variable takes it.
     * @param <E>  the knob.
     * @return the canonical value of the knob's variable (inclusion lists only, a {@code name:list} part for each
     *         collective restricted unless all are alike), or null when nothing is restricted.
     */
    static <E extends Enum<E>> String spec(final Map<Collective, Set<E>> map, final Class<E> type,
        final Function<E, String> name)
    {
        final Set<E> all = EnumSet.allOf(type);
        final Set<E> first = map.get(Collective.values()[0]);
        boolean uniform = true;
        boolean unrestricted = true;
        for (final Set<E> set : map.values())
        {
            uniform &= set.equals(first);
            unrestricted &= set.equals(all);
        }
        if (unrestricted)
        {
            return null;
        }
        if (uniform)
        {
            return join(first, name);
        }
        final StringJoiner parts = new StringJoiner(";");
        for (final Map.Entry<Collective, Set<E>> entry : map.entrySet())
        {
            if (!entry.getValue().equals(all))
            {
                parts.add(entry.getKey().xmlName() + ":" + join(entry.getValue(), name));
            }
        }
        return parts.toString();
    }

    private static <E extends Enum<E>> String join(final Set<E> set, final Function<E, String> name)
    {
        final StringJoiner list = new StringJoiner(",");
        for (final E element : set)
        {
            list.add(name.apply(element));
        }
        return list.toString();
    }
}
