package io.jccl.bench;

import io.jccl.example.ConnectAndAllReduce;
import io.jccl.launch.JcclRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * jccl-launch's {@code jccl-run} on a program outside jccl ({@link ConnectAndAllReduce}, a test fixture) that joins
 * with {@code Jccl.connect(new Context())} from the variables the launcher sets: real child JVMs, a real rendezvous.
 */
class JcclRunTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    @Timeout(120)
    void shouldRunEveryRankOfAnOutsideProgramWhenItJoinsFromTheLauncherVariables()
    {
        final int status = run("--nprocs", "3", "--");
        assertEquals(0, status, stdout() + stderr());
        for (int rank = 0; rank < 3; rank++)
        {
            for (int round = 0; round < 3; round++)
            {
                assertTrue(stdout().contains("[rank " + rank + "] rank " + rank + " of 3, round " + round +
                    ": 1024 sums right\n"), stdout());
            }
        }
        assertTrue(stderr().startsWith("jccl-run: 3 processes, ranks meet at 127.0.0.1:"), stderr());
    }

    @Test
    @Timeout(120)
    void shouldEndTheOthersAndExitWithItsStatusNamingItWhenOneRankExitsMidRun()
    {
        final int status = run("--nprocs", "3", "--grace-ms", "20000", "--", "1", "3");
        assertEquals(3, status, stdout() + stderr());
        assertTrue(stdout().contains("[rank 1] exiting with status 3 before round 1\n"), stdout());
        assertTrue(stderr().matches("(?s).*jccl-run: rank 1 \\(pid \\d+\\) exited with status 3; the other ranks " +
            "have 20000 ms to end before they are stopped\n.*"), stderr());
        assertTrue(stderr().endsWith("jccl-run: failed: rank 1 exited first, with status 3\n"), stderr());
        // the survivors fail by themselves, naming the rank that died, well inside the grace period
        assertTrue(stderr().contains("[rank 0] ") && stderr().contains("[rank 2] "), stderr());
        assertTrue(!stderr().contains("jccl-run: stopping"), stderr());
    }

    @Test
    void shouldNameTheFlagWhenArgumentsAreBad()
    {
        assertEquals(JcclRun.EXIT_USAGE, JcclRun.run(new String[] {"--", "java"}, print(out), print(err), Map.of()));
        assertTrue(stderr().contains("--nprocs"), stderr());
        err.reset();
        assertEquals(JcclRun.EXIT_USAGE, JcclRun.run(new String[] {"--nprocs", "2", "--nnodes", "2", "--", "x"},
            print(out), print(err), Map.of()));
        assertTrue(stderr().contains("--nnodes 2 needs --master-port"), stderr());
        err.reset();
        assertEquals(JcclRun.EXIT_USAGE, JcclRun.run(new String[] {"--nprocs", "2", "--nnodes", "2",
            "--master-port", "29500", "--", "x"}, print(out), print(err), Map.of()));
        assertTrue(stderr().contains("JCCL_SECRET"), "no secret across hosts is refused before anything starts: " +
            stderr());
        err.reset();
        assertEquals(JcclRun.EXIT_USAGE, JcclRun.run(new String[] {"--nprocs", "2", "--bind-to", "socket", "--",
            "x"}, print(out), print(err), Map.of()));
        assertTrue(stderr().contains("--bind-to 'socket' is neither core nor none"), stderr());
    }

    private int run(final String... launcherArgs)
    {
        final List<String> args = new ArrayList<>();
        final int dashes = List.of(launcherArgs).indexOf("--");
        args.addAll(List.of(launcherArgs).subList(0, dashes + 1));
        args.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
            ConnectAndAllReduce.class.getName()));
        args.addAll(List.of(launcherArgs).subList(dashes + 1, launcherArgs.length));
        return JcclRun.run(args.toArray(new String[0]), print(out), print(err), System.getenv());
    }

    private static PrintStream print(final ByteArrayOutputStream to)
    {
        return new PrintStream(to, true, StandardCharsets.UTF_8);
    }

    private String stdout()
    {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr()
    {
        return err.toString(StandardCharsets.UTF_8);
    }
}
