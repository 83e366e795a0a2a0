package io.jccl.launch;

import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessLauncherTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    @Timeout(60)
    void shouldForwardChildZerosStdoutAndEveryStderrWhenAllChildrenSucceed()
    {
        final int status = launcher("echo", 3, 60_000, ProcessLauncher.Output.FIRST_STDOUT).run();
        assertEquals(0, status, stderr());
        assertEquals("out 0\n", stdout());
        final List<String> lines = List.of(stderr().split("\n"));
        assertEquals(3, lines.size(), stderr());
        assertTrue(lines.containsAll(List.of("err 0", "err 1", "err 2")), stderr());
    }

    @Test
    @Timeout(60)
    void shouldPrefixEveryLineOfEveryChildWithItsRankWhenPrefixed()
    {
        final int status = launcher("echo", 3, 60_000, ProcessLauncher.Output.PREFIXED).run();
        assertEquals(0, status, stderr());
        final List<String> outLines = List.of(stdout().split("\n"));
        assertEquals(3, outLines.size(), stdout());
        assertTrue(outLines.containsAll(List.of("[rank 0] out 0", "[rank 1] out 1", "[rank 2] out 2")), stdout());
        final List<String> errLines = List.of(stderr().split("\n"));
        assertTrue(errLines.containsAll(List.of("[rank 0] err 0", "[rank 1] err 1", "[rank 2] err 2")), stderr());
    }

    @Test
    @Timeout(60)
    void shouldNameTheDeadRankAndStopTheOthersWhenAChildFails()
    {
        final int status = launcher("fail-rank-1", 3, 300, ProcessLauncher.Output.PREFIXED).run();
        assertEquals(3, status, "the failed rank's status: " + stderr());
        // ranks 0 and 2 may be stopped before their JVMs got as far as printing
        assertTrue(List.of("[rank 0] waiting", "[rank 2] waiting", "").containsAll(List.of(stdout().split("\n"))),
            stdout());
        assertTrue(stderr().contains("[rank 1] boom\n"), stderr());
        assertTrue(stderr().matches("(?s).*test-launcher: rank 1 \\(pid \\d+\\) exited with status 3; the " +
            "other ranks have 300 ms to end before they are stopped\n.*"), stderr());
        assertTrue(stderr().contains("test-launcher: stopping ranks 0, 2: still running 300 ms after rank 1 " +
            "failed"), stderr());
        assertTrue(stderr().endsWith("test-launcher: failed: rank 1 exited first, with status 3\n"), stderr());
    }

    private ProcessLauncher launcher(final String behaviour, final int nprocs, final long graceMs,
        final ProcessLauncher.Output output)
    {
        final ChildCommand command = new ChildCommand(LauncherStubChild.command(behaviour),
            ChildCommand.World.oneHost(nprocs, UniqueId.create("127.0.0.1", ProcessLauncher.freePort())),
            CpuBinding.UNBOUND);
        return new ProcessLauncher("test-launcher", command, output, graceMs,
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
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
