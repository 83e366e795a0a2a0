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
import java.util.List;

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

    /**
     * @param sourceName the file or source name, for messages.
     * @param rows       the lines that took effect, in file order.
     * @param warnings   what loading skipped or changed.
     * @param fallback   the tuner whose plans the lines override and which decides unmatched calls, or null.
     */
    TableTuner(final String sourceName, final List<Row> rows, final List<String> warnings, final Tuner fallback)
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
        return TunerTableParser.parse(sourceName, lines, fallback);
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
}
