package io.jccl.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.jccl.Communicator;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * sendrecv_perf, hypercube_perf, gather_perf, scatter_perf and alltoall_perf --p2p end to end on
 * {@link FakeCommunicators}, whose sends and receives follow the Communicator contract ({@link FakePointToPoint}):
 * one thread driving every rank (-g), a thread per rank (-t), both, and a rank per process (each process's runner on
 * a thread of its own, as MultiProcessBenchTest's); a result made wrong on purpose is counted.
 */
@Timeout(120)
class PointToPointToolsTest
{
    /** Every new tool with the flags it needs; gather's root 0 so that rank 0, which the faults hit, receives. */
    private static final List<List<String>> TOOLS = List.of(List.of("sendrecv_perf"), List.of("hypercube_perf"),
        List.of("gather_perf", "-r", "0"), List.of("scatter_perf", "-r", "1"), List.of("alltoall_perf", "--p2p"));

    private String stdout;
    private String stderr;

    private int run(final FakeCommunicators.Fault fault, final AtomicLong calls, final List<String> tool,
        final String... args)
    {
        final List<String> all = new ArrayList<>(tool);
        all.addAll(List.of("--jit-warmup-ms", "0"));
        all.addAll(List.of(args));
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = JcclBench.run(all.toArray(new String[0]), new PrintStream(out, true,
            StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
            FakeCommunicators.factory(fault, calls, new ConcurrentLinkedQueue<>()));
        stdout = out.toString(StandardCharsets.UTF_8);
        stderr = err.toString(StandardCharsets.UTF_8);
        return status;
    }

    private int run(final FakeCommunicators.Fault fault, final List<String> tool, final String... args)
    {
        return run(fault, new AtomicLong(), tool, args);
    }

    private List<String> rows()
    {
        return Arrays.stream(stdout.split("\n")).filter(line -> !line.startsWith("#") && !line.isEmpty()).toList();
    }

    /** @return the row's out-of-place and in-place {@code #wrong} columns. */
    private static List<String> wrongColumns(final String row)
    {
        final String[] fields = row.trim().split(" +");
        // size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong | plan
        return List.of(fields[8], fields[12]);
    }

    /** @return each row's size, count and both {@code #wrong} columns. */
    private static List<List<String>> checkedColumns(final String table)
    {
        return Arrays.stream(table.split("\n")).filter(line -> !line.startsWith("#") && !line.isEmpty())
            .map(line -> line.trim().split(" +")).map(f -> List.of(f[0], f[1], f[8], f[12])).toList();
    }

    private static boolean uncheckedInPlace(final List<String> tool)
    {
        return tool.get(0).equals("sendrecv_perf") || tool.contains("--p2p");
    }

    @Test
    void shouldFindNoWrongElementWhenRanksOnOneThreadOnThreadsOrBoth()
    {
        for (final List<String> tool : TOOLS)
        {
            for (final String[] layout : new String[][] {{"-g", "4"}, {"-t", "4"}, {"-t", "2", "-g", "2"}})
            {
                final List<String> args = new ArrayList<>(List.of("-b", "64", "-e", "4K", "-f", "4", "-w", "1",
                    "-n", "2", "-m", "2"));
                args.addAll(List.of(layout));
                assertEquals(0, run(FakeCommunicators.Fault.NONE, tool, args.toArray(new String[0])),
                    tool + " " + List.of(layout) + "\n" + stdout + stderr);
                assertTrue(stdout.contains("# Out of bounds values : 0 OK"), stdout);
                assertEquals(4, rows().size(), stdout);
                for (final String row : rows())
                {
                    assertEquals(List.of("0", uncheckedInPlace(tool) ? "N/A" : "0"), wrongColumns(row),
                        tool + " " + row);
                }
            }
        }
    }

    @Test
    void shouldCountWrongElementsWhenRankZeroReceivesFlippedData()
    {
        for (final List<String> tool : TOOLS)
        {
            assertEquals(1, run(FakeCommunicators.Fault.FLIP_OUTPUT, tool, "-b", "1K", "-e", "1K", "-g", "4", "-w",
                "0", "-n", "1"), tool + "\n" + stdout + stderr);
            assertTrue(stdout.contains("FAILED"), stdout);
            assertTrue(Long.parseLong(wrongColumns(rows().get(0)).get(0)) > 0, tool + " " + rows().get(0));
        }
    }

    @Test
    void shouldCountWrongElementWhenReceiveWritesPastItsBuffer()
    {
        for (final List<String> tool : TOOLS)
        {
            assertEquals(1, run(FakeCommunicators.Fault.WRITE_PAST_END, tool, "-b", "1K", "-e", "1K", "-t", "4",
                "-w", "0", "-n", "1"), tool + "\n" + stdout + stderr);
            assertTrue(Long.parseLong(wrongColumns(rows().get(0)).get(0)) > 0, tool + " " + rows().get(0));
        }
    }

    @Test
    void shouldPrintRootAndNoneWhenGatherRunsEveryRoot()
    {
        assertEquals(0, run(FakeCommunicators.Fault.NONE, List.of("gather_perf"), "-b", "1K", "-e", "1K", "-g", "3",
            "-r", "-1", "-w", "0", "-n", "1"), stderr);
        assertEquals(3, rows().size(), stdout);
        // 1024 B over 3 ranks: 85 floats each, aligned down to 84 (16 bytes); size is the gathered 252 floats
        assertTrue(rows().get(2).startsWith("        1008            84     float    none       2"), rows().get(2));
    }

    @Test
    void shouldMakeSendsAndReceivesPerPeerWhenAllToAllP2p()
    {
        final AtomicLong collective = new AtomicLong();
        assertEquals(0, run(FakeCommunicators.Fault.NONE, collective, List.of("alltoall_perf"), "-b", "1K", "-e",
            "1K", "-g", "4", "-w", "0", "-n", "3"), stderr);
        final AtomicLong p2p = new AtomicLong();
        assertEquals(0, run(FakeCommunicators.Fault.NONE, p2p, List.of("alltoall_perf", "--p2p"), "-b", "1K", "-e",
            "1K", "-g", "4", "-w", "0", "-n", "3"), stderr);
        // the p2p run skips the in-place check: one checked call fewer per rank than the collective's
        final long callsPerRank = collective.get() / 4;
        assertEquals(4 * 2 * 4 * (callsPerRank - 1), p2p.get(), collective + " " + p2p);
    }

    @Test
    void shouldRefuseWhenHypercubeRanksNotPowerOfTwoOrP2pWithoutAllToAll()
    {
        assertEquals(JcclBench.EXIT_USAGE, run(FakeCommunicators.Fault.NONE, List.of("hypercube_perf"), "-g", "3"));
        assertTrue(stderr.contains("hypercube_perf needs a power of two ranks"), stderr);
        assertEquals(JcclBench.EXIT_USAGE, run(FakeCommunicators.Fault.NONE, List.of("all_reduce_perf", "--p2p"),
            "-g", "2"));
        assertTrue(stderr.contains("--p2p: only alltoall_perf"), stderr);
    }

    @Test
    void shouldCheckEveryRowInEveryProcessWhenRanksAreProcesses() throws Exception
    {
        for (final List<String> tool : TOOLS)
        {
            for (final FakeCommunicators.Fault fault : new FakeCommunicators.Fault[] {FakeCommunicators.Fault.NONE,
                FakeCommunicators.Fault.FLIP_OUTPUT})
            {
                final List<String> tables = runAsProcesses(fault, 4, tool, "-b", "256", "-e", "4K", "-f", "4", "-w",
                    "1", "-n", "2");
                stdout = tables.get(0);
                assertEquals(3, rows().size(), tool + " " + stdout);
                for (final String table : tables)
                {
                    // times may differ between processes; sizes, counts and checks may not
                    assertEquals(checkedColumns(stdout), checkedColumns(table), tool + "\n" + table);
                }
                for (final String row : rows())
                {
                    final String outOfPlace = wrongColumns(row).get(0);
                    if (fault == FakeCommunicators.Fault.NONE)
                    {
                        assertEquals(List.of("0", uncheckedInPlace(tool) ? "N/A" : "0"), wrongColumns(row),
                            tool + " " + row);
                    }
                    else
                    {
                        assertTrue(Long.parseLong(outOfPlace) > 0, tool + " " + row);
                    }
                }
            }
        }
    }

    /**
     * Runs the tool as {@code nprocs} processes of one rank each, each process's runner on a thread of this JVM,
     * over fake ranks shared among them; each process's group calls are its thread's, as jccl's are.
     *
     * @return each process's table.
     */
    private static List<String> runAsProcesses(final FakeCommunicators.Fault fault, final int nprocs,
        final List<String> tool, final String... flags) throws Exception
    {
        final BenchOptions all = new BenchOptions();
        new CommandLine(all).parseArgs("-g", Integer.toString(nprocs));
        final CommunicatorFactory fake = FakeCommunicators.factory(fault);
        final Communicator[] comms = fake.create(all, SweepCombination.DEFAULT, nprocs);
        final List<String> args = new ArrayList<>(tool.subList(1, tool.size()));
        args.addAll(List.of("--jit-warmup-ms", "0"));
        args.addAll(List.of(flags));
        final ExecutorService pool = Executors.newFixedThreadPool(nprocs);
        try
        {
            final List<Future<String>> tables = new ArrayList<>();
            for (int p = 0; p < nprocs; p++)
            {
                final int rank = p;
                final BenchOptions options = new BenchOptions();
                new CommandLine(options).parseArgs(args.toArray(new String[0]));
                options.processes(rank, nprocs).validate();
                final CommunicatorFactory factory = new CommunicatorFactory()
                {
                    @Override
                    public Communicator[] create(final BenchOptions o, final SweepCombination c, final int nRanks)
                    {
                        return new Communicator[] {comms[rank]};
                    }

                    @Override
                    public void groupStart()
                    {
                        fake.groupStart();
                    }

                    @Override
                    public void groupEnd()
                    {
                        fake.groupEnd();
                    }

                    @Override
                    public BenchSync sync(final int nThreads, final Communicator[] mine)
                    {
                        return new CommunicatorSync(mine[0]);
                    }
                };
                tables.add(pool.submit(() ->
                {
                    final ByteArrayOutputStream out = new ByteArrayOutputStream();
                    final int status = new BenchRunner(BenchTool.fromName(tool.get(0)), options, null, factory,
                        new PrintStream(out, true, StandardCharsets.UTF_8), System.err).run();
                    final String table = out.toString(StandardCharsets.UTF_8);
                    assertEquals(fault == FakeCommunicators.Fault.NONE ? BenchRunner.EXIT_OK :
                        BenchRunner.EXIT_FAILURE, status, "process " + rank + " of " + tool + ": " + table);
                    return table;
                }));
            }
            final List<String> result = new ArrayList<>();
            for (final Future<String> table : tables)
            {
                result.add(table.get());
            }
            return result;
        }
        finally
        {
            pool.shutdownNow();
        }
    }
}
