package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.TransportKind;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The file the {@link OnlineTuner} keeps converged plans in across runs: UTF-8 text, {@code #} comments, one task
 * per line, tab-separated:
 * <pre>
 * fingerprint collective type op ranks communicator minBytes maxBytes bytes nodes pipeOps registered plan scoreNs
 * </pre>
 * for example {@code host-a:8gpu allreduce float sum 8 0 1048576 2097151 1048576 1 1 0
 * ring/simple/p2p/c4/t256/k131072 51234.5} (tabs between the fields). Entries of several fingerprints (machines or
 * topologies) live side by side; saving replaces only the saver's. Written to a temporary file and moved over the
 * old one, so a reader never sees half a file.
 */
final class TunerMemory
{
    /** The first line of the file. */
    static final String HEADER = "# jccl online tuner memory v1: converged plans by machine/topology fingerprint";
    /** The second line: the fields. */
    static final String FIELDS = "# fingerprint\tcollective\ttype\top\tranks\tcommunicator\tminBytes\tmaxBytes" +
        "\tbytes\tnodes\tpipeOps\tregistered\tplan\tscoreNs";
    private static final int FIELD_COUNT = 14;

    /**
     * One remembered task.
     *
     * @param fingerprint the machine and topology it was tuned on.
     * @param key         the task.
     * @param request     the shape of a call of the task.
     * @param plan        the converged plan.
     * @param scoreNs     its score when it converged, or NaN.
     */
    record Entry(String fingerprint, TaskKey key, PlanRequest request, Plan plan, double scoreNs)
    {
    }

    private TunerMemory()
    {
    }

    /**
     * @param fingerprint a fingerprint to check.
     * @throws JcclInvalidArgumentException if it is null, blank, or holds a tab or a line break.
     */
    static void checkFingerprint(final String fingerprint)
    {
        if (fingerprint == null || fingerprint.isBlank())
        {
            throw new JcclInvalidArgumentException("fingerprint is null or blank");
        }
        if (fingerprint.indexOf('\t') >= 0 || fingerprint.indexOf('\n') >= 0 || fingerprint.indexOf('\r') >= 0 ||
            fingerprint.startsWith("#") || !fingerprint.equals(fingerprint.strip()))
        {
            throw new JcclInvalidArgumentException("fingerprint '" + fingerprint + "' may not hold tabs or line " +
                "breaks, start with '#' or with blanks");
        }
    }

    /**
     * @param file the file.
     * @return its entries in file order.
     * @throws TunerConfigException listing every malformed line as {@code file:line: reason}.
     * @throws JcclSystemException  if it cannot be read.
     */
    static List<Entry> read(final Path file)
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new JcclSystemException("tuner memory " + file + " cannot be read: " + ex, ex);
        }
        final List<Entry> entries = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#"))
            {
                continue;
            }
            try
            {
                entries.add(parse(line));
            }
            catch (final JcclInvalidArgumentException ex)
            {
                errors.add(file + ":" + (i + 1) + ": " + ex.getMessage());
            }
        }
        if (!errors.isEmpty())
        {
            throw new TunerConfigException(file.toString(), errors);
        }
        return entries;
    }

    /**
     * @param file    the file, replaced.
     * @param entries the entries, in the order to write.
     * @throws JcclSystemException if it cannot be written.
     */
    static void write(final Path file, final List<Entry> entries)
    {
        final List<String> lines = new ArrayList<>(entries.size() + 2);
        lines.add(HEADER);
        lines.add(FIELDS);
        for (final Entry entry : entries)
        {
            lines.add(format(entry));
        }
        final Path absolute = file.toAbsolutePath();
        Path temporary = null;
        try
        {
            Files.createDirectories(absolute.getParent());
            temporary = Files.createTempFile(absolute.getParent(), absolute.getFileName().toString(), ".tmp");
            Files.write(temporary, lines, StandardCharsets.UTF_8);
            try
            {
                Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
            catch (final AtomicMoveNotSupportedException ex)
            {
                Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        catch (final IOException ex)
        {
            deleteQuietly(temporary);
            throw new JcclSystemException("tuner memory " + file + " cannot be written: " + ex, ex);
        }
    }

    /**
     * @param entry an entry.
     * @return its line.
     */
    static String format(final Entry entry)
    {
        final TaskKey key = entry.key();
        final PlanRequest request = entry.request();
        return String.join("\t",
            entry.fingerprint(),
            key.collective().xmlName(),
            key.type() == null ? "-" : key.type().ncclTestsName(),
            key.op() == null ? "-" : key.op().ncclTestsName(),
            Integer.toString(key.ranks()),
            Long.toString(key.communicatorId()),
            Long.toString(key.minBytes()),
            Long.toString(key.maxBytes()),
            Long.toString(request.bytes()),
            Integer.toString(request.nodes()),
            Integer.toString(request.pipeOps()),
            request.registered() ? "1" : "0",
            entry.plan().id(),
            Double.toString(entry.scoreNs()));
    }

    /**
     * @param line a line of the file.
     * @return its entry.
     * @throws JcclInvalidArgumentException naming the field at fault.
     */
    static Entry parse(final String line)
    {
        final String[] fields = line.split("\t", -1);
        if (fields.length != FIELD_COUNT)
        {
            throw new JcclInvalidArgumentException(fields.length + " tab-separated fields, expected " + FIELD_COUNT +
                " (" + FIELDS.substring(2).replace('\t', ',') + ")");
        }
        final String fingerprint = fields[0];
        checkFingerprint(fingerprint);
        final Collective collective = collective(fields[1]);
        final DataType type = "-".equals(fields[2]) ? null : DataType.fromName(fields[2]);
        final ReduceOp.Kind op = "-".equals(fields[3]) ? null : op(fields[3]);
        final int ranks = (int)number("ranks", fields[4], 1, Integer.MAX_VALUE);
        final long communicator = number("communicator", fields[5], Long.MIN_VALUE, Long.MAX_VALUE);
        final long minBytes = number("minBytes", fields[6], 0, Long.MAX_VALUE);
        final long maxBytes = number("maxBytes", fields[7], 0, Long.MAX_VALUE);
        final long bytes = number("bytes", fields[8], 0, Long.MAX_VALUE);
        final int nodes = (int)number("nodes", fields[9], 1, Integer.MAX_VALUE);
        final int pipeOps = (int)number("pipeOps", fields[10], 1, Integer.MAX_VALUE);
        final long registered = number("registered", fields[11], 0, 1);
        final Plan plan = plan(fields[12]);
        final double scoreNs;
        try
        {
            scoreNs = Double.parseDouble(fields[13]);
        }
        catch (final NumberFormatException ex)
        {
            throw new JcclInvalidArgumentException("scoreNs '" + fields[13] + "' is not a number");
        }
        final TaskKey key = new TaskKey(collective, type, op, ranks, communicator, minBytes, maxBytes);
        final PlanRequest request = new PlanRequest(collective, type, bytes, ranks, nodes, pipeOps, registered == 1);
        if (!key.covers(request))
        {
            throw new JcclInvalidArgumentException("bytes " + bytes + " is outside " + minBytes + ".." + maxBytes);
        }
        return new Entry(fingerprint, key, request, plan, scoreNs);
    }

    /**
     * @param id a plan's {@link Plan#id()}, such as {@code ring/simple/p2p/c2/t256/k131072}.
     * @return the plan.
     * @throws JcclInvalidArgumentException if it is malformed.
     */
    static Plan plan(final String id)
    {
        final String[] parts = id.split("/", -1);
        if (parts.length != 6 || !parts[3].startsWith("c") || !parts[4].startsWith("t") || !parts[5].startsWith("k"))
        {
            throw new JcclInvalidArgumentException("plan '" + id + "' is not algorithm/protocol/transport/cN/tN/kN");
        }
        return new Plan(Algorithm.fromName(parts[0]), Protocol.fromName(parts[1]), TransportKind.fromName(parts[2]),
            (int)number("channels", parts[3].substring(1), 1, Plan.MAX_CHANNELS),
            (int)number("threads", parts[4].substring(1), Plan.MIN_THREADS, Plan.MAX_THREADS),
            (int)number("chunk", parts[5].substring(1), 1, Integer.MAX_VALUE));
    }

    private static Collective collective(final String name)
    {
        for (final Collective collective : Collective.values())
        {
            if (collective.xmlName().equals(name))
            {
                return collective;
            }
        }
        throw new JcclInvalidArgumentException("collective '" + name + "' is unknown");
    }

    private static ReduceOp.Kind op(final String name)
    {
        for (final ReduceOp.Kind kind : ReduceOp.Kind.values())
        {
            if (kind.ncclTestsName().equals(name))
            {
                return kind;
            }
        }
        throw new JcclInvalidArgumentException("op '" + name + "' is unknown");
    }

    private static long number(final String field, final String text, final long min, final long max)
    {
        final long value;
        try
        {
            value = Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new JcclInvalidArgumentException(field + " '" + text + "' is not an integer");
        }
        if (value < min || value > max)
        {
            throw new JcclInvalidArgumentException(field + " " + value + " is outside " + min + ".." + max);
        }
        return value;
    }

    private static void deleteQuietly(final Path file)
    {
        if (file == null)
        {
            return;
        }
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ignored)
        {
            // the write failed already; that is the error reported
        }
    }
}
