package io.jccl.core;

import io.jccl.UniqueId;
import io.jccl.transport.SharedBuffers;
import io.jccl.transport.SharedFifoFile;
import io.jccl.transport.StaleSharedFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Ranks in separate JVMs on this host, joined by {@link Jccl#connect} through a real TCP rendezvous and connected
 * by FIFO files in {@code /dev/shm}: every collective, three types, two ops, odd and large counts, in place and not,
 * exact on every rank ({@link MultiProcessChild}), with buffers of jccl's shared allocator (read in place across
 * processes: direct bytes counted) and with private memory (all staged); nothing of the communicator or of its
 * processes' buffers is left in {@code /dev/shm}, whether they exit or are killed.
 */
class MultiProcessTest
{
    /** Where jccl makes its shared files on this host ({@code /dev/shm}, or its fallback). */
    private static final Path SHM = Jccl.sharedMemoryDirectory();

    @ParameterizedTest(name = "{0} processes, {1} memory")
    @CsvSource({"2, plain", "3, plain", "4, plain", "2, shared", "3, shared"})
    @Timeout(300)
    void shouldGiveExactResultsInEveryProcessWhenRanksAreSeparateJvms(final int size, final String memory)
        throws Exception
    {
        final boolean shared = "shared".equals(memory);
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        if (size == 2 && Files.isDirectory(SHM))
        {
            // as a crashed earlier run with the same rendezvous would leave them: empty, never mapped
            Files.createFile(SHM.resolve(Jccl.sharedPrefix(id) + "-0-1-0-simple-p2p"));
            Files.createFile(SHM.resolve(Jccl.sharedPrefix(id) + "-1-0-0-ll-p2p"));
        }
        final List<Process> children = new ArrayList<>();
        for (int rank = size - 1; rank >= 0; rank--)
        {
            children.add(start(rank, size, id, shared));
        }
        final List<String> outputs = new ArrayList<>();
        assertEquals("", awaitAll(children, outputs));
        for (final String output : outputs)
        {
            final java.util.regex.Matcher counters = java.util.regex.Pattern
                .compile("COUNTERS direct=(\\d+) staged=(\\d+)").matcher(output);
            assertTrue(counters.find(), output);
            final long direct = Long.parseLong(counters.group(1));
            assertTrue(shared ? direct > 0 : direct == 0, (shared ? "shared buffers are read in place: " :
                "private memory is staged: ") + counters.group());
            assertTrue(Long.parseLong(counters.group(2)) > 0, "small calls stage (LL): " + counters.group());
        }
        assertTrue(leftovers(id, children).isEmpty(), "left in /dev/shm: " + leftovers(id, children));
    }

    /**
     * Sends and receives between ranks in separate JVMs ({@link P2pWorkload}: ring shifts, random traffic in random
     * order, all-to-all as one group, allToAllv, gather, scatter, blocking exchanges larger than a FIFO): exact on
     * every rank; with jccl's shared buffers the receivers read the sends in place.
     */
    @ParameterizedTest(name = "{0} processes, {1} memory")
    @CsvSource({"3, plain", "2, shared"})
    @Timeout(300)
    void shouldDeliverEverySendExactlyWhenRanksAreSeparateJvms(final int size, final String memory) throws Exception
    {
        final boolean shared = "shared".equals(memory);
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final List<Process> children = new ArrayList<>();
        for (int rank = 0; rank < size; rank++)
        {
            children.add(start(rank, size, id, shared, "p2p"));
        }
        final List<String> outputs = new ArrayList<>();
        assertEquals("", awaitAll(children, outputs));
        for (final String output : outputs)
        {
            final java.util.regex.Matcher counters = java.util.regex.Pattern
                .compile("COUNTERS direct=(\\d+) staged=(\\d+)").matcher(output);
            assertTrue(counters.find() && output.contains("CHECKED "), output);
            assertTrue(shared == Long.parseLong(counters.group(1)) > 0, "read in place only from shared buffers: " +
                counters.group());
        }
        assertTrue(leftovers(id, children).isEmpty(), "left in /dev/shm: " + leftovers(id, children));
    }

    /**
     * Ranks in separate JVMs on the CUDA path (the device double in each, its memory in files that other processes
     * map): with CUDA IPC each sender's FIFO is mapped into its receiver's process, its handle sent as the first slot
     * of the host connection; without ({@code JCCL_CUDA_IPC=0}) every FIFO to another process lies in pinned host
     * memory and a proxy carries its slots through the shared-memory transport. The whole grid of
     * {@link MultiProcessChild} must come out exact on every rank either way.
     */
    @ParameterizedTest(name = "{0} processes on emulated CUDA, IPC {1}, the kernel's own source {2}")
    @CsvSource({"2, true, false", "3, true, false", "2, false, false", "3, false, false", "2, true, true",
        "3, false, true"})
    @Timeout(300)
    void shouldGiveExactResultsWhenRanksOfSeparateJvmsRunOnCuda(final int size, final boolean ipc,
        final boolean kernelSource) throws Exception
    {
        final java.util.Map<String, String> env = new java.util.HashMap<>();
        if (!ipc)
        {
            env.put(Context.CUDA_IPC_PROP_NAME, "0");
        }
        if (kernelSource)
        {
            final Path library = CudaKernelSourceGridTest.library();
            assumeTrue(library != null, CudaKernelSourceGridTest::skipReason);
            env.put(MultiProcessChild.KERNEL_SOURCE_ENV, library.toString());
        }
        runCudaGrid(size, env);
    }

    /**
     * Runs {@link MultiProcessChild}'s grid in separate JVMs on the device double and checks every rank reports it
     * exact and nothing is left in {@code /dev/shm}.
     *
     * @param size the processes.
     * @param env  variables added to each child's environment.
     * @throws Exception if a child cannot start or the wait is interrupted.
     */
    static void runCudaGrid(final int size, final java.util.Map<String, String> env) throws Exception
    {
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final List<Process> children = new ArrayList<>();
        for (int rank = size - 1; rank >= 0; rank--)
        {
            children.add(start(List.of(), env, rank, size, id, "emulated-cuda"));
        }
        final List<String> outputs = new ArrayList<>();
        assertEquals("", awaitAll(children, outputs));
        for (int rank = 0; rank < size; rank++)
        {
            final int r = rank;
            assertTrue(outputs.stream().anyMatch(o -> o.contains("rank " + r + " OK")), String.join("\n", outputs));
        }
        assertTrue(leftovers(id, children).isEmpty(), "left in /dev/shm: " + leftovers(id, children));
    }

    /** With the host backend in jccl's shared memory, and on the CUDA path (a kernel waiting on a dead peer). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"shared", "emulated-cuda"})
    @Timeout(180)
    void shouldBreakEverySurvivorNamingTheDeadRankWhenAPeerIsKilledDuringALargeAllReduce(final String memory)
        throws Exception
    {
        final int size = 3;
        final int victim = 1;
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final Process[] ranks = new Process[size];
        final BufferedReader[] out = new BufferedReader[size];
        for (int rank = 0; rank < size; rank++)
        {
            ranks[rank] = start(List.of(), java.util.Map.of(), rank, size, id, memory, "loop");
            out[rank] = new BufferedReader(new InputStreamReader(ranks[rank].getInputStream()));
        }
        try
        {
            assertEquals("READY", firstLineStartingWith(out[victim], "READY"), "the victim ran one AllReduce");
            if ("shared".equals(memory) && Files.isDirectory(SHM))
            {
                assertEquals(2, buffersOf(ranks[victim].pid()).size(), "the victim's send and receive buffers");
            }
            ranks[victim].destroyForcibly().waitFor();
            final long killedNs = System.nanoTime();
            for (int rank = 0; rank < size; rank++)
            {
                if (rank != victim)
                {
                    final String broken = firstLineStartingWith(out[rank], "BROKEN");
                    assertTrue(broken.contains("rank " + victim), "rank " + rank + ": " + broken);
                    assertTrue(ranks[rank].waitFor(60, TimeUnit.SECONDS), "rank " + rank + " exits");
                    assertEquals(3, ranks[rank].exitValue(), "rank " + rank + " saw the error");
                }
            }
            assertTrue(System.nanoTime() - killedNs < TimeUnit.SECONDS.toNanos(60), "within the 60 s deadline");
            // the survivors removed the killed rank's buffers, and their own went as they exited
            assertTrue(leftovers(id, List.of(ranks)).isEmpty(), "left in /dev/shm: " + leftovers(id, List.of(ranks)));
        }
        finally
        {
            for (final Process p : ranks)
            {
                p.destroyForcibly();
            }
            if ("emulated-cuda".equals(memory) && Files.isDirectory(SHM))
            {
                // the killed rank's device memory (files of the double): the next double sweeps dead processes'
                io.jccl.kernels.cuda.EmulatedCuda.shareable(SHM);
            }
        }
    }

    @Test
    @Timeout(180)
    void shouldFinishExactlyWhenAPeerIsStoppedForThreeSecondsWithinTheDeadline() throws Exception
    {
        final int size = 2;
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final Process[] ranks = new Process[size];
        final BufferedReader[] out = new BufferedReader[size];
        for (int rank = 0; rank < size; rank++)
        {
            ranks[rank] = start(rank, size, id, "steady", "30000");
            out[rank] = new BufferedReader(new InputStreamReader(ranks[rank].getInputStream()));
        }
        try
        {
            assertEquals("READY", firstLineStartingWith(out[1], "READY"));
            signal("STOP", ranks[1]);
            Thread.sleep(3000);
            signal("CONT", ranks[1]);
            for (int rank = 0; rank < size; rank++)
            {
                assertEquals("rank " + rank + " OK", firstLineStartingWith(out[rank], "rank " + rank));
                assertTrue(ranks[rank].waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, ranks[rank].exitValue(), "rank " + rank);
            }
            assertTrue(leftovers(id).isEmpty(), "left in /dev/shm: " + leftovers(id));
        }
        finally
        {
            for (final Process p : ranks)
            {
                p.destroyForcibly();
            }
        }
    }

    /**
     * Rank 0 times out waiting for rank 1, which joined and only closes a second after the deadline: rank 0's error
     * names its timeout, both processes close normally, and no file of the communicator is left in {@code /dev/shm}
     * (rank 0 made both FIFO files of the pair; rank 1 never attached to them, so they were never unlinked).
     */
    @Test
    @Timeout(120)
    void shouldLeaveNoFileOfTheCommunicatorWhenOneRankTimedOutAndBothClosed() throws Exception
    {
        final int size = 2;
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final Process[] ranks = new Process[size];
        for (int rank = 0; rank < size; rank++)
        {
            ranks[rank] = start(rank, size, id, "late", "3000");
        }
        try
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(ranks[0].getInputStream()));
            final String broken = firstLineStartingWith(out, "BROKEN");
            assertTrue(broken.contains("JcclTimeoutException") && broken.contains("timed out after 3000 ms on rank 0"),
                broken);
            assertTrue(ranks[0].waitFor(60, TimeUnit.SECONDS), "rank 0 exits");
            assertEquals(3, ranks[0].exitValue(), "rank 0 saw its timeout");
            assertTrue(ranks[1].waitFor(60, TimeUnit.SECONDS), "rank 1 exits");
            assertEquals(0, ranks[1].exitValue(), "rank 1 closed normally");
            assertTrue(leftovers(id, List.of(ranks)).isEmpty(), "left in /dev/shm: " + leftovers(id, List.of(ranks)));
        }
        finally
        {
            for (final Process p : ranks)
            {
                p.destroyForcibly();
            }
            if (Files.isDirectory(SHM))
            {
                // what a failing run left, so that it does not stay
                ProcessGroupJoin.sweepStaleFifos(SHM, Jccl.sharedPrefix(id));
            }
        }
    }

    /**
     * Both ranks are killed the moment the first FIFO file of their communicator appears (rank 0 made it for its
     * first call; rank 1 never attached, so it was never unlinked): the next communicator on the host, of another
     * rendezvous, removes it as it joins.
     */
    @Test
    @Timeout(180)
    void shouldRemoveTheFifoFileOfRanksKilledDuringSetupWhenTheNextCommunicatorJoins() throws Exception
    {
        final Path shm = SHM;
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(shm), "no /dev/shm here");
        final UniqueId killedId = UniqueId.create("127.0.0.1", freePort());
        final Process[] killed = {start(0, 2, killedId, "late", "60000"), start(1, 2, killedId, "late", "60000")};
        final List<Path> stale;
        try
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (leftovers(killedId).isEmpty() && System.nanoTime() - deadlineNs < 0)
            {
                Thread.sleep(1);
            }
            for (final Process p : killed)
            {
                p.destroyForcibly().waitFor();
            }
            stale = leftovers(killedId);
            assertTrue(!stale.isEmpty(), "rank 0 made no FIFO file in 60 s");
        }
        finally
        {
            for (final Process p : killed)
            {
                p.destroyForcibly();
            }
        }
        final UniqueId nextId = UniqueId.create("127.0.0.1", freePort());
        final List<Process> next = new ArrayList<>(List.of(start(1, 2, nextId, "once"), start(0, 2, nextId, "once")));
        try
        {
            assertEquals("", awaitAll(next, new ArrayList<>()));
            assertTrue(leftovers(killedId, List.of(killed)).isEmpty(), () -> "the killed ranks' files are left: " +
                stale + " -> " + leftoversOrError(killedId, killed));
            assertTrue(leftovers(nextId, next).isEmpty(), "the next communicator's files are left");
        }
        finally
        {
            ProcessGroupJoin.sweepStaleFifos(shm, Jccl.sharedPrefix(killedId));
        }
    }

    @Test
    @Timeout(120)
    void shouldFailEveryRankNamingTheMismatchWhenRanksCallDifferentCollectives() throws Exception
    {
        final int size = 2;
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final Process[] ranks = new Process[size];
        final BufferedReader[] out = new BufferedReader[size];
        for (int rank = 0; rank < size; rank++)
        {
            ranks[rank] = start(rank, size, id, "mismatch", "5000");
            out[rank] = new BufferedReader(new InputStreamReader(ranks[rank].getInputStream()));
        }
        try
        {
            final String receiver = firstLineStartingWith(out[1], "BROKEN");
            assertTrue(receiver.contains("another collective") && receiver.contains("rank 0"), receiver);
            final String sender = firstLineStartingWith(out[0], "BROKEN");
            assertTrue(sender.contains("allReduce") && sender.contains("rank 1"), sender);
            for (final Process p : ranks)
            {
                assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                assertEquals(3, p.exitValue());
            }
        }
        finally
        {
            for (final Process p : ranks)
            {
                p.destroyForcibly();
            }
        }
    }

    /** Ranks whose network wires differ ({@code JCCL_NET}) fail at creation naming both, instead of never meeting. */
    @Test
    @Timeout(120)
    void shouldFailEveryRankAtCreationNamingBothWhenTheirNetworkWiresDiffer() throws Exception
    {
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final String[] wires = {"tcp", "aeron"};
        final Process[] ranks = new Process[2];
        try
        {
            for (int rank = 0; rank < 2; rank++)
            {
                ranks[rank] = start(List.of(), java.util.Map.of("JCCL_TRANSPORT", "net", "JCCL_NET", wires[rank]),
                    rank, 2, id, "plain");
            }
            for (int rank = 0; rank < 2; rank++)
            {
                final BufferedReader out = new BufferedReader(new InputStreamReader(ranks[rank].getInputStream()));
                final String line = out.lines().filter(l -> l.contains("carries network traffic")).findFirst()
                    .orElse("rank " + rank + " printed no wire mismatch");
                assertTrue(line.contains("JcclInvalidUsageException") && line.contains("over TCP") &&
                    line.contains("over AERON") && line.contains("JCCL_NET"), line);
                assertTrue(ranks[rank].waitFor(60, TimeUnit.SECONDS));
                assertTrue(ranks[rank].exitValue() != 0, "rank " + rank + " failed");
            }
        }
        finally
        {
            for (final Process p : ranks)
            {
                if (p != null)
                {
                    p.destroyForcibly();
                }
            }
        }
    }

    /** On the host backend, and on CUDA (rank 0's kernel waiting on rank 1's, which never comes). */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"plain", "emulated-cuda"})
    @Timeout(120)
    void shouldFailThePeerProcessAtOnceNamingTheRankWhenARankAborts(final String memory) throws Exception
    {
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        // rank 0 loops on 64 MiB AllReduce with a 100 s deadline; rank 1 aborts after its first (small) call, so
        // rank 0's first 64 MiB call waits on a rank that will never come: only the abort can end it in time
        final Process looping = start(List.of(), java.util.Map.of(), 0, 2, id, memory, "loop", "100000");
        final Process aborting = start(List.of(), java.util.Map.of(), 1, 2, id, memory, "abort");
        final BufferedReader out = new BufferedReader(new InputStreamReader(looping.getInputStream()));
        try
        {
            final long startNs = System.nanoTime();
            final String broken = firstLineStartingWith(out, "BROKEN");
            assertTrue(broken.contains("rank 1"), broken);
            assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(60), "long before the 100 s deadline");
            assertTrue(aborting.waitFor(60, TimeUnit.SECONDS));
            assertTrue(looping.waitFor(60, TimeUnit.SECONDS));
            assertEquals(3, looping.exitValue());
        }
        finally
        {
            looping.destroyForcibly();
            aborting.destroyForcibly();
        }
    }

    @Test
    @Timeout(120)
    void shouldSplitRanksOfSeveralProcessesByColorAndKey() throws Exception
    {
        final int size = 4;
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final Process[] ranks = new Process[size];
        for (int rank = 0; rank < size; rank++)
        {
            ranks[rank] = start(rank, size, id, "split");
        }
        // even ranks {0, 2} in order, odd ranks {3, 1} (keys -rank); sums of parent rank + 1: 4 and 6
        final String[] expected = {"SPLIT 0 2 4.0", "SPLIT 1 2 6.0", "SPLIT 1 2 4.0", "SPLIT 0 2 6.0"};
        for (int rank = 0; rank < size; rank++)
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(ranks[rank].getInputStream()));
            assertEquals(expected[rank], firstLineStartingWith(out, "SPLIT"), "rank " + rank);
            assertTrue(ranks[rank].waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, ranks[rank].exitValue(), "rank " + rank);
        }
    }

    @Test
    @Timeout(180)
    void shouldRunTheSameSequenceOfTunedPlansOnEveryProcessWithJitterAndDeepQueues() throws Exception
    {
        final int size = 3;
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        // a lead of 8: the converged plan's records reach the other processes in batches of 2, and their calls,
        // queued deep, keep running into the end of what those batches allow
        final java.util.Map<String, String> env = java.util.Map.of("JCCL_TUNER", "auto", "JCCL_TUNER_HOLD", "2",
            "JCCL_TUNER_WARMUP", "0", "JCCL_TUNER_BUDGET", "80", "JCCL_TUNER_LEAD", "8");
        final Process[] ranks = new Process[size];
        for (int rank = 0; rank < size; rank++)
        {
            ranks[rank] = start(List.of(), env, rank, size, id, false, "tune");
        }
        String first = null;
        for (int rank = 0; rank < size; rank++)
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(ranks[rank].getInputStream()));
            final String plans = firstLineStartingWith(out, "PLANS");
            assertTrue(plans.startsWith("PLANS "), "rank " + rank + ": " + plans);
            assertTrue(Integer.parseInt(plans.split(" ")[2]) > 1, "the tuner tried more than one plan: " + plans);
            if (first == null)
            {
                first = plans;
            }
            assertEquals(first, plans, "rank " + rank + " ran another sequence of plans than rank 0");
            assertTrue(ranks[rank].waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, ranks[rank].exitValue(), "rank " + rank);
        }
    }

    /**
     * Waits up to 240 s for every child, then ends any left.
     *
     * @param children the ranks.
     * @param outputs  receives the output of each child that finished.
     * @return what went wrong (a rank too slow, the output of a rank that failed), empty when every rank exited 0.
     * @throws Exception if waiting or reading fails.
     */
    static String awaitAll(final List<Process> children, final List<String> outputs) throws Exception
    {
        final StringBuilder failures = new StringBuilder();
        for (final Process child : children)
        {
            if (!child.waitFor(240, TimeUnit.SECONDS))
            {
                child.destroyForcibly();
                failures.append("a rank did not finish in 240 s; ");
            }
            else
            {
                final String output = new String(child.getInputStream().readAllBytes());
                outputs.add(output);
                if (child.exitValue() != 0)
                {
                    failures.append(output).append("; ");
                }
            }
        }
        children.forEach(Process::destroyForcibly);
        return failures.toString();
    }

    static void signal(final String signal, final Process process) throws Exception
    {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor());
    }

    static String firstLineStartingWith(final BufferedReader reader, final String prefix) throws IOException
    {
        final StringBuilder seen = new StringBuilder();
        String line;
        while ((line = reader.readLine()) != null)
        {
            if (line.startsWith(prefix))
            {
                return line;
            }
            seen.append(line).append('\n');
        }
        return "no line starting with " + prefix + " in: " + seen;
    }

    private static Process start(final int rank, final int size, final UniqueId id, final String... extra)
        throws IOException
    {
        return start(List.of(), java.util.Map.of(), rank, size, id, false, extra);
    }

    private static Process start(final int rank, final int size, final UniqueId id, final boolean shared,
        final String... extra) throws IOException
    {
        return start(List.of(), java.util.Map.of(), rank, size, id, shared, extra);
    }

    /**
     * @param prefix what runs the JVM (such as {@code ip netns exec NAME}), or empty.
     * @param env    variables added to the child's environment.
     * @param rank   the child's rank.
     * @param size   the ranks.
     * @param id     the rendezvous.
     * @param shared true: the child's buffers come from jccl's shared allocator.
     * @param extra  {@link MultiProcessChild}'s mode and deadline, if any.
     * @return the child, its stderr merged into its stdout.
     * @throws IOException if it cannot start.
     */
    static Process start(final List<String> prefix, final java.util.Map<String, String> env, final int rank,
        final int size, final UniqueId id, final boolean shared, final String... extra) throws IOException
    {
        return start(prefix, env, rank, size, id, shared ? "shared" : "plain", extra);
    }

    /**
     * @param prefix a command the child runs under ({@code ip netns exec ...}), or empty.
     * @param env    variables added to the child's environment.
     * @param rank   the child's rank.
     * @param size   the ranks.
     * @param id     the rendezvous.
     * @param memory {@link MultiProcessChild#MEMORY_PROPERTY}: {@code plain}, {@code shared} or {@code emulated-cuda}.
     * @param extra  {@link MultiProcessChild}'s mode and deadline, if any.
     * @return the child, its stderr merged into its stdout.
     * @throws IOException if it cannot start.
     */
    static Process start(final List<String> prefix, final java.util.Map<String, String> env, final int rank,
        final int size, final UniqueId id, final String memory, final String... extra) throws IOException
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(java, "--add-exports",
            "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx512m", "-D" + MultiProcessChild.MEMORY_PROPERTY + "=" +
            memory, "-cp", System.getProperty("java.class.path"),
            MultiProcessChild.class.getName(), Integer.toString(rank), Integer.toString(size), id.toString()));
        command.addAll(List.of(extra));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        return builder.start();
    }

    private static String leftoversOrError(final UniqueId id, final Process... processes)
    {
        try
        {
            return leftovers(id, List.of(processes)).toString();
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    /** @return the communicator's files and the files named after the processes' pids, once they are gone. */
    private static List<Path> leftovers(final UniqueId id, final List<Process> processes) throws IOException
    {
        final List<Path> left = new ArrayList<>(leftovers(id));
        for (final Process p : processes)
        {
            left.addAll(buffersOf(p.pid()));
        }
        return left;
    }

    /**
     * @return the files of jccl's in {@code /dev/shm} named after a pid: its shared buffers, mapping files and FIFO
     *         files not yet linked to their shared name.
     */
    private static List<Path> buffersOf(final long pid) throws IOException
    {
        final Path shm = SHM;
        if (!Files.isDirectory(shm))
        {
            return List.of();
        }
        final String buffers = SharedBuffers.NAME_PREFIX + StaleSharedFiles.pidNamespace() + "-" + pid + "-";
        final String mappings = "jccl-" + pid + "-";
        final String fifos = SharedFifoFile.TEMP_PREFIX + StaleSharedFiles.pidNamespace() + "-" + pid + "-";
        try (Stream<Path> files = Files.list(shm))
        {
            return files.filter(p -> p.getFileName().toString().startsWith(buffers) ||
                p.getFileName().toString().startsWith(mappings) || p.getFileName().toString().startsWith(fifos))
                .toList();
        }
    }

    static List<Path> leftovers(final UniqueId id) throws IOException
    {
        final Path shm = SHM;
        if (!Files.isDirectory(shm))
        {
            return List.of();
        }
        final String prefix = Jccl.sharedPrefix(id);
        try (Stream<Path> files = Files.list(shm))
        {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }
}
