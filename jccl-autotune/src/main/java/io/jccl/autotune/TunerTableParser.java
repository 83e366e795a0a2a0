package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.autotune.TableTuner.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The parser of a tuner table in the CSV format of NCCL's example tuner plugin, as {@link TableTuner} describes it:
 * comments and blank lines, the fields and their wildcards, jccl's trailing {@code # jccl:} comment, a warning for
 * each line naming an algorithm of NCCL's that jccl lacks (the line is skipped) or channels above jccl's, and an
 * error {@code file:line: reason} for each malformed line. Stateless.
 */
final class TunerTableParser
{
    private static final String FORMAT =
        "collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps[,regBuff]]";
    private static final String VALID_COLLECTIVES = "broadcast, reduce, allgather, reducescatter, allreduce, alltoall";
    private static final List<String> NCCL_ONLY_ALGORITHMS =
        List.of("nvls", "nvls_tree", "collnet_direct", "collnet_chain", "pat");

    private TunerTableParser()
    {
    }

    /**
     * Parses a table's lines ({@link TableTuner#parse}).
     *
     * @param sourceName the file or source name, for messages.
     * @param lines      the lines, the first being line 1.
     * @param fallback   the tuner whose plans the lines override and which decides unmatched calls; may be null.
     * @return the table.
     * @throws TunerConfigException listing every malformed line as {@code file:line: reason}.
     */
    static TableTuner parse(final String sourceName, final List<String> lines, final Tuner fallback)
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
            if (fields.length < TableTuner.MIN_FIELDS)
            {
                return error("too few fields: " + fields.length + ", expected " + TableTuner.MIN_FIELDS + " to " +
                    TableTuner.MAX_FIELDS + " (" + FORMAT + ")");
            }
            if (fields.length > TableTuner.MAX_FIELDS)
            {
                return error("too many fields: " + fields.length + ", expected " + TableTuner.MIN_FIELDS + " to " +
                    TableTuner.MAX_FIELDS + " (" + FORMAT + ")");
            }
            for (int i = 0; i < fields.length; i++)
            {
                fields[i] = fields[i].strip();
            }
            final Collective collective = collective(fields[0]);
            final long minBytes = bytes("min_bytes", fields[1]);
            // NCCL's example plugin reads max_bytes with strtoull, so -1 there is "no upper bound" and users' files
            // have it (allreduce,65537,-1,ring,simple,...)
            final long maxBytes = "-1".equals(fields[2]) ? Long.MAX_VALUE : bytes("max_bytes", fields[2]);
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
            final Extras extras = comment != null && comment.regionMatches(true, 0, TableTuner.JCCL_COMMENT, 0,
                TableTuner.JCCL_COMMENT.length()) ? extras(comment.substring(TableTuner.JCCL_COMMENT.length())) :
                new Extras();
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
