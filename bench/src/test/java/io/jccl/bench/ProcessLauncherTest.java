package io.jccl.bench;

import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessLauncherTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void shouldTakeTheCountOutWhenNprocsIsBeforeOrAfterTheTool()
    {
        final ProcessLauncher.Split before = ProcessLauncher.split(new String[] {"--nprocs", "2", "all_reduce_perf",
            "-b", "8"});
        assertEquals(2, before.nprocs());
        assertEquals(List.of("all_reduce_perf", "-b", "8"), before.rest());
        final ProcessLauncher.Split after = ProcessLauncher.split(new String[] {"all_gather_perf", "-b", "8",
            "--nprocs=3"});
        assertEquals(3, after.nprocs());
        assertEquals(List.of("all_gather_perf", "-b", "8"), after.rest());
        assertEquals(0, ProcessLauncher.split(new String[] {"all_reduce_perf"}).nprocs());
        assertTrue(ProcessLauncher.given(new String[] {"x", "--nprocs=4"}));
        assertFalse(ProcessLauncher.given(new String[] {"x", "--nprocsx"}));
    }

    @Test
    void shouldRefuseTheFlagWhenItsCountIsMissingBadOrRepeated()
    {
        assertMessage("--nprocs needs a process count", "all_reduce_perf", "--nprocs");
        assertMessage("--nprocs 0 must be at least 1", "--nprocs", "0", "all_reduce_perf");
        assertMessage("--nprocs 'two' is not a process count", "--nprocs", "two", "all_reduce_perf");
        assertMessage("--nprocs is given twice", "--nprocs", "2", "all_reduce_perf", "--nprocs=2");
    }

    @Test
    @Timeout(60)
    void shouldForwardChildZerosStdoutAndEveryStderrWhenAllChildrenSucceed()
    {
        final int status = launcher("echo", 3, 60_000).run();
        assertEquals(0, status, stderr());
        assertEquals("out 0\n", stdout());
        final List<String> lines = List.of(stderr().split("\n"));
        assertEquals(3, lines.size(), stderr());
        assertTrue(lines.containsAll(List.of("err 0", "err 1", "err 2")), stderr());
    }

    @Test
    @Timeout(60)
    void shouldNameTheDeadRankAndStopTheOthersWhenAChildFails()
    {
        final int status = launcher("fail-rank-1", 3, 300).run();
        assertEquals(3, status, stderr());
        // rank 0 may be stopped before its JVM got as far as printing
        assertTrue(List.of("", "waiting\n").contains(stdout()), stdout());
        assertTrue(stderr().contains("boom\n"), stderr());
        assertTrue(stderr().matches("(?s).*jccl-bench: rank 1 \\(pid \\d+\\) exited with status 3; the other " +
            "ranks have 300 ms to end before they are stopped\n.*"), stderr());
        assertTrue(stderr().contains("jccl-bench: stopping ranks 0, 2: still running 300 ms after rank 1 failed"),
            stderr());
    }

    private ProcessLauncher launcher(final String behaviour, final int nprocs, final long graceMs)
    {
        final ChildCommand command = new ChildCommand(ChildCommand.javaExecutable(),
            List.of("-Xmx32m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
            ChildCommand.classpathEntry(System.getProperty("java.class.path"), LauncherStubChild.class.getName()),
            List.of(behaviour), nprocs, UniqueId.create("127.0.0.1", ProcessLauncher.freePort()));
        return new ProcessLauncher(command, graceMs, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stdout()
    {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr()
    {
        return err.toString(StandardCharsets.UTF_8);
    }

    private static void assertMessage(final String message, final String... args)
    {
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> ProcessLauncher.split(args))
            .getMessage());
    }
}
