package io.jccl.bench;

import io.jccl.Protocol;
import io.jccl.schedules.msccl.MscclFile;
import io.jccl.schedules.msccl.MscclFormatException;
import io.jccl.schedules.msccl.MscclSchedule;
import io.jccl.schedules.msccl.MscclVerdict;

import java.nio.file.Path;

/**
 * The MSCCL XML schedule of a {@code *_perf} run ({@code --schedule FILE}), loaded by the bench itself so that it can
 * refuse a file before any rank exists and say, for every row, whether jccl runs the file or its built-in algorithm.
 * jccl chooses with MSCCL's rule ({@link MscclSchedule#whyNot}: collective, rank count, in/out-of-place, byte range
 * and a count that divides into the file's chunks); the bench asks the same question with the same numbers:
 * {@code nBytes} is the table's size (AllGather's output, ReduceScatter's input, AllToAll's send buffer, the buffer
 * otherwise) and the element count {@code N} is that size over the element size ({@code count x nRanks} for
 * AllGather, ReduceScatter and AllToAll, else {@code count}).
 */
public final class BenchSchedule
{
    private final Path file;
    private final MscclSchedule schedule;
    private final MscclVerdict verdict;

    private BenchSchedule(final Path file, final MscclSchedule schedule, final MscclVerdict verdict)
    {
        this.file = file;
        this.schedule = schedule;
        this.verdict = verdict;
    }

    /**
     * Loads, validates and checks the file for a tool.
     *
     * @param file   the MSCCL XML file.
     * @param tool   the tool that will run it.
     * @param nRanks the run's rank count ({@code -t x -g}).
     * @return the schedule, with its semantic verdict (a wrong one still runs, so that its {@code #wrong} shows).
     * @throws IllegalArgumentException with every error, when the file cannot be read, is malformed or invalid, or
     *                                  is for another collective or rank count than the run.
     */
    public static BenchSchedule load(final Path file, final BenchTool tool, final int nRanks)
    {
        final MscclFile checked;
        try
        {
            checked = MscclFile.read(file, false);
        }
        catch (final MscclFormatException ex)
        {
            throw new IllegalArgumentException("--schedule " + ex.getMessage());
        }
        if (!checked.valid())
        {
            throw new IllegalArgumentException("--schedule " + new MscclFormatException(file.toString(),
                checked.errors()).getMessage());
        }
        final MscclSchedule schedule = checked.schedule();
        if (tool.collective() == null)
        {
            throw new IllegalArgumentException("--schedule " + file + " computes " +
                schedule.collective().xmlName() + ", but " + tool.toolName() + " runs no collective a schedule " +
                "applies to" + toolHint(schedule));
        }
        if (schedule.collective() != tool.collective())
        {
            throw new IllegalArgumentException("--schedule " + file + " computes " +
                schedule.collective().xmlName() + ", but " + tool.toolName() + " runs " +
                tool.collective().xmlName() + toolHint(schedule));
        }
        if (schedule.ngpus() != nRanks)
        {
            throw new IllegalArgumentException("--schedule " + file + " is for ngpus=" + schedule.ngpus() +
                " ranks, but this run has " + nRanks + " (-t x -g); it would never apply");
        }
        return new BenchSchedule(file, schedule, checked.verdict());
    }

    /** @return the loaded schedule. */
    public MscclSchedule schedule()
    {
        return schedule;
    }

    /** @return the file it was read from. */
    public Path file()
    {
        return file;
    }

    /** @return what the semantic check concluded (the run still goes ahead when it is wrong). */
    public MscclVerdict verdict()
    {
        return verdict;
    }

    /**
     * @return {@code # Using schedule: <name> (<file>) <coll> ngpus=<n> proto=<p> nchannels=<c> nchunksperloop=<k>},
     *         the header line that names the file.
     */
    public String headerLine()
    {
        return "# Using schedule: " + schedule.name() + " (" + file + ") " + schedule.collective().xmlName() +
            " ngpus=" + schedule.ngpus() + " proto=" + mscclName(schedule.protocol()) + " nchannels=" +
            schedule.nchannels() + " nchunksperloop=" + schedule.nchunksperloop();
    }

    /**
     * @param tool        the tool.
     * @param nRanks      rank count.
     * @param inPlace     whether the row's call is in place.
     * @param tableBytes  the row's size column (MSCCL's {@code nBytes}).
     * @param elementSize bytes per element.
     * @return null when jccl runs the schedule for this call, else why it runs the built-in (naming the nearest
     *         counts that divide, when that is the reason).
     */
    public String whyNot(final BenchTool tool, final int nRanks, final boolean inPlace, final long tableBytes,
        final int elementSize)
    {
        final long elements = tableBytes / elementSize;
        final String reason = schedule.whyNot(tool.collective(), nRanks, inPlace, tableBytes, elements);
        if (reason == null || elements % schedule.nchunksperloop() == 0 || !inRange(tableBytes) ||
            !(inPlace ? schedule.inPlace() : schedule.outOfPlace()))
        {
            return reason;
        }
        return reason + "; " + nearestSizes(tool, nRanks, tableBytes, elementSize);
    }

    /**
     * The table sizes nearest to {@code tableBytes} whose element count the file's chunks divide, among the sizes
     * the tool can produce: AllGather, ReduceScatter and AllToAll cut their buffers into per-rank blocks of a
     * multiple of 16 bytes, so their sizes step by {@code lcm(nchunksperloop, nRanks x 16 / elementSize)} elements.
     *
     * @param tool        the tool.
     * @param nRanks      rank count.
     * @param tableBytes  a size that does not divide.
     * @param elementSize bytes per element.
     * @return "the nearest sizes that work are A and B bytes", or the one of them in the file's byte range.
     */
    String nearestSizes(final BenchTool tool, final int nRanks, final long tableBytes, final int elementSize)
    {
        final long chunks = schedule.nchunksperloop();
        final long step = tool.blocksPerRank() ? lcm(chunks, (long)nRanks * Math.max(1, 16 / elementSize)) : chunks;
        final long below = tableBytes / elementSize / step * step * elementSize;
        final long above = below + step * elementSize;
        final boolean belowWorks = below > 0 && inRange(below);
        final boolean aboveWorks = inRange(above);
        if (belowWorks && aboveWorks)
        {
            return "the nearest sizes that work are " + below + " and " + above + " bytes";
        }
        if (belowWorks || aboveWorks)
        {
            return "the nearest size that works is " + (belowWorks ? below : above) + " bytes";
        }
        return "no size near it works within the file's byte range";
    }

    private boolean inRange(final long nBytes)
    {
        return nBytes >= schedule.minBytes() && nBytes <= schedule.maxBytes();
    }

    private static long lcm(final long a, final long b)
    {
        long x = a;
        long y = b;
        while (y != 0)
        {
            final long t = x % y;
            x = y;
            y = t;
        }
        return a / x * b;
    }

    /**
     * @param protocol a protocol.
     * @return its spelling in MSCCL XML's {@code proto}: {@code Simple}, {@code LL}, {@code LL128}.
     */
    static String mscclName(final Protocol protocol)
    {
        return switch (protocol)
        {
            case SIMPLE -> "Simple";
            case LL -> "LL";
            case LL128 -> "LL128";
        };
    }

    private static String toolHint(final MscclSchedule schedule)
    {
        for (final BenchTool other : BenchTool.values())
        {
            if (other.collective() == schedule.collective())
            {
                return "; run it with " + other.toolName();
            }
        }
        return "; no tool runs " + schedule.collective().xmlName();
    }
}
