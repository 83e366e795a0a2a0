package io.jccl.bench;

import io.jccl.launch.CpuBinding;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code jccl-bench floor [--procs] [-n CALLS] [--rounds R]}: the least an 8-byte AllReduce (2 FLOAT32, SUM) between
 * two ranks can cost in Java on this machine, the yardstick of issue 29's 8-byte figures. Each call is one flag
 * exchange and the arithmetic, and nothing else: no queue, no plan, no {@code Work}, no deadline, no check that the
 * peer makes the same call. jccl's time minus this is what jccl's machinery costs; Open MPI's time minus this is what
 * its own costs.
 * <p>
 * Each rank owns one cache line: a call number and two 8-byte slots taken in turn. A call writes the rank's two
 * floats into the slot of the call's parity, publishes the number with a release store, spins until the peer's
 * number reaches it (then {@code Thread.yield()}, as jccl's waits), reads the peer's slot and adds rank 0's value to
 * rank 1's on both ranks, so both hold the same bits. A slot is written again two calls later, which a rank reaches
 * only after the peer published the call after this one, so after it read the slot. Every call's result is checked.
 * <p>
 * Two threads of this JVM by default, unbound, as {@code -t 2}; with {@code --procs}, two child JVMs sharing a mapped
 * file, each bound to a CPU as {@code --nprocs 2} binds its ranks (mpirun's {@code --bind-to core}). The rounds are
 * timed on rank 0, after a warm-up round that also waits for the peer to start.
 * <p>
 * Exit status: 0 when every result was right, 1 otherwise, 2 for bad arguments.
 */
@Command(
    name = "floor",
    sortOptions = false,
    usageHelpWidth = 120,
    description = "The least an 8-byte AllReduce between two ranks costs here: one flag exchange and a sum per call.")
public final class FloorCommand
{
    /** Exit status when a result was wrong. */
    public static final int EXIT_WRONG = 1;

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
        ByteOrder.nativeOrder());
    /** One line per rank, two lines apart so a neighbour's prefetch does not share them. */
    private static final int LINE = 128;
    private static final int SLOTS_OFFSET = Long.BYTES;
    private static final int SLOT_BYTES = 2 * Float.BYTES;
    private static final int REGION = 2 * LINE;
    private static final int SPINS = 64;
    /** How long a rank waits for its peer's call before it gives up, instead of spinning forever on a dead peer. */
    private static final long PEER_DEADLINE_NS = 10_000_000_000L;
    /** The child's flags: its rank and the mapped file. */
    private static final String RANK_FLAG = "--rank";
    private static final String FILE_FLAG = "--file";

    @Option(names = "--procs", description = "two processes sharing a mapped file instead of two threads")
    private boolean procs;

    @Option(names = "-n", converter = BenchOptions.IntConverter.class, paramLabel = "<calls>",
        description = "calls per round (default: ${DEFAULT-VALUE})", defaultValue = "200000")
    private int calls;

    @Option(names = "--rounds", converter = BenchOptions.IntConverter.class, paramLabel = "<rounds>",
        description = "timed rounds (default: ${DEFAULT-VALUE})", defaultValue = "5")
    private int rounds;

    @Option(names = RANK_FLAG, hidden = true, defaultValue = "-1")
    private int rank;

    @Option(names = FILE_FLAG, hidden = true)
    private Path file;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help")
    private boolean help;

    /**
     * Parses the flags and runs the rounds.
     *
     * @param args the flags (after {@code floor}).
     * @param out  where the table goes.
     * @param err  where argument errors go.
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final FloorCommand command = new FloorCommand();
        final CommandLine commandLine = new CommandLine(command).setCommandName("jccl-bench floor");
        try
        {
            commandLine.parseArgs(args);
            if (command.calls < 1 || command.rounds < 1)
            {
                throw new CommandLine.ParameterException(commandLine, "-n and --rounds must be at least 1, not " +
                    command.calls + " and " + command.rounds);
            }
        }
        catch (final CommandLine.ParameterException ex)
        {
            err.println("jccl-bench floor: " + ex.getMessage());
            commandLine.usage(err);
            return JcclBench.EXIT_USAGE;
        }
        if (command.help)
        {
            commandLine.usage(out);
            return BenchRunner.EXIT_OK;
        }
        try
        {
            if (command.rank >= 0)
            {
                return command.child(out);
            }
            return command.procs ? command.launch(out, err) : command.threads(out);
        }
        catch (final IOException | IllegalStateException ex)
        {
            err.println("jccl-bench floor: " + ex.getMessage());
            return EXIT_WRONG;
        }
    }

    private int threads(final PrintStream out)
    {
        final ByteBuffer region = ByteBuffer.allocateDirect(REGION).order(ByteOrder.nativeOrder());
        final long[] peerWrong = new long[1];
        final Thread peer = new Thread(() -> peerWrong[0] = exchange(region, 1, totalCalls()), "floor-rank-1");
        peer.setDaemon(true);
        peer.start();
        final int status = timeRounds(region, "2 threads of one JVM, unbound", out);
        try
        {
            peer.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return EXIT_WRONG;
        }
        return peerWrong[0] == 0 ? status : EXIT_WRONG;
    }

    /** Rank 0 and rank 1 as child JVMs, rank 0's table copied to {@code out}. */
    private int launch(final PrintStream out, final PrintStream err) throws IOException
    {
        final Path shared = Files.createTempFile("jccl-floor", ".map");
        try
        {
            try (RandomAccessFile f = new RandomAccessFile(shared.toFile(), "rw"))
            {
                f.setLength(REGION);
            }
            final Map<String, String> env = System.getenv();
            final CpuBinding binding = CpuBinding.resolve(null, 2, CpuBinding.allowedCpus(),
                CpuBinding.findTaskset(env));
            final List<Process> children = new ArrayList<>();
            for (int r = 0; r < 2; r++)
            {
                final List<String> command = new ArrayList<>(binding.prefix(r));
                command.addAll(BenchJavaCommand.command(BenchJavaCommand.javaExecutable(), binding,
                    BenchJavaCommand.jvmOptions(env), BenchJavaCommand.currentEntry(), List.of("floor", "-n",
                        Integer.toString(calls), "--rounds", Integer.toString(rounds), RANK_FLAG,
                        Integer.toString(r), FILE_FLAG, shared.toString())));
                children.add(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            out.println("# floor between 2 processes, " + binding.describe());
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(children.get(0).getInputStream(),
                StandardCharsets.UTF_8)))
            {
                for (String line = lines.readLine(); line != null; line = lines.readLine())
                {
                    out.println(line);
                }
            }
            int status = BenchRunner.EXIT_OK;
            for (final Process child : children)
            {
                final int code = child.waitFor();
                status = Math.max(status, code);
            }
            if (status != BenchRunner.EXIT_OK)
            {
                err.println("jccl-bench floor: a rank ended with status " + status);
            }
            return status;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return EXIT_WRONG;
        }
        finally
        {
            Files.deleteIfExists(shared);
        }
    }

    /** One rank of {@code --procs}: rank 0 times and prints, rank 1 only exchanges. */
    private int child(final PrintStream out) throws IOException
    {
        final ByteBuffer region;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            region = f.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, REGION).order(ByteOrder.nativeOrder());
        }
        if (rank == 0)
        {
            return timeRounds(region, "2 processes sharing a mapped file", out);
        }
        return exchange(region, 1, totalCalls()) == 0 ? BenchRunner.EXIT_OK : EXIT_WRONG;
    }

    private long totalCalls()
    {
        return (long)calls * (rounds + 1);
    }

    /** Rank 0: a warm-up round, then the timed rounds, a line each, and their median. */
    private int timeRounds(final ByteBuffer region, final String between, final PrintStream out)
    {
        out.println("# 8-byte AllReduce (2 float, sum) between " + between + ": one flag exchange and the sum per " +
            "call, no library");
        out.println("#  round      calls   time_us   #wrong");
        long wrong = exchange(region, 0, calls);
        final double[] us = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            final long start = System.nanoTime();
            wrong += exchange(region, 0, calls);
            us[r] = (System.nanoTime() - start) / 1e3 / calls;
            out.printf("%8d %10d %9.3f %8d%n", r + 1, calls, us[r], wrong);
        }
        Arrays.sort(us);
        out.printf("# floor median %.3f us over %d rounds; #wrong %d%n", us[rounds / 2], rounds, wrong);
        return wrong == 0 ? BenchRunner.EXIT_OK : EXIT_WRONG;
    }

    /**
     * Runs {@code n} calls of this rank, continuing the region's call numbers, each waiting at most
     * {@value #PEER_DEADLINE_NS} ns for the peer's.
     *
     * @return the calls whose result was wrong.
     */
    static long exchange(final ByteBuffer region, final int rank, final long n)
    {
        return exchange(region, rank, n, PEER_DEADLINE_NS);
    }

    /**
     * Runs {@code n} calls of this rank, continuing the region's call numbers.
     *
     * @param region     both ranks' lines.
     * @param rank       0 or 1.
     * @param n          the calls.
     * @param deadlineNs how long to wait for the peer's call.
     * @return the calls whose result was wrong.
     * @throws IllegalStateException when the peer did not make a call within {@code deadlineNs}.
     */
    static long exchange(final ByteBuffer region, final int rank, final long n, final long deadlineNs)
    {
        final int mine = rank * LINE;
        final int theirs = (1 - rank) * LINE;
        final long first = (long)LONGS.getAcquire(region, mine) + 1;
        long wrong = 0;
        for (long call = first; call < first + n; call++)
        {
            final int slot = SLOTS_OFFSET + (int)(call & 1) * SLOT_BYTES;
            region.putFloat(mine + slot, value(call, rank, 0));
            region.putFloat(mine + slot + Float.BYTES, value(call, rank, 1));
            LONGS.setRelease(region, mine, call);
            int spins = 0;
            long waitedSinceNs = 0;
            while ((long)LONGS.getAcquire(region, theirs) < call)
            {
                if (++spins < SPINS)
                {
                    Thread.onSpinWait();
                    continue;
                }
                spins = 0;
                final long now = System.nanoTime();
                if (waitedSinceNs == 0)
                {
                    waitedSinceNs = now;
                }
                else if (now - waitedSinceNs > deadlineNs)
                {
                    throw new IllegalStateException("rank " + rank + " waited " + deadlineNs / 1_000_000 +
                        " ms for rank " + (1 - rank) + " to make call " + call + ": it stopped or never started");
                }
                Thread.yield();
            }
            final float peer0 = region.getFloat(theirs + slot);
            final float peer1 = region.getFloat(theirs + slot + Float.BYTES);
            // rank 0's value plus rank 1's, on both ranks: the same bits on both
            final float sum0 = rank == 0 ? value(call, 0, 0) + peer0 : peer0 + value(call, 1, 0);
            final float sum1 = rank == 0 ? value(call, 0, 1) + peer1 : peer1 + value(call, 1, 1);
            if (sum0 != value(call, 0, 0) + value(call, 1, 0) || sum1 != value(call, 0, 1) + value(call, 1, 1))
            {
                wrong++;
            }
        }
        return wrong;
    }

    /** @return what {@code rank} sends in element {@code element} of call {@code call}: distinct per call. */
    static float value(final long call, final int rank, final int element)
    {
        return (float)(call % 1024) + 2 * rank + element;
    }
}
