package io.jccl.djl;

import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two ranks in two JVMs ({@link DataParallelChild}), joined by {@code Jccl.connect(new Context())} from launcher
 * variables, each starting from different random weights and training its half of every batch: both end with the
 * weights of the one-process full-batch run computed here, and with each other's bit for bit.
 */
class MultiProcessTrainingTest
{
    private static final long SEED = 11;
    private static final int STEPS = 5;
    private static final int HIDDEN = 16;

    @ParameterizedTest(name = "{0}, bucket {1} bytes")
    @CsvSource({"linear, 26214400", "mlp, 8"})
    @Timeout(240)
    void shouldEndWithTheFullBatchWeightsInEveryProcess(final String kind, final long bucketLength,
        @TempDir final Path directory) throws Exception
    {
        final int size = 2;
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final List<Process> children = new ArrayList<>();
        for (int rank = 0; rank < size; rank++)
        {
            children.add(start(rank, size, id, directory, kind, bucketLength));
        }
        final TrainingRun.Result reference = TrainingRun.train(null, kind, HIDDEN, SEED, STEPS, s -> s);
        final float[][][] weights = new float[size][][];
        for (int rank = 0; rank < size; rank++)
        {
            final Process child = children.get(rank);
            final boolean ended = child.waitFor(180, TimeUnit.SECONDS);
            if (!ended)
            {
                children.forEach(Process::destroyForcibly);
            }
            final String log = Files.readString(directory.resolve("rank" + rank + ".log"));
            assertTrue(ended, "rank " + rank + " ended in 180 s: " + log);
            assertEquals(0, child.exitValue(), "rank " + rank + ": " + log);
            weights[rank] = DataParallelChild.parse(Files.readAllLines(directory.resolve("rank" + rank + ".weights")));
            final double difference = TrainingRun.maxRelativeDifference(weights[rank], reference.weights());
            System.out.printf("%s in %d processes, bucket %d: rank %d max relative difference %.3g%n", kind, size,
                bucketLength, rank, difference);
            assertTrue(difference <= 1e-5, "rank " + rank + ": " + difference);
        }
        for (int p = 0; p < weights[0].length; p++)
        {
            assertArrayEquals(weights[0][p], weights[1][p], "parameter " + p);
        }
    }

    /** A rank that dies mid-training breaks the other's next step within the deadline, naming it; nothing hangs. */
    @Test
    @Timeout(120)
    void shouldFailTheSurvivorNamingTheDeadRankWhenARankDiesMidTraining(@TempDir final Path directory)
        throws Exception
    {
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final Process survivor = start(0, 2, id, directory, "mlp", 1024);
        final Process victim = start(1, 2, id, directory, "mlp", 1024, "2");
        try
        {
            assertTrue(victim.waitFor(90, TimeUnit.SECONDS), "the victim died");
            assertEquals(9, victim.exitValue());
            final long diedNs = System.nanoTime();
            assertTrue(survivor.waitFor(60, TimeUnit.SECONDS), "the survivor ended: " + log(directory, 0));
            final long failedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - diedNs);
            final String log = log(directory, 0);
            System.out.printf("survivor failed %d ms after rank 1 died: %s%n", failedMs,
                log.lines().filter(l -> l.startsWith("FAILED")).findFirst().orElse(""));
            assertEquals(3, survivor.exitValue(), log);
            assertTrue(log.lines().anyMatch(l -> l.startsWith("FAILED") && l.contains("rank 1")), log);
            assertTrue(log.contains("rank 0 step 2"), "it had reached the step the victim died in: " + log);
        }
        finally
        {
            survivor.destroyForcibly();
            victim.destroyForcibly();
        }
    }

    /** Ranks whose models differ fail in both processes, each naming the first differing parameter on both sides. */
    @Test
    @Timeout(120)
    void shouldFailEveryProcessNamingTheParameterWhenTheModelsDiffer(@TempDir final Path directory) throws Exception
    {
        final UniqueId id = UniqueId.create("127.0.0.1", freePort());
        final List<Process> children = List.of(start(0, 2, id, directory, "mlp", HIDDEN, 1024),
            start(1, 2, id, directory, "mlp", HIDDEN / 2, 1024));
        try
        {
            for (int rank = 0; rank < 2; rank++)
            {
                assertTrue(children.get(rank).waitFor(90, TimeUnit.SECONDS), "rank " + rank + " ended: " +
                    log(directory, rank));
                final String log = log(directory, rank);
                assertEquals(3, children.get(rank).exitValue(), log);
                System.out.printf("rank %d: %s%n", rank, log.lines().filter(l -> l.startsWith("FAILED")).findFirst()
                    .orElse(""));
                assertTrue(log.lines().anyMatch(l -> l.startsWith("FAILED") && l.contains("the ranks' models differ " +
                    "at parameter #0 of block.getParameters(): rank 0 has 01Linear_weight (16, 4) float32; rank 1 " +
                    "has 01Linear_weight (8, 4) float32")), "rank " + rank + ": " + log);
                assertTrue(!log.contains(" step 1"), "it failed in the first step, before any update: " + log);
            }
        }
        finally
        {
            children.forEach(Process::destroyForcibly);
        }
    }

    private static String log(final Path directory, final int rank) throws IOException
    {
        return Files.readString(directory.resolve("rank" + rank + ".log"));
    }

    private static Process start(final int rank, final int size, final UniqueId id, final Path directory,
        final String kind, final long bucketLength, final String... extra) throws IOException
    {
        return start(rank, size, id, directory, kind, HIDDEN, bucketLength, extra);
    }

    private static Process start(final int rank, final int size, final UniqueId id, final Path directory,
        final String kind, final int hidden, final long bucketLength, final String... extra) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx256m"));
        for (final String property : List.of("ai.djl.offline", "DJL_CACHE_DIR", "ENGINE_CACHE_DIR"))
        {
            if (System.getProperty(property) != null)
            {
                command.add("-D" + property + "=" + System.getProperty(property));
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), DataParallelChild.class.getName(), kind,
            Integer.toString(hidden), Integer.toString(STEPS), Long.toString(bucketLength), Long.toString(SEED),
            directory.resolve("rank" + rank + ".weights").toString()));
        command.addAll(List.of(extra));
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(directory.resolve("rank" + rank + ".log").toFile());
        builder.environment().put("JCCL_RANK", Integer.toString(rank));
        builder.environment().put("JCCL_WORLD_SIZE", Integer.toString(size));
        builder.environment().put("JCCL_COMM_ID", id.toString());
        builder.environment().put("JCCL_TIMEOUT_MS", "20000");
        return builder.start();
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }
}
