package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.StableHash;
import io.jccl.TransportKind;
import io.jccl.schedules.Generators;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A tuner table in the CSV format of NCCL's example tuner plugin ({@code ext-tuner/example}), so a file written for
 * that plugin loads unchanged:
 * <pre>
 * # comment; blank lines are ignored
 * collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]
 * allreduce,0,65536,tree,ll,2,1,-1,-1,1
 * allreduce,65537,4294967295,ring,simple,-1,-1,-1   # jccl: transport=p2p chunk=128K threads=256
 * </pre>
 * <ul>
 *     <li>collective_type: broadcast, reduce, allgather, reducescatter, allreduce, and alltoall (a jccl
 *     extension);</li>
 *     <li>min_bytes..max_bytes: NCCL's {@code nBytes} (DESIGN.md, "Sizes"), both inclusive;</li>
 *     <li>algorithm: tree or ring. A line naming an algorithm of NCCL's that jccl lacks (nvls, nvls_tree,
 *     collnet_direct, collnet_chain, pat) is skipped with a line in {@link #warnings()}. TREE where a tree cannot
 *     run (AllGather, ReduceScatter, AllToAll) runs as RING ({@link Generators#effective});</li>
 *     <li>protocol: ll, ll128, simple;</li>
 *     <li>channels: a count, or -1 to keep the fallback's; above jccl's 32 it is clamped with a warning;</li>
 *     <li>nNodes, nRanks, numPipeOps: a value to match, or -1 for any; regBuff: 0, 1, or -1 for any. Omitted
 *     numPipeOps and regBuff match any.</li>
 * </ul>
 * jccl's other knobs ride in a trailing comment that starts with {@code jccl:}, space-separated {@code key=value}
 * pairs without commas (NCCL's parser reads the line's last number and ignores the rest): {@code transport} (p2p,
 * shm, net), {@code chunk} (bytes, or with a K or M suffix) and {@code threads} (32..640, a multiple of 32). Other
 * trailing comments are ignored.
 * <p>
 * The first line that matches a call decides it: the fallback's plan for the call with the line's algorithm,
 * protocol, channels (unless -1) and jccl extras put in, the chunk capped to the protocol's slot payload. The
 * result is returned even if the fallback's constraints would reject it: precedence is the caller's job (the table
 * ranks above the cost model and below pins; see {@link TunerChain}). No match: the fallback's plan.
 * <p>
 * Malformed lines throw a {@link TunerConfigException} listing every one as {@code file:line: reason}. Immutable;
 * thread-safe if the fallback is.
 */
public final class TableTuner implements Tuner
{
    /** The prefix of a trailing comment that carries jccl's extra knobs. */
    public static final String JCCL_COMMENT = "jccl:";
    /** The fields NCCL's format requires. */
    public static final int MIN_FIELDS = 8;
    /** The most fields NCCL's format has. */
    public static final int MAX_FIELDS = 10;

    private static final String FORMAT =
        "collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]";
    private static final String VALID_COLLECTIVES = "broadcast, reduce, allgather, reducescatter, allreduce, alltoall";
    private static final List<String> NCCL_ONLY_ALGORITHMS =
        List.of("nvls", "nvls_tree", "collnet_direct", "collnet_chain", "pat");

    private final String sourceName;
    private final List<Row> rows;
    private final List<String> warnings;
    private final Tuner fallback;

    /**
     * One line of the table.
     *
     * @param location   {@code file:line}, for messages.
     * @param collective the collective matched.
     * @param minBytes   the fewest bytes matched, inclusive.
     * @param maxBytes   the most bytes matched, inclusive.
     * @param algorithm  the algorithm put in, as written (TREE runs as RING where a tree cannot run).
     * @param protocol   the protocol put in.
     * @param channels   the channels put in, or -1 to keep the fallback's.
     * @param nodes      the node count matched, or -1 for any.
     * @param ranks      the rank count matched, or -1 for any.
     * @param pipeOps    the aggregated call count matched, or -1 for any.
     * @param regBuff    1 to match registered buffers, 0 unregistered, -1 either.
     * @param transport  the transport put in ({@code # jccl: transport=}), or null to keep the fallback's.
     * @param chunkBytes the chunk put in ({@code # jccl: chunk=}), or 0 to keep the fallback's.
     * @param threads    the threads put in ({@code # jccl: threads=}), or 0 to keep the fallback's.
     */
    public record Row(String location, Collective collective, long minBytes, long maxBytes, Algorithm algorithm,
        Protocol protocol, int channels, int nodes, int ranks, int pipeOps, int regBuff, TransportKind transport,
        int chunkBytes, int threads)
    {
        /**
         * @param request a call shape.
         * @return true when this line applies to it.
         */
        public boolean matches(final PlanRequest request)
        {
            return collective == request.collective() &&
                minBytes <= request.bytes() && request.bytes() <= maxBytes &&
                (nodes == -1 || nodes == request.nodes()) &&
                (ranks == -1 || ranks == request.ranks()) &&
                (pipeOps == -1 || pipeOps == request.pipeOps()) &&
                (regBuff == -1 || regBuff == (request.registered() ? 1 : 0));
        }

        /**
         * @param base the plan to override (the fallback's).
         * @return the base with this line's algorithm (as it runs), protocol, channels and extras put in, the chunk
         *         capped to the protocol's slot payload.
         */
        public Plan apply(final Plan base)
        {
            return new Plan(
                Generators.effective(algorithm, collective),
                protocol,
                transport == null ? base.transport() : transport,
                channels == -1 ? base.channels() : channels,
                threads == 0 ? base.threads() : threads,
                KnobSpace.cap(protocol, chunkBytes == 0 ? base.chunkBytes() : chunkBytes));
        }

        /** @return the line in the table's syntax, without its location (for hashing and logs). */
        public String canonical()
        {
            final StringBuilder text = new StringBuilder(96);
            text.append(collective.xmlName()).append(',').append(minBytes).append(',').append(maxBytes).append(',')
                .append(algorithm.lowerName()).append(',').append(protocol.lowerName()).append(',').append(channels)
                .append(',').append(nodes).append(',').append(ranks).append(',').append(pipeOps).append(',')
                .append(regBuff);
            if (transport != null || chunkBytes != 0 || threads != 0)
            {
                text.append(" # ").append(JCCL_COMMENT);
                if (transport != null)
                {
                    text.append(" transport=").append(transport.lowerName());
                }
                if (chunkBytes != 0)
                {
                    text.append(" chunk=").append(PlanConstraintsSyntax.formatBytes(chunkBytes));
                }
                if (threads != 0)
                {
                    text.append(" threads=").append(threads);
                }
            }
            return text.toString();
        }
    }

    private TableTuner(final String sourceName, final List<Row> rows, final List<String> warnings,
        final Tuner fallback)
    {
        this.sourceName = sourceName;
        this.rows = List.copyOf(rows);
        this.warnings = List.copyOf(warnings);
        this.fallback = fallback;
    }

    /**
     * Reads a table file (UTF-8).
     *
     * @param file     the file ({@code JCCL_TUNER_CONFIG_FILE}).
     * @param fallback the tuner whose plans the lines override and which decides unmatched calls; may be null,
     *                 then matches start from a default plan and unmatched calls get null.
     * @return the table.
     * @throws TunerConfigException   listing every malformed line as {@code file:line: reason}.
     * @throws JcclSystemException    if the file cannot be read.
     * @throws JcclInvalidArgumentException if file is null.
     */
    public static TableTuner load(final Path file, final Tuner fallback)
    {
        if (file == null)
        {
            throw new JcclInvalidArgumentException("tuner table file is null");
        }
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new JcclSystemException("tuner table " + file + " cannot be read: " + ex, ex);
        }
        return parse(file.toString(), lines, fallback);
    }

    /**
     * Parses a table's lines.
     *
     * @param sourceName the file or source name, for messages.
     * @param lines      the lines, the first being line 1.
     * @param fallback   the tuner whose plans the lines override and which decides unmatched calls; may be null,
     *                   then matches start from a default plan and unmatched calls get null.
     * @return the table.
     * @throws TunerConfigException listing every malformed line as {@code file:line: reason}.
     */
    public static TableTuner parse(final String sourceName, final List<String> lines, final Tuner fallback)
    {
        final String source = sourceName == null ? "tuner table" : sourceName;
        final List<Row> rows = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++)
        {
            final Row row = new LineParser(source + ":" + (i + 1), warnings, errors).parse(lines.get(i));
            if (row != null)
            {
                rows.add(row);
            }
        }
        if (!errors.isEmpty())
        {
            throw new TunerConfigException(source, errors);
        }
        return new TableTuner(source, rows, warnings, fallback);
    }

    /**
     * @param request the call shape.
     * @return the first matching line's plan, else the fallback's (null without a fallback).
     */
    @Override
    public Plan choose(final PlanRequest request)
    {
        final Plan plan = lookup(request);
        if (plan != null)
        {
            return plan;
        }
        return fallback == null ? null : fallback.choose(request);
    }

    /**
     * @param request the call shape.
     * @return the first line that matches it, or null.
     */
    public Row match(final PlanRequest request)
    {
        for (final Row row : rows)
        {
            if (row.matches(request))
            {
                return row;
            }
        }
        return null;
    }

    /**
     * @param request the call shape.
     * @return the plan of the first matching line, or null when no line matches (the fallback is not asked then).
     */
    public Plan lookup(final PlanRequest request)
    {
        final Row row = match(request);
        if (row == null)
        {
            return null;
        }
        final Plan base = fallback == null ? null : fallback.choose(request);
        return row.apply(base != null ? base : defaultPlan(request));
    }

    /** @return the lines that took effect, in file order (skipped and blank lines left out). */
    public List<Row> rows()
    {
        return rows;
    }

    /** @return what loading skipped or changed (NCCL-only algorithms, channels clamped), for the caller to log. */
    public List<String> warnings()
    {
        return warnings;
    }

    /** @return the file or source name. */
    public String sourceName()
    {
        return sourceName;
    }

    /** @return the tuner whose plans the lines override, or null. */
    public Tuner fallback()
    {
        return fallback;
    }

    /**
     * @return a 64-bit hash of the lines that took effect (their canonical text, not their location), the same in
     *         every JVM: ranks compare it at communicator creation.
     */
    public long stableHash()
    {
        long hash = StableHash.OFFSET_BASIS;
        for (final Row row : rows)
        {
            hash = StableHash.mix(hash, row.canonical() + "\n");
        }
        return hash;
    }

    /** @return the source and the number of lines that took effect. */
    @Override
    public String toString()
    {
        return "TableTuner{" + sourceName + ", " + rows.size() + " lines}";
    }

    private static Plan defaultPlan(final PlanRequest request)
    {
        return new Plan(Algorithm.RING, Protocol.SIMPLE, request.nodes() > 1 ? TransportKind.NET : TransportKind.P2P,
            1, PinnedTuner.HOST_THREADS, KnobSpace.DEFAULT_CHUNK_BYTES);
    }

    /** Parses one line, adding {@code file:line: reason} errors and warnings. */
    private static final class LineParser
    {
        private final String location;
        private final List<String> warnings;
        private final List<String> errors;
        private boolean failed;

        LineParser(final String location, final List<String> warnings, final List<String> errors)
        {
            this.location = location;
            this.warnings = warnings;
            this.errors = errors;
        }

        Row parse(final String line)
        {
            String text = line;
            String comment = null;
            final int hash = text.indexOf('#');
            if (hash >= 0)
            {
                comment = text.substring(hash + 1).strip();
                text = text.substring(0, hash);
            }
            text = text.strip();
            if (text.isEmpty())
            {
                return null;
            }
            final String[] fields = text.split(",", -1);
            if (fields.length < MIN_FIELDS)
            {
                return error("too few fields: " + fields.length + ", expected " + MIN_FIELDS + " to " + MAX_FIELDS +
                    " (" + FORMAT + ")");
            }
            if (fields.length > MAX_FIELDS)
            {
                return error("too many fields: " + fields.length + ", expected " + MIN_FIELDS + " to " + MAX_FIELDS +
                    " (" + FORMAT + ")");
            }
            for (int i = 0; i < fields.length; i++)
            {
                fields[i] = fields[i].strip();
            }
            final Collective collective = collective(fields[0]);
            final long minBytes = bytes("min_bytes", fields[1]);
            final long maxBytes = bytes("max_bytes", fields[2]);
            if (minBytes >= 0 && maxBytes >= 0 && minBytes > maxBytes)
            {
                error("min_bytes " + minBytes + " is above max_bytes " + maxBytes);
            }
            final String algorithmName = fields[3].toLowerCase(Locale.ROOT);
            final boolean ncclOnly = NCCL_ONLY_ALGORITHMS.contains(algorithmName);
            final Algorithm algorithm = ncclOnly ? null : algorithm(fields[3]);
            final Protocol protocol = protocol(fields[4]);
            final int channels = channels(fields[5]);
            final int nodes = wildcardOrPositive("nNodes", fields[6]);
            final int ranks = wildcardOrPositive("nRanks", fields[7]);
            final int pipeOps = fields.length > 8 ? wildcardOrPositive("numPipeOps", fields[8]) : -1;
            final int regBuff = fields.length > 9 ? regBuff(fields[9]) : -1;
            final Extras extras = comment != null && comment.regionMatches(true, 0, JCCL_COMMENT, 0,
                JCCL_COMMENT.length()) ? extras(comment.substring(JCCL_COMMENT.length())) : new Extras();
            if (failed)
            {
                return null;
            }
            if (ncclOnly)
            {
                warnings.add(location + ": algorithm '" + fields[3] + "' is NCCL's and jccl does not have it; " +
                    "line skipped");
                return null;
            }
            return new Row(location, collective, minBytes, maxBytes, algorithm, protocol, channels, nodes, ranks,
                pipeOps, regBuff, extras.transport, extras.chunkBytes, extras.threads);
        }

        private Row error(final String reason)
        {
            failed = true;
            errors.add(location + ": " + reason);
            return null;
        }

        private Collective collective(final String name)
        {
            for (final Collective collective : Collective.values())
            {
                if (collective.xmlName().equalsIgnoreCase(name))
                {
                    return collective;
                }
            }
            error("unknown collective_type '" + name + "'; valid values: " + VALID_COLLECTIVES);
            return null;
        }

        private Algorithm algorithm(final String name)
        {
            for (final Algorithm algorithm : Algorithm.values())
            {
                if (algorithm.lowerName().equalsIgnoreCase(name))
                {
                    return algorithm;
                }
            }
            error("unknown algorithm '" + name + "'; valid values: tree, ring, direct (jccl's; NCCL's " +
                String.join(", ", NCCL_ONLY_ALGORITHMS) + " skip the line)");
            return null;
        }

        private Protocol protocol(final String name)
        {
            for (final Protocol protocol : Protocol.values())
            {
                if (protocol.lowerName().equalsIgnoreCase(name))
                {
                    return protocol;
                }
            }
            error("unknown protocol '" + name + "'; valid values: ll, ll128, simple");
            return null;
        }

        private long bytes(final String field, final String text)
        {
            if (!isDigits(text) || text.length() > 18)
            {
                error(field + " '" + text + "' is not a non-negative integer");
                return -1;
            }
            return Long.parseLong(text);
        }

        private int integer(final String field, final String text)
        {
            try
            {
                return Integer.parseInt(text);
            }
            catch (final NumberFormatException ex)
            {
                error(field + " '" + text + "' is not an integer");
                return Integer.MIN_VALUE;
            }
        }

        private int channels(final String text)
        {
            final int channels = integer("channels", text);
            if (channels == Integer.MIN_VALUE)
            {
                return -1;
            }
            if (channels == -1)
            {
                return -1;
            }
            if (channels < 1)
            {
                error("channels " + channels + " is invalid; valid values: -1 (keep the fallback's) or 1.." +
                    Plan.MAX_CHANNELS);
                return -1;
            }
            if (channels > Plan.MAX_CHANNELS)
            {
                warnings.add(location + ": channels " + channels + " is above jccl's " + Plan.MAX_CHANNELS +
                    "; using " + Plan.MAX_CHANNELS);
                return Plan.MAX_CHANNELS;
            }
            return channels;
        }

        private int wildcardOrPositive(final String field, final String text)
        {
            final int value = integer(field, text);
            if (value != Integer.MIN_VALUE && value != -1 && value < 1)
            {
                error(field + " " + value + " is invalid; valid values: -1 (any) or a positive count");
            }
            return value;
        }

        private int regBuff(final String text)
        {
            final int value = integer("regBuff", text);
            if (value != Integer.MIN_VALUE && (value < -1 || value > 1))
            {
                error("regBuff " + value + " is invalid; valid values: -1 (any), 0, 1");
            }
            return value;
        }

        private Extras extras(final String text)
        {
            final Extras extras = new Extras();
            final List<String> seen = new ArrayList<>(3);
            for (final String pair : text.strip().split("\\s+"))
            {
                if (pair.isEmpty())
                {
                    continue;
                }
                final int equals = pair.indexOf('=');
                if (equals <= 0 || equals == pair.length() - 1)
                {
                    error("jccl comment entry '" + pair + "' is not key=value; valid keys: transport, chunk, " +
                        "threads");
                    continue;
                }
                final String key = pair.substring(0, equals).toLowerCase(Locale.ROOT);
                final String value = pair.substring(equals + 1);
                if (seen.contains(key))
                {
                    error("jccl comment sets '" + key + "' twice");
                    continue;
                }
                seen.add(key);
                try
                {
                    switch (key)
                    {
                        case "transport" -> extras.transport = PlanConstraintsSyntax.parseTransport("transport", value);
                        case "chunk" -> extras.chunkBytes = PlanConstraints.parseChunkBytes("chunk", value);
                        case "threads" -> extras.threads = threads(value);
                        default -> error("unknown jccl comment key '" + key + "'; valid keys: transport, chunk, " +
                            "threads");
                    }
                }
                catch (final JcclInvalidArgumentException ex)
                {
                    error("jccl comment: " + ex.getMessage());
                }
            }
            return extras;
        }

        private static int threads(final String text)
        {
            final int threads;
            try
            {
                threads = Integer.parseInt(text);
            }
            catch (final NumberFormatException ex)
            {
                throw new JcclInvalidArgumentException("threads='" + text + "' is not an integer; valid values: " +
                    PlanConstraints.threadsRange());
            }
            if (threads < Plan.MIN_THREADS || threads > Plan.MAX_THREADS || threads % 32 != 0)
            {
                throw new JcclInvalidArgumentException("threads=" + threads + " is invalid; valid values: " +
                    PlanConstraints.threadsRange());
            }
            return threads;
        }

        private static boolean isDigits(final String text)
        {
            if (text.isEmpty())
            {
                return false;
            }
            for (int i = 0; i < text.length(); i++)
            {
                if (text.charAt(i) < '0' || text.charAt(i) > '9')
                {
                    return false;
                }
            }
            return true;
        }
    }

    /** jccl's extra knobs of one line. */
    private static final class Extras
    {
        TransportKind transport;
        int chunkBytes;
        int threads;
    }
}
