package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidUsageException;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.core.Jccl;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The point-to-point tools on jccl's runtime: in this JVM (-g, -t with -g) and as processes (--nprocs, through the
 * real launcher); every row checked right. Skipped, saying why, while jccl-core has no send and receive (its
 * communicators throw {@link JcclInvalidUsageException}): these are the tests that say when it has.
 */
class PointToPointOnCoreTest
{
    /** Every tool with the flags it needs. */
    private static final List<List<String>> TOOLS = List.of(List.of("sendrecv_perf"), List.of("hypercube_perf"),
        List.of("gather_perf", "-r", "1"), List.of("scatter_perf", "-r", "2"), List.of("alltoall_perf", "--p2p"));
    private static final String CHILD_JAVA_OPTS = "-Xmx256m -XX:+UseSerialGC";

    private static boolean coreHasSendAndReceive;

    private String stdout;
    private String stderr;

    @BeforeAll
    static void probeCore()
    {
        coreHasSendAndReceive = sendsToItself();
    }

    @BeforeEach
    void skipWithoutSendAndReceive()
    {
        // per test, so that the report counts them as skipped
        assumeTrue(coreHasSendAndReceive, "jccl-core has no send/recv yet: Communicator.send throws " +
            "JcclInvalidUsageException");
    }

    /** @return true when a rank's send to itself meets its receive in a group, false when send is not there. */
    private static boolean sendsToItself()
    {
        final Communicator[] comms = Jccl.initAll(1);
        try
        {
            final HostBuffer send = HostBuffer.allocate(4);
            final HostBuffer recv = HostBuffer.allocate(4);
            final Work work;
            Jccl.groupStart();
            try
            {
                comms[0].send(send, 1, DataType.FLOAT32, 0, Stream.DEFAULT);
                work = comms[0].recv(recv, 1, DataType.FLOAT32, 0, Stream.DEFAULT);
            }
            catch (final JcclInvalidUsageException ex)
            {
                return false;
            }
            finally
            {
                Jccl.groupEnd();
            }
            work.join();
            return true;
        }
        finally
        {
            comms[0].close();
        }
    }

    @Test
    @Timeout(300)
    void shouldCheckEveryRowRightWhenRanksInThisJvm()
    {
        for (final List<String> tool : TOOLS)
        {
            for (final String[] layout : new String[][] {{"-g", "4"}, {"-t", "2", "-g", "2"}})
            {
                final List<String> args = new ArrayList<>(tool);
                args.addAll(List.of(layout));
                args.addAll(List.of("-b", "64", "-e", "64K", "-f", "8", "-w", "1", "-n", "2", "-c", "1",
                    "--timeout-ms", "60000"));
                final int status = run(args, Map.of());
                assertEquals(0, status, tool + " " + List.of(layout) + "\n" + stdout + stderr);
                assertEveryRowRight(tool);
            }
        }
    }

    @Test
    @Timeout(600)
    void shouldCheckEveryRowRightWhenRanksAreProcesses()
    {
        for (final List<String> tool : TOOLS)
        {
            final List<String> args = new ArrayList<>(List.of("--nprocs", "4"));
            args.addAll(tool);
            args.addAll(List.of("-b", "64", "-e", "64K", "-f", "8", "-w", "1", "-n", "2", "-c", "1",
                "--jit-warmup-ms", "0", "--timeout-ms", "60000"));
            // PATH as the script's: the launcher looks for taskset there to bind the children
            final int status = run(args, Map.of(BenchJavaCommand.JAVA_OPTS_ENV_NAME, CHILD_JAVA_OPTS, "PATH",
                System.getenv().getOrDefault("PATH", "")));
            assertEquals(0, status, tool + "\n" + stdout + stderr);
            assertEveryRowRight(tool);
        }
    }

    private int run(final List<String> args, final Map<String, String> env)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        final String[] argv = args.toArray(new String[0]);
        final int status = env.isEmpty() ? JcclBench.run(argv, outStream, errStream) :
            JcclBench.run(argv, outStream, errStream, env);
        stdout = out.toString(StandardCharsets.UTF_8);
        stderr = err.toString(StandardCharsets.UTF_8);
        return status;
    }

    private void assertEveryRowRight(final List<String> tool)
    {
        final boolean inPlaceChecked = !tool.get(0).equals("sendrecv_perf") && !tool.contains("--p2p");
        final List<String> rows = Arrays.stream(stdout.split("\n")).filter(l -> !l.startsWith("#") && !l.isEmpty())
            .toList();
        assertEquals(4, rows.size(), stdout);
        for (final String row : rows)
        {
            final String[] columns = row.trim().split(" +");
            assertEquals("0", columns[8], "out-of-place #wrong: " + row);
            assertEquals(inPlaceChecked ? "0" : "N/A", columns[12], "in-place #wrong: " + row);
        }
        assertTrue(stdout.contains("\n# Out of bounds values : 0 OK\n"), stdout);
    }
}
