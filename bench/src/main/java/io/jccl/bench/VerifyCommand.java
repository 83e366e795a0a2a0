package io.jccl.bench;

import io.jccl.schedules.msccl.MscclFile;
import io.jccl.schedules.msccl.MscclFormatException;
import io.jccl.schedules.msccl.MscclProblem;
import io.jccl.schedules.msccl.MscclSchedule;
import io.jccl.schedules.msccl.MscclVerdict;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code jccl-bench verify [--strict] FILE...}: what a schedule's author needs to know about MSCCL XML files. For
 * each file, one line {@code <file>: OK}, {@code INVALID} or {@code WRONG} with the file's declaration, then every
 * problem with its line and element path (the reader's and the validator's, all in one pass: {@link MscclFile}), then
 * the semantic verdict (whether the file computes the collective it declares, naming the first
 * wrong chunk and rank). {@code --strict} adds what MSCCL's C executors would refuse, as warnings: they are printed
 * but do not fail the file, since jccl runs it.
 * <p>
 * Exit status: 0 when every file is valid and correct, 1 when one is not, 2 for bad arguments.
 */
@Command(
    name = "verify",
    sortOptions = false,
    usageHelpWidth = 120,
    description = "Check MSCCL XML schedules: OK or every error (line and element path), and whether each computes " +
        "the collective it declares.")
public final class VerifyCommand
{
    /** Exit status when a file is invalid or wrong. */
    public static final int EXIT_BAD_FILE = 1;

    @Option(names = "--strict", description = "also report, as warnings, what MSCCL's C executors would refuse")
    private boolean strict;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help")
    private boolean help;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "MSCCL XML files")
    private List<Path> files;

    /** The verdict on one file. */
    enum Outcome
    {
        /** Valid and computes what it declares. */
        OK,
        /** Cannot be read, is malformed or structurally invalid. */
        INVALID,
        /** Valid, but does not compute what it declares (or races). */
        WRONG
    }

    /**
     * Parses the flags and verifies the files.
     *
     * @param args the flags and files (after {@code verify}).
     * @param out  where the report goes.
     * @param err  where argument errors go.
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final VerifyCommand command = new VerifyCommand();
        final CommandLine commandLine = new CommandLine(command).setCommandName("jccl-bench verify");
        try
        {
            commandLine.parseArgs(args);
        }
        catch (final CommandLine.ParameterException ex)
        {
            err.println("jccl-bench verify: " + ex.getMessage());
            commandLine.usage(err);
            return JcclBench.EXIT_USAGE;
        }
        if (command.help)
        {
            commandLine.usage(out);
            return BenchRunner.EXIT_OK;
        }
        int ok = 0;
        int invalid = 0;
        int wrong = 0;
        for (final Path file : command.files)
        {
            switch (verify(file, command.strict, out))
            {
                case OK -> ok++;
                case INVALID -> invalid++;
                case WRONG -> wrong++;
            }
        }
        out.println("# verified " + command.files.size() + (command.files.size() == 1 ? " file: " : " files: ") +
            ok + " OK, " + invalid + " invalid, " + wrong + " wrong");
        out.flush();
        return invalid + wrong == 0 ? BenchRunner.EXIT_OK : EXIT_BAD_FILE;
    }

    /**
     * Verifies one file and prints its report.
     *
     * @param file   the file.
     * @param strict also report what MSCCL's C executors would refuse.
     * @param out    where the report goes.
     * @return the verdict.
     */
    static Outcome verify(final Path file, final boolean strict, final PrintStream out)
    {
        final MscclFile checked;
        try
        {
            checked = MscclFile.read(file, strict);
        }
        catch (final MscclFormatException ex)
        {
            out.println(file + ": INVALID (" + count(ex.errors().size(), "error") + ")");
            printProblems(ex.errors(), out);
            out.println("  semantic: not evaluated, the file cannot be read");
            return Outcome.INVALID;
        }
        final MscclSchedule schedule = checked.schedule();
        final List<MscclProblem> problems = checked.problems();
        final long errors = checked.errors().size();
        if (errors != 0)
        {
            out.println(file + ": INVALID (" + count(errors, "error") + ") " + declaration(schedule));
            printProblems(problems, out);
            out.println("  semantic: not evaluated, the file is invalid");
            return Outcome.INVALID;
        }
        final MscclVerdict verdict = checked.verdict();
        out.println(file + ": " + (verdict.correct() ? "OK" : "WRONG") + " " + declaration(schedule));
        printProblems(problems, out);
        out.println("  semantic: " + verdict.summary());
        for (final MscclProblem problem : verdict.problems())
        {
            out.println("    " + problem);
        }
        return verdict.correct() ? Outcome.OK : Outcome.WRONG;
    }

    /**
     * @param schedule a schedule.
     * @return {@code (name: coll ngpus=n proto=p nchannels=c nchunksperloop=k inplace=i outofplace=o)}.
     */
    static String declaration(final MscclSchedule schedule)
    {
        return "(" + schedule.name() + ": " + schedule.collective().xmlName() + " ngpus=" + schedule.ngpus() +
            " proto=" + BenchSchedule.mscclName(schedule.protocol()) + " nchannels=" + schedule.nchannels() +
            " nchunksperloop=" + schedule.nchunksperloop() + " inplace=" + (schedule.inPlace() ? 1 : 0) +
            " outofplace=" + (schedule.outOfPlace() ? 1 : 0) + ")";
    }

    private static void printProblems(final List<MscclProblem> problems, final PrintStream out)
    {
        for (final MscclProblem problem : problems)
        {
            out.println("  " + problem);
        }
    }

    private static String count(final long n, final String noun)
    {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
