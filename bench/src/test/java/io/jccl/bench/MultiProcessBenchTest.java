package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.UniqueId;
import io.jccl.launch.CpuBinding;
import io.jccl.launch.ProcessLauncher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tools as several processes of one rank each: the runner with stand-in ranks on threads that act as processes
 * (each its own runner, options and {@link CommunicatorSync}); jccl's ranks joined with {@code Jccl.connect} from
 * two threads of this JVM through the launcher variables; and child JVMs started by {@code --nprocs}, through the
 * real launcher, from this JVM's class path.
 */
class MultiProcessBenchTest
{
    private static final String CHILD_JAVA_OPTS = "-Xmx256m -XX:+UseSerialGC";

    @Test
    @Timeout(60)
    void shouldPrintTheSameCheckedTableInEveryProcessWhenRanksAreProcesses() throws Exception
    {
        final List<Run> runs = runAsProcesses(FakeCommunicators.Fault.NONE, 3, "all_gather_perf", "-b", "48",
            "-e", "12K", "-f", "4", "-w", "1", "-n", "2");
        for (final Run run : runs)
        {
            assertEquals(BenchRunner.EXIT_OK, run.status, run.out + run.err);
            assertEquals(runs.get(0).out, run.out, "every process agrees on every number");
        }
        final String table = runs.get(0).out;
        assertTrue(table.contains("#  Rank  2 Group  0 Pid "), table);
        final List<String[]> rows = rows(table);
        assertEquals(List.of("48", "192", "768", "3072", "12288"), column(rows, 0), table);
        assertEquals(List.of("4", "16", "64", "256", "1024"), column(rows, 1), table);
        assertEquals(List.of("0", "0", "0", "0", "0"), column(rows, 8), table);
        assertEquals(List.of("0", "0", "0", "0", "0"), column(rows, 12), table);
        assertTrue(table.contains("# Out of bounds values : 0 OK"), table);
    }

    @Test
    @Timeout(60)
    void shouldFailEveryProcessWhenOneRanksResultIsWrong() throws Exception
    {
        final List<Run> runs = runAsProcesses(FakeCommunicators.Fault.FLIP_OUTPUT, 2, "all_reduce_perf", "-b", "8",
            "-e", "512", "-f", "8", "-w", "1", "-n", "2");
        final List<String[]> rows = rows(runs.get(0).out);
        for (final Run run : runs)
        {
            assertEquals(BenchRunner.EXIT_FAILURE, run.status, run.out + run.err);
            // the stand-in flips a bit of rank 0's every result, the sync's own sums too, so times may differ
            for (final int c : new int[] {0, 1, 8, 12})
            {
                assertEquals(column(rows, c), column(rows(run.out), c), "rank 1's process counts rank 0's too");
            }
            assertTrue(run.out.contains("# Out of bounds values : 6 FAILED"), run.out);
        }
        assertEquals(List.of("8", "64", "512"), column(rows, 0));
        for (final String[] row : rows)
        {
            assertNotEquals("0", row[8], String.join(" ", row));
            assertNotEquals("0", row[12], String.join(" ", row));
        }
    }

    @Test
    @Timeout(120)
    void shouldPrintTheTableOnRankZeroOnlyWhenTheEnvironmentNamesJcclRanks() throws Exception
    {
        final UniqueId id = UniqueId.create("127.0.0.1", ProcessLauncher.freePort());
        final String[] args = {"all_reduce_perf", "-b", "8", "-e", "4K", "-f", "8", "-n", "2", "-w", "1",
            "--jit-warmup-ms", "0", "--timeout-ms", "60000"};
        final List<Callable<Run>> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++)
        {
            final Map<String, String> env = Map.of("JCCL_RANK", Integer.toString(r), "JCCL_WORLD_SIZE", "2",
                "JCCL_COMM_ID", id.toString());
            ranks.add(() -> Run.of((out, err) -> JcclBench.run(args, out, err, env)));
        }
        final List<Run> runs = all(ranks);
        assertEquals(0, runs.get(0).status, runs.get(0).out + runs.get(0).err + runs.get(1).err);
        assertEquals(0, runs.get(1).status, runs.get(1).err);
        assertEquals("", runs.get(1).out, "only rank 0 prints the table");
        final List<String[]> rows = rows(runs.get(0).out);
        assertEquals(List.of("8", "64", "512", "4096"), column(rows, 0), runs.get(0).out);
        assertEquals(List.of("0", "0", "0", "0"), column(rows, 8), runs.get(0).out);
        assertEquals(List.of("0", "0", "0", "0"), column(rows, 12), runs.get(0).out);
    }

    @Test
    @Timeout(180)
    void shouldCheckEveryRowWhenAllReducePerfRunsAsTwoProcesses()
    {
        final String[] flags = {"-b", "8", "-e", "64K", "-f", "8", "-c", "1", "-n", "2", "-w", "1",
            "--jit-warmup-ms", "0"};
        final Run launched = launch(new String[] {"--nprocs", "2", "all_reduce_perf"}, flags);
        assertEveryRowRightAsInOneProcess(launched, 2, "all_reduce_perf", flags);
        assertEquals(List.of("8", "64", "512", "4096", "32768"), column(rows(launched.out), 0), launched.out);
        assertBinding(launched, 2);
    }

    /** Bound to a CPU each where this machine allows it (as mpirun), else not, and the launcher says which. */
    private static void assertBinding(final Run launched, final int nprocs)
    {
        final CpuBinding expected = CpuBinding.resolve(null, nprocs, CpuBinding.allowedCpus(),
            CpuBinding.findTaskset(System.getenv()));
        assertTrue(launched.err.contains("jccl-bench: " + nprocs + " processes, " + expected.describe() + "\n"),
            launched.err);
    }

    @Test
    @Timeout(180)
    void shouldCheckEveryRowWhenAllGatherPerfRunsAsThreeProcesses()
    {
        final String[] flags = {"-b", "12", "-e", "48K", "-f", "4", "-c", "1", "-n", "2", "-w", "1",
            "--jit-warmup-ms", "0", "--nprocs", "3"};
        final Run launched = launch(new String[] {"all_gather_perf"}, flags);
        assertEveryRowRightAsInOneProcess(launched, 3, "all_gather_perf",
            Arrays.copyOf(flags, flags.length - 2));
        assertEquals(7, rows(launched.out).size(), launched.out);
        assertBinding(launched, 3);
    }

    @Test
    @Timeout(180)
    void shouldRegisterBuffersThatOtherProcessesReadInPlaceUnlessPlainMemory()
    {
        final String[] flags = {"-b", "1M", "-e", "4M", "-f", "4", "-c", "1", "-n", "2", "-w", "1",
            "--jit-warmup-ms", "0", "-R", "1"};
        final Run shared = launch(new String[] {"--nprocs", "2", "all_reduce_perf"}, flags);
        assertEquals(0, shared.status, shared.out + shared.err);
        assertTrue(shared.err.contains("buffers in jccl's shared memory"), shared.err);
        assertTrue(shared.err.contains("2 buffers registered; the other ranks read them in place"), shared.err);
        assertTrue(shared.out.contains("# Out of bounds values : 0 OK"), shared.out);

        final List<String> plainFlags = new ArrayList<>(List.of(flags));
        plainFlags.add("--plain-memory");
        final Run plain = launch(new String[] {"--nprocs", "2", "all_reduce_perf"}, plainFlags.toArray(new String[0]));
        assertEquals(0, plain.status, plain.out + plain.err);
        assertTrue(plain.err.contains("buffers in private memory"), plain.err);
        assertTrue(plain.err.contains("2 buffers registered; the other ranks read them through staging copies"),
            plain.err);
        assertTrue(plain.out.contains("# Out of bounds values : 0 OK"), plain.out);
    }

    @Test
    void shouldNameTheFlagsAndStartNothingWhenNprocsIsGivenWithSeveralRanksPerProcess()
    {
        final Run run = Run.of((out, err) -> JcclBench.run(new String[] {"--nprocs", "2", "all_reduce_perf", "-g",
            "2"}, out, err));
        assertEquals(JcclBench.EXIT_USAGE, run.status);
        assertEquals("", run.out);
        assertTrue(run.err.startsWith("all_reduce_perf: -t/--nthreads 1 -g/--ngpus 2 with 2 processes: each " +
            "process of a multi-process run drives one rank; give -t 1 -g 1"), run.err);
    }

    @Test
    @Timeout(180)
    void shouldRunEverySweepPassOnCommunicatorsOfItsOwnWhenRanksAreProcesses()
    {
        // each pass connects at a rendezvous agreed on the communicator before it
        final Run run = launch(new String[] {"--nprocs", "2", "all_reduce_perf"}, new String[] {"-b", "1K", "-e",
            "64K", "-f", "64", "-c", "1", "-n", "2", "-w", "1", "--jit-warmup-ms", "0", "--sweep",
            "proto=ll,simple", "--no-progress"});
        assertEquals(0, run.status, run.out + run.err);
        // the passes proto=ll, proto=simple and the default, then the summary's rows
        final List<String[]> rows = rows(run.out).subList(0, 6);
        assertEquals(List.of("1024", "65536", "1024", "65536", "1024", "65536"), column(rows, 0), run.out);
        assertEquals(List.of("0", "0", "0", "0", "0", "0"), column(rows, 8), run.out);
        assertEquals(List.of("0", "0", "0", "0", "0", "0"), column(rows, 12), run.out);
        for (int row = 0; row < 4; row++)
        {
            final String plan = rows.get(row)[rows.get(row).length - 1];
            assertTrue(plan.contains(row < 2 ? "/ll/" : "/simple/"), plan + " in " + run.out);
        }
        assertTrue(run.out.contains("# Sweep summary"), run.out);
    }

    @Test
    @Timeout(180)
    void shouldComparePlansInterleavedWhenRanksAreProcesses()
    {
        final Run run = launch(new String[] {"--nprocs", "2", "all_reduce_perf"}, new String[] {"-b", "1K", "-e",
            "64K", "-f", "64", "-c", "1", "-n", "3", "-w", "1", "--jit-warmup-ms", "0", "--rounds", "2",
            "--compare-plans", "default;proto=ll"});
        assertEquals(0, run.status, run.out + run.err);
        final List<String[]> rows = rows(run.out);
        assertEquals(List.of("1024", "65536"), column(rows, 0), run.out);
        assertEquals(List.of("0", "0"), column(rows, 3), run.out);
        for (final String[] row : rows)
        {
            assertTrue(row[row.length - 1].contains("/ll/"), "plan B ran LL: " + run.out);
        }
    }

    /** The table of a multi-process run: exit 0, every rank's line, and the rows of the same run in one process. */
    private static void assertEveryRowRightAsInOneProcess(final Run launched, final int nprocs, final String tool,
        final String[] flags)
    {
        assertEquals(0, launched.status, launched.out + launched.err);
        final String table = launched.out;
        final List<Long> pids = new ArrayList<>();
        for (int r = 0; r < nprocs; r++)
        {
            final String prefix = String.format("#  Rank %2d Group  0 Pid ", r);
            final String line = Arrays.stream(table.split("\n")).filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no line for rank in " + table));
            pids.add(Long.parseLong(line.substring(prefix.length()).trim().split(" +")[0]));
        }
        assertEquals(nprocs, pids.stream().distinct().count(), "a process per rank: " + table);
        assertFalse(pids.contains(ProcessHandle.current().pid()), table);
        final List<String[]> rows = rows(table);
        assertFalse(rows.isEmpty(), table);
        for (final String[] row : rows)
        {
            assertEquals(14, row.length, String.join(" ", row));
            assertEquals("0", row[8], "out-of-place #wrong: " + String.join(" ", row));
            assertEquals("0", row[12], "in-place #wrong: " + String.join(" ", row));
        }
        assertTrue(table.contains("# Out of bounds values : 0 OK"), table);

        final List<String> inOne = new ArrayList<>(List.of(tool, "-g", Integer.toString(nprocs)));
        inOne.addAll(List.of(flags));
        final Run local = Run.of((out, err) -> JcclBench.run(inOne.toArray(new String[0]), out, err));
        assertEquals(0, local.status, local.out + local.err);
        final List<String[]> localRows = rows(local.out);
        for (int c = 0; c < 5; c++)
        {
            assertEquals(column(localRows, c), column(rows, c), "size, count, type, redop, root as -g " + nprocs);
        }
    }

    private static Run launch(final String[] head, final String[] flags)
    {
        final List<String> args = new ArrayList<>(List.of(head));
        args.addAll(List.of(flags));
        // PATH as the script's: the launcher looks for taskset there to bind the children
        return Run.of((out, err) -> JcclBench.run(args.toArray(new String[0]), out, err,
            Map.of(BenchJavaCommand.JAVA_OPTS_ENV_NAME, CHILD_JAVA_OPTS, "PATH", System.getenv().getOrDefault("PATH", ""))));
    }

    /** Runs the tool once per process on threads of this JVM, stand-in ranks shared among them. */
    private static List<Run> runAsProcesses(final FakeCommunicators.Fault fault, final int nprocs,
        final String tool, final String... flags) throws Exception
    {
        final BenchOptions all = new BenchOptions();
        new CommandLine(all).parseArgs("-g", Integer.toString(nprocs));
        final Communicator[] comms = FakeCommunicators.factory(fault).create(all, SweepCombination.DEFAULT, nprocs);
        final List<Callable<Run>> processes = new ArrayList<>();
        for (int p = 0; p < nprocs; p++)
        {
            final int rank = p;
            final BenchOptions options = new BenchOptions();
            new CommandLine(options).parseArgs(flags);
            options.processes(rank, nprocs).validate();
            final CommunicatorFactory factory = new CommunicatorFactory()
            {
                @Override
                public Communicator[] create(final BenchOptions o, final SweepCombination c, final int nRanks)
                {
                    assertEquals(nprocs, nRanks);
                    return new Communicator[] {comms[rank]};
                }

                @Override
                public void groupStart()
                {
                }

                @Override
                public void groupEnd()
                {
                }

                @Override
                public BenchSync sync(final int nThreads, final Communicator[] mine)
                {
                    return new CommunicatorSync(mine[0]);
                }
            };
            processes.add(() -> Run.of((out, err) -> new BenchRunner(BenchTool.fromName(tool), options, null,
                factory, out, err).run()));
        }
        return all(processes);
    }

    private static List<Run> all(final List<Callable<Run>> tasks) throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try
        {
            final List<Future<Run>> futures = new ArrayList<>();
            for (final Callable<Run> task : tasks)
            {
                futures.add(pool.submit(task));
            }
            final List<Run> runs = new ArrayList<>();
            for (final Future<Run> future : futures)
            {
                runs.add(future.get());
            }
            return runs;
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    /** The rows of a table, split into columns. */
    private static List<String[]> rows(final String table)
    {
        final List<String[]> rows = new ArrayList<>();
        for (final String line : table.split("\n"))
        {
            if (!line.isBlank() && !line.startsWith("#"))
            {
                rows.add(line.trim().split(" +"));
            }
        }
        return rows;
    }

    private static List<String> column(final List<String[]> rows, final int column)
    {
        return rows.stream().map(r -> r[column]).toList();
    }

    /** A command with its streams. */
    private interface Command
    {
        int run(PrintStream out, PrintStream err);
    }

    /** What a run printed and returned. */
    private record Run(int status, String out, String err)
    {
        static Run of(final Command command)
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int status = command.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
            return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }
}
