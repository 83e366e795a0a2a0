package io.jccl.core;

import io.jccl.UniqueId;
import io.jccl.transport.StaleSharedFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.jccl.core.MultiProcessTest.firstLineStartingWith;
import static io.jccl.core.MultiProcessTest.leftovers;
import static io.jccl.core.MultiProcessTest.signal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failures across processes say what happened and who caused it ({@link FailingRankChild} plays each rank): an
 * abort reaches the others as an abort naming the rank that aborted, while that rank is still alive, and a rank
 * stopped in the middle of a ring is named by every survivor, not only by its neighbours.
 */
class FailureCauseTest
{
    private static final Path SHM = Jccl.sharedMemoryDirectory();

    @Test
    @Timeout(120)
    void shouldTellThePeersThatARankAbortedNamingItWhileItStillLives() throws Exception
    {
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final List<Process> ranks = new ArrayList<>();
        try
        {
            for (int rank = 0; rank < 3; rank++)
            {
                ranks.add(start(rank, 3, id, "abort", 60_000));
            }
            final String abort = firstLineStartingWith(reader(ranks.get(0)), "ABORT");
            final BufferedReader waiting = reader(ranks.get(1));
            final String broken = firstLineStartingWith(waiting, "BROKEN");
            assertTrue(broken.contains(" JcclAbortedException: rank 0 (") &&
                broken.endsWith("aborted the communicator"), broken);
            final long latencyMs = (nanos(broken) - nanos(abort)) / 1_000_000;
            // told, not timed out (60 s) and not a death: rank 0 lives two seconds past its abort
            assertTrue(latencyMs < 10_000, "rank 1 heard of the abort after " + latencyMs + " ms");
            final String late = firstLineStartingWith(reader(ranks.get(2)), "BROKEN");
            assertTrue(late.contains("rank 0 (") && late.contains("aborted the communicator"), late);
            assertTrue(firstLineStartingWith(reader(ranks.get(0)), "ALIVE").equals("ALIVE"), "rank 0 lived on");
            for (final Process p : ranks)
            {
                assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            }
            assertEquals(List.of(0, 3, 3), ranks.stream().map(Process::exitValue).toList());
            System.out.println("abort heard by rank 1 after " + latencyMs + " ms: " + broken);
        }
        finally
        {
            ranks.forEach(Process::destroyForcibly);
        }
    }

    /**
     * Rank 1 of a ring of 3 or 4 processes looping on small AllReduce calls is stopped (SIGSTOP): every survivor's
     * error names rank 1 as the one that holds the call up, whichever survivor timed out first and whether rank 1
     * stopped inside a call or between two. Nothing of the communicator stays in the shared-memory directory once
     * rank 1 is killed and the next sweep ran.
     */
    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = {3, 4})
    @Timeout(180)
    void shouldNameTheStoppedMiddleRankOnEverySurvivor(final int size) throws Exception
    {
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final List<Process> ranks = new ArrayList<>();
        try
        {
            for (int rank = 0; rank < size; rank++)
            {
                ranks.add(start(rank, size, id, "loop", 4000));
            }
            assertEquals("READY", firstLineStartingWith(reader(ranks.get(1)), "READY"));
            signal("STOP", ranks.get(1));
            for (int rank = 0; rank < size; rank++)
            {
                if (rank != 1)
                {
                    final String broken = firstLineStartingWith(reader(ranks.get(rank)), "BROKEN");
                    assertTrue(broken.contains("rank 1 holds it up: "), "rank " + rank + ": " + broken);
                    System.out.println("rank " + rank + " of " + size + ": " + broken);
                    assertTrue(ranks.get(rank).waitFor(60, TimeUnit.SECONDS), "rank " + rank + " exits");
                    assertEquals(3, ranks.get(rank).exitValue(), "rank " + rank);
                }
            }
            ranks.get(1).destroyForcibly().waitFor(60, TimeUnit.SECONDS);
            StaleSharedFiles.sweep(SHM);
            assertEquals(List.of(), leftovers(id), "left in the shared-memory directory");
        }
        finally
        {
            for (final Process p : ranks)
            {
                p.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
            }
            if (java.nio.file.Files.isDirectory(SHM))
            {
                StaleSharedFiles.sweep(SHM);
                ProcessGroupJoin.sweepStaleFifos(SHM, Jccl.sharedPrefix(id));
            }
        }
    }

    private static long nanos(final String line)
    {
        return Long.parseLong(line.split(" ")[1]);
    }

    /** One reader per process, kept: a second one over the same stream would lose what the first buffered. */
    private final java.util.Map<Process, BufferedReader> readers = new java.util.HashMap<>();

    private BufferedReader reader(final Process process)
    {
        return readers.computeIfAbsent(process, p -> new BufferedReader(new InputStreamReader(p.getInputStream())));
    }

    private static Process start(final int rank, final int size, final UniqueId id, final String mode,
        final long timeoutMs) throws IOException
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx256m", "-cp",
            System.getProperty("java.class.path"), FailingRankChild.class.getName(), Integer.toString(rank),
            Integer.toString(size), id.toString(), mode, Long.toString(timeoutMs)).redirectErrorStream(true).start();
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }
}
