package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Protocol;
import io.jccl.Topology;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.ChunkLayout;
import io.jccl.schedules.Generators;
import io.jccl.schedules.Program;
import io.jccl.schedules.msccl.MscclFile;
import io.jccl.schedules.msccl.MscclFormatException;
import io.jccl.schedules.msccl.MscclProblem;
import io.jccl.schedules.msccl.MscclReader;
import io.jccl.schedules.msccl.MscclSchedule;
import io.jccl.schedules.msccl.MscclWriter;
import io.jccl.schedules.msccl.PortableSteps;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * {@code jccl-bench export --coll allreduce --algo ring -g 8 [--channels C] [--root R] [--proto simple]}: writes a
 * built-in algorithm's {@link Program} ({@link Generators}) as MSCCL XML on stdout ({@link MscclWriter}), declared
 * for in-place and out-of-place calls of any size, so that researchers can start from jccl's own algorithms.
 * <p>
 * Before printing, the XML is read back and compared with the Program (workers, collective, ranks, root, chunk
 * counts): a difference is a bug of the writer or reader and fails the command rather than writing a file that does
 * not run what it says. What MSCCL's C executors would refuse (their step and channel limits) goes to stderr as
 * warnings; the file is written anyway, since jccl runs it.
 * <p>
 * Exit status: 0 when written, 1 when the read-back differs, 2 for bad arguments.
 */
@Command(
    name = "export",
    sortOptions = false,
    usageHelpWidth = 120,
    description = "Write a built-in algorithm as MSCCL XML on stdout.")
public final class ExportCommand
{
    /** Exit status when the written XML does not read back as the same Program. */
    public static final int EXIT_ROUND_TRIP = 1;

    @Option(names = "--coll", required = true, paramLabel = "<collective>",
        description = "allreduce, allgather, reducescatter, broadcast, reduce or alltoall")
    private String coll;

    @Option(names = "--algo", paramLabel = "<ring|tree|direct>",
        description = "the built-in (default: ring; a tree or direct where none applies is a ring, alltoall is " +
            "always the direct exchange)")
    private String algo;

    @Option(names = {"-g", "--ngpus"}, required = true, converter = BenchOptions.IntConverter.class,
        paramLabel = "<ranks>", description = "rank count")
    private int ranks;

    @Option(names = "--channels", converter = BenchOptions.IntConverter.class, paramLabel = "<n>",
        description = "channels (default: ${DEFAULT-VALUE})", defaultValue = "1")
    private int channels;

    @Option(names = "--root", converter = BenchOptions.IntConverter.class, paramLabel = "<rank>",
        description = "root of broadcast and reduce (default: ${DEFAULT-VALUE})", defaultValue = "0")
    private int root;

    @Option(names = "--proto", paramLabel = "<simple|ll|ll128>",
        description = "the protocol to declare (default: ${DEFAULT-VALUE})", defaultValue = "simple")
    private String proto;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help")
    private boolean help;

    /**
     * Parses the flags and writes the XML.
     *
     * @param args the flags (after {@code export}).
     * @param out  where the XML goes.
     * @param err  where argument errors and C-executor warnings go.
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final ExportCommand command = new ExportCommand();
        final CommandLine commandLine = new CommandLine(command).setCommandName("jccl-bench export");
        try
        {
            commandLine.parseArgs(args);
        }
        catch (final CommandLine.ParameterException ex)
        {
            err.println("jccl-bench export: " + ex.getMessage());
            commandLine.usage(err);
            return JcclBench.EXIT_USAGE;
        }
        if (command.help)
        {
            commandLine.usage(out);
            return BenchRunner.EXIT_OK;
        }
        final Program program;
        final Protocol protocol;
        try
        {
            final Collective collective = collective(command.coll);
            protocol = Protocol.fromName(command.proto);
            final Algorithm algorithm = command.algo == null ? Algorithm.RING : Algorithm.fromName(command.algo);
            command.checkRanges(collective);
            if (collective == Collective.ALL_TO_ALL && command.algo != null)
            {
                err.println("jccl-bench export: note: jccl's alltoall is the direct exchange; --algo " +
                    command.algo + " does not apply");
            }
            else if (Generators.effective(algorithm, collective) != algorithm)
            {
                err.println("jccl-bench export: note: " + algorithm.lowerName() + " does not compute " +
                    collective.xmlName() + "; writing " + Generators.effective(algorithm, collective).lowerName());
            }
            program = Generators.generate(algorithm, collective, Topology.singleProcess(command.ranks),
                command.channels, command.root);
        }
        catch (final IllegalArgumentException | JcclInvalidArgumentException ex)
        {
            err.println("jccl-bench export: " + ex.getMessage());
            return JcclBench.EXIT_USAGE;
        }
        final String xml = MscclWriter.write(program, protocol, true, true);
        final String difference = roundTripDifference(program, xml);
        if (difference != null)
        {
            err.println("jccl-bench export: the XML of " + program.name() + " does not read back as the same " +
                "program (" + difference + "); nothing written");
            return EXIT_ROUND_TRIP;
        }
        for (final MscclProblem warning : MscclFile.read(xml, "export", true).problems())
        {
            err.println("jccl-bench export: " + warning);
        }
        out.print(xml);
        out.flush();
        return BenchRunner.EXIT_OK;
    }

    /**
     * @param name a collective as MSCCL XML names it ({@code allreduce}), or with underscores ({@code all_reduce},
     *             {@code reduce_scatter}), in any case.
     * @return the collective.
     * @throws IllegalArgumentException naming the collectives if none matches.
     */
    static Collective collective(final String name)
    {
        final String wanted = name.toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
        for (final Collective collective : Collective.values())
        {
            if (collective.xmlName().equals(wanted))
            {
                return collective;
            }
        }
        throw new IllegalArgumentException("--coll '" + name + "' is not one of " +
            Arrays.stream(Collective.values()).map(Collective::xmlName).toList());
    }

    /**
     * Reads the XML back and compares it with the program.
     *
     * @param written the program written (its jccl-only steps are written as MSCCL's, {@link PortableSteps}).
     * @param xml     its XML.
     * @return null when they are the same, else the first difference.
     */
    static String roundTripDifference(final Program written, final String xml)
    {
        final Program program = PortableSteps.of(written);
        final MscclSchedule back;
        try
        {
            back = new MscclReader().readString(xml, program.name() + ".xml");
        }
        catch (final MscclFormatException ex)
        {
            return ex.getMessage();
        }
        final Program read = back.program();
        if (read.collective() != program.collective() || read.ranks() != program.ranks() ||
            read.root() != program.root() || !read.name().equals(program.name()))
        {
            return "read back as " + read.name() + " " + read.collective().xmlName() + " ranks=" + read.ranks() +
                " root=" + read.root();
        }
        for (final BufferKind kind : BufferKind.values())
        {
            if (chunks(program.layout(kind)) != chunks(read.layout(kind)))
            {
                return kind + " chunks " + chunks(program.layout(kind)) + " read back as " + chunks(read.layout(kind));
            }
        }
        for (int r = 0; r < program.ranks(); r++)
        {
            if (!Objects.equals(program.workers(r), read.workers(r)))
            {
                return "the workers of rank " + r + " differ";
            }
        }
        return null;
    }

    private void checkRanges(final Collective collective)
    {
        if (ranks < 1)
        {
            throw new IllegalArgumentException("-g/--ngpus " + ranks + " must be at least 1");
        }
        if (channels < 1)
        {
            throw new IllegalArgumentException("--channels " + channels + " must be at least 1");
        }
        if (collective.isRooted() && (root < 0 || root >= ranks))
        {
            throw new IllegalArgumentException("--root " + root + " is outside 0.." + (ranks - 1));
        }
    }

    private static int chunks(final ChunkLayout layout)
    {
        return layout == null ? 0 : layout.chunks();
    }
}
