package io.jccl.bench;

import io.jccl.core.Context;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bench with the online tuner ({@code --tuner auto}): its flags ({@code --trace}, {@code --tune-iters},
 * {@code --load}) and what they may not be given with, and a run on jccl's runtime that tunes its size before timing
 * it, prints the summary and leaves a trace; and the compute load beside a run.
 */
class OnlineTuningBenchTest
{
    private static final String BUDGET_PROPERTY = "jccl.tuner.budget";

    private String stdout;
    private String stderr;

    @AfterEach
    void clearBudget()
    {
        System.clearProperty(BUDGET_PROPERTY);
    }

    private static BenchOptions parse(final String... args)
    {
        final BenchOptions options = new BenchOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }

    private static String rejection(final String... args)
    {
        return assertThrows(IllegalArgumentException.class, () -> parse(args).validate()).getMessage();
    }

    @Test
    void shouldSetTraceFileAndTuneItersWhenTunerAuto(@TempDir final Path dir)
    {
        final Path trace = dir.resolve("trace.csv");
        final BenchOptions options = parse("--tuner", "auto", "--trace", trace.toString(), "--tune-iters", "0x10",
            "--load", "matmul:2");
        options.validate();

        assertTrue(options.onlineTuning());
        assertEquals(trace, options.traceFile());
        assertEquals(trace, JcclCommunicatorFactory.context(options).tunerTraceFile());
        assertEquals(16, options.tuneIters());
        assertEquals(new ComputeLoad.Spec("matmul", 2), options.load());

        final BenchOptions plain = parse("--tuner", "model");
        plain.validate();
        assertFalse(plain.onlineTuning());
        assertNull(plain.load());
        assertNull(JcclCommunicatorFactory.context(plain).tunerTraceFile());
    }

    @Test
    void shouldTuneForTheBudgetTheConfirmationAndFiftyCallsWhenTuneItersNotGiven()
    {
        final BenchOptions options = parse("--tuner", "auto");
        options.validate();
        // the confirmation: 3 rounds holding at most 3 plans for 6 calls each
        assertEquals(200 + 54 + 50, options.tuneIters());
        System.setProperty(BUDGET_PROPERTY, "30");
        assertEquals(30 + 54 + 50, options.tuneIters());
        System.setProperty(BUDGET_PROPERTY, "zero");
        final String message = rejection("--tuner", "auto");
        assertTrue(message.startsWith("online tuner settings: JCCL_TUNER_BUDGET='zero' is not an integer"), message);
    }

    @Test
    void shouldRejectTuningFlagsWithoutTheOnlineTuner(@TempDir final Path dir)
    {
        final String trace = dir.resolve("t.csv").toString();
        assertEquals("--trace " + trace + " needs --tuner auto (or JCCL_TUNER=auto): the trace holds the online " +
            "tuner's trials", rejection("--trace", trace));
        assertTrue(rejection("--tuner", "model", "--trace", trace).startsWith("--trace " + trace + " needs --tuner " +
            "auto"));
        assertTrue(rejection("--tune-iters", "10").startsWith("--tune-iters 10 needs --tuner auto"));
        assertEquals("--tune-iters -1 must not be negative", rejection("--tuner", "auto", "--tune-iters", "-1"));
        assertTrue(rejection("--tuner", "auto", "--trace", trace, "--sweep", "proto=ll,simple")
            .startsWith("--trace and --sweep together"));
        final Path missing = dir.resolve("no/such/dir/t.csv");
        assertTrue(rejection("--tuner", "auto", "--trace", missing.toString())
            .startsWith("--trace " + missing + ": the directory "));
    }

    @Test
    void shouldRejectLoadNamingTheFlagWhenMalformed()
    {
        assertEquals("--load 'matmul:0': THREADS 0 is outside 1..1024", rejection("--load", "matmul:0"));
        assertEquals("--load 'spin' is not of the form matmul:THREADS", rejection("--load", "spin"));
        assertEquals("--load kind 'gemm' is not matmul", rejection("--load", "gemm:4"));
    }

    @Test
    void shouldAcceptTunerAutoWithSeveralProcesses()
    {
        // rank 0's records reach the other processes' tuners, which publish the same rounds (MultiProcessTest)
        final BenchOptions options = parse("--tuner", "auto").processes(1, 2);
        options.validate();
        assertTrue(options.onlineTuning());
        assertEquals(1, options.processRank());
        assertEquals(2, options.processCount());
        assertEquals(Context.TunerMode.AUTO, JcclCommunicatorFactory.context(options).tunerMode(),
            "the runtime tunes in every process");
    }

    @Test
    @Timeout(180)
    void shouldTuneEachSizeThenTimeItAndSumUpWhenTunerAutoOnJccl(@TempDir final Path dir) throws IOException
    {
        System.setProperty(BUDGET_PROPERTY, "30");
        final Path trace = dir.resolve("trace.csv");
        final int status = run(new String[] {"all_reduce_perf", "-g", "2", "-b", "64K", "-e", "64K", "-n", "2", "-w",
            "0", "--jit-warmup-ms", "0", "--tuner", "auto", "--trace", trace.toString(), "--timeout-ms", "60000"},
            Map.of());
        assertEquals(0, status, stdout + stderr);

        final List<String> lines = Arrays.asList(stdout.split("\n"));
        assertTrue(lines.contains("# Online tuning: each size runs untimed until its tuner task converges, at most " +
            "134 calls (--tune-iters), then is timed; summary after the table"), stdout);
        final List<String> data = lines.stream().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
        assertEquals(2, data.size(), stdout);
        final String[] row = data.get(0).trim().split(" +");
        assertEquals(14, row.length, data.get(0));
        assertEquals(List.of("65536", "16384", "float", "sum", "-1"), List.of(row).subList(0, 5));
        assertEquals("0", row[8], "out-of-place #wrong: " + data.get(0));
        assertEquals("0", row[12], "in-place #wrong: " + data.get(0));

        final int summary = lines.indexOf(lines.stream().filter(l -> l.startsWith("# Online tuning summary"))
            .findFirst().orElseThrow(() -> new AssertionError(stdout)));
        assertTrue(summary > lines.indexOf("# Out of bounds values : 0 OK"), stdout);
        final String[] tuned = data.get(1).trim().split(" +");
        assertEquals(14, tuned.length, data.get(1));
        assertEquals(List.of("65536", "16384", "float", "sum", "-1"), List.of(tuned).subList(0, 5));
        assertFalse(tuned[7].endsWith("*"), "converged within the budget of 30 calls: " + data.get(1));
        assertTrue(Double.parseDouble(tuned[6]) > 0, data.get(1));
        assertTrue(Double.parseDouble(tuned[8]) > 0, data.get(1));
        final long trials = Long.parseLong(tuned[10]);
        final long searchCalls = Long.parseLong(tuned[11]);
        final long tuneCalls = Long.parseLong(tuned[12]);
        // the search's 30 calls, the confirmation's at most 54, and the tuner's lead of calls past its last record
        assertTrue(trials >= 1 && searchCalls <= 30 && tuneCalls >= 1 && tuneCalls <= 134, data.get(1));

        // rank 0's trials of the one task, written when the ranks closed
        final List<String> traced = Files.readAllLines(trace);
        assertEquals("task,call,plan,ns,outcome", traced.get(0));
        assertTrue(traced.size() > 1, String.join("\n", traced));
        assertTrue(traced.get(1).startsWith("allreduce/float/sum/r2/65536..131071/"), traced.get(1));
        final TracePlotModel model = TracePlotModel.build(CsvResults.read(trace));
        assertEquals(1, model.series().size());
    }

    @Test
    @Timeout(60)
    void shouldRunLoadBesideTheCollectivesAndStopItAtTheEnd()
    {
        final List<Long> during = new ArrayList<>();
        final CommunicatorFactory fake = FakeCommunicators.factory(FakeCommunicators.Fault.NONE);
        final CommunicatorFactory watching = new CommunicatorFactory()
        {
            @Override
            public io.jccl.Communicator[] create(final BenchOptions options, final SweepCombination combination,
                final int nRanks)
            {
                return fake.create(options, combination, nRanks);
            }

            @Override
            public void groupStart()
            {
                during.add(ComputeLoadTest.liveLoadThreads());
                fake.groupStart();
            }

            @Override
            public void groupEnd()
            {
                fake.groupEnd();
            }
        };
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status = JcclBench.run(new String[] {"all_reduce_perf", "-g", "2", "-b", "8", "-e", "1K", "-f", "4",
            "-w", "0", "-n", "1", "--load", "matmul:2"}, new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err, watching);
        stdout = out.toString(StandardCharsets.UTF_8);

        assertEquals(0, status, stdout);
        assertTrue(stdout.contains("\n# Load: matmul 256x256 float on 2 daemon threads in this process, beside the " +
            "collectives\n"), stdout);
        assertFalse(during.isEmpty());
        assertTrue(during.stream().allMatch(n -> n == 2), during.toString());
        assertEquals(0, ComputeLoadTest.liveLoadThreads());
    }

    @Test
    @Timeout(60)
    void shouldWarmUpOnRanksOfItsOwnAndSumUpUntunedSizesWhenTunerAuto()
    {
        final AtomicLong runCalls = new AtomicLong();
        final AtomicLong warmCalls = new AtomicLong();
        final CommunicatorFactory run = FakeCommunicators.factory(FakeCommunicators.Fault.NONE, runCalls);
        final CommunicatorFactory warm = FakeCommunicators.factory(FakeCommunicators.Fault.NONE, warmCalls);
        final CommunicatorFactory factory = new CommunicatorFactory()
        {
            @Override
            public io.jccl.Communicator[] create(final BenchOptions options, final SweepCombination combination,
                final int nRanks)
            {
                return run.create(options, combination, nRanks);
            }

            @Override
            public io.jccl.Communicator[] createForWarmUp(final BenchOptions options,
                final SweepCombination combination, final int nRanks)
            {
                return warm.create(options, combination, nRanks);
            }

            @Override
            public void groupStart()
            {
            }

            @Override
            public void groupEnd()
            {
            }
        };
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final String[] args = {"all_reduce_perf", "-g", "2", "-b", "8", "-e", "32", "-f", "4", "-w", "0", "-n", "1",
            "-c", "0", "--jit-warmup-ms", "30", "--tuner", "auto"};
        assertEquals(0, JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), System.err, factory));
        stdout = out.toString(StandardCharsets.UTF_8);

        assertTrue(warmCalls.get() > 0, "the JIT warm-up ran on its own ranks");
        // per size and rank: one tuning call (no task covers it: these ranks have no tuner), then 1 + 1 per placement
        assertEquals(2 * 2 * (1 + 2 * 2), runCalls.get());
        final List<String> summary = Arrays.stream(stdout.split("\n")).dropWhile(l -> !l.startsWith("# Online " +
            "tuning summary")).toList();
        assertEquals(List.of("8", "2", "float", "sum", "-1", "-", "N/A", "-", "N/A", "N/A", "-", "-", "1"),
            List.of(summary.get(3).trim().split(" +")).subList(0, 13), stdout);
        assertTrue(summary.get(5).startsWith("# - the online tuner does not decide this call"), stdout);

        // without the online tuner the warm-up runs on the run's own ranks
        warmCalls.set(0);
        args[args.length - 1] = "model";
        assertEquals(0, JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), System.err, factory));
        assertEquals(0, warmCalls.get());
    }

    private int run(final String[] args, final Map<String, String> env)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), env);
        stdout = out.toString(StandardCharsets.UTF_8);
        stderr = err.toString(StandardCharsets.UTF_8);
        return status;
    }

    /** The context the tool's ranks get keeps the tuner in auto mode with the trace. */
    @Test
    void shouldBuildAnAutoContextWithTheTrace(@TempDir final Path dir)
    {
        final BenchOptions options = parse("--tuner", "auto", "--trace", dir.resolve("t.csv").toString());
        options.validate();
        final Context context = JcclCommunicatorFactory.context(options);
        assertEquals(Context.TunerMode.AUTO, context.tunerMode());
        assertEquals(dir.resolve("t.csv"), context.tunerTraceFile());
    }
}
