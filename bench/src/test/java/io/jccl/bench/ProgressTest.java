package io.jccl.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Progress lines: when they are printed, what they say, and that they never reach stdout. */
class ProgressTest
{
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final SweepCombination LL = new SweepCombination(Map.of(SweepKey.PROTO, "ll"));

    private final AtomicLong now = new AtomicLong();
    private final ByteArrayOutputStream lines = new ByteArrayOutputStream();
    private final Progress progress = new Progress("all_reduce_perf",
        new PrintStream(lines, true, StandardCharsets.UTF_8), now::get, 2 * SECOND);

    private static RowResult row(final long bytes)
    {
        return new RowResult(bytes, bytes / 4, "float", "sum", -1, 1.0, 1.0, "-");
    }

    /** Advances the clock to {@code seconds}, reports a row, and returns what was printed for it. */
    private String rowAt(final double seconds, final SweepCombination combination, final long bytes)
    {
        lines.reset();
        now.set((long)(seconds * SECOND));
        progress.row(combination, row(bytes));
        return lines.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldPrintAtMostOneLinePerIntervalWithPassSizeAndEstimateWhenSweep()
    {
        progress.runStarted(3, List.of(0L, 0L));
        progress.passStarted(0, 3, LL);
        assertEquals("", rowAt(1, LL, 8));
        // two equal rows of six done in 4 s: 8 s left
        assertEquals("jccl-bench: all_reduce_perf: combination 1/3 (proto=ll), size 2/2 (8B), 4.0 s elapsed, " +
            "about 8.0 s left\n", rowAt(4, LL, 8));
        progress.passStarted(1, 3, LL);
        assertEquals("", rowAt(5, LL, 8));
        assertEquals("jccl-bench: all_reduce_perf: combination 2/3 (proto=ll), size 2/2 (1K), 7.0 s elapsed, " +
            "about 3.5 s left\n", rowAt(7, LL, 1024));
        progress.passStarted(2, 3, SweepCombination.DEFAULT);
        assertEquals("jccl-bench: all_reduce_perf: combination 3/3 (default), size 1/2 (8B), 1 min 40 s elapsed, " +
            "about 20 s left\n", rowAt(100, SweepCombination.DEFAULT, 8));
    }

    @Test
    void shouldWeighRowsBySizeWhenEstimating()
    {
        // a row's work is its size plus 64K: 64K then 192K; the first quarter took 2 s
        progress.runStarted(1, List.of(0L, 2 * Progress.ROW_OVERHEAD_BYTES));
        progress.passStarted(0, 1, SweepCombination.DEFAULT);
        assertEquals("jccl-bench: all_reduce_perf: size 1/2 (0B), 2.0 s elapsed, about 6.0 s left\n",
            rowAt(2, SweepCombination.DEFAULT, 0));
    }

    @Test
    void shouldLeaveEstimateOutWhenPassNeverEnds()
    {
        progress.runStarted(1, List.of());
        progress.passStarted(0, 1, SweepCombination.DEFAULT);
        assertEquals("jccl-bench: all_reduce_perf: size 1 (128M), 3.0 s elapsed\n",
            rowAt(3, SweepCombination.DEFAULT, 128L << 20));
    }

    @Test
    void shouldFollowFlagElseConsoleWhenDecidingToPrint()
    {
        assertTrue(Progress.wanted(null, true));
        assertFalse(Progress.wanted(null, false));
        assertTrue(Progress.wanted(Boolean.TRUE, false));
        assertFalse(Progress.wanted(Boolean.FALSE, true));
    }

    @Test
    void shouldRoundDurationsToWhatHumansRead()
    {
        assertEquals("4.2 s", Progress.duration(4_200_000_000L));
        assertEquals("42 s", Progress.duration(42 * SECOND));
        assertEquals("3 min 05 s", Progress.duration(185 * SECOND));
        assertEquals("1 h 02 min", Progress.duration(3720 * SECOND));
    }

    /** Runs a tool on fake ranks with a clock that moves 3 s at every reading. */
    private String[] runWithFastClock(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final AtomicLong clock = new AtomicLong();
        final int status = JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), FakeCommunicators.factory(FakeCommunicators.Fault.NONE),
            () -> clock.addAndGet(3 * SECOND));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        return new String[] {out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    private static List<String> progressLines(final String text)
    {
        return Arrays.stream(text.split("\n")).filter(l -> l.startsWith("jccl-bench: all_reduce_perf: ")).toList();
    }

    @Test
    @Timeout(120)
    void shouldPrintOnStderrOnlyWhenProgressGiven()
    {
        final String[] streams = runWithFastClock("all_reduce_perf", "-g", "2", "-b", "8", "-e", "128", "-f", "4",
            "-w", "0", "-n", "1", "--progress", "--sweep", "proto=simple,ll");
        final List<String> stderrLines = progressLines(streams[1]);
        assertEquals(9, stderrLines.size(), streams[1]);
        assertTrue(stderrLines.get(0).startsWith("jccl-bench: all_reduce_perf: combination 1/3 (proto=simple), " +
            "size 1/3 (8B), "), stderrLines.get(0));
        assertTrue(stderrLines.get(8).matches("jccl-bench: all_reduce_perf: combination 3/3 \\(default\\), size 3/3 " +
            "\\(128B\\), \\d+ s elapsed, about 0\\.0 s left"), stderrLines.get(8));
        assertEquals(List.of(), progressLines(streams[0]));
        assertFalse(streams[0].contains("elapsed"), streams[0]);

        assertEquals(List.of(), progressLines(runWithFastClock("all_reduce_perf", "-g", "2", "-b", "8", "-e", "128",
            "-f", "4", "-w", "0", "-n", "1", "--no-progress")[1]));
    }

    @Test
    @Timeout(120)
    void shouldStayQuietWithoutConsoleWhenNoFlag()
    {
        assumeTrue(System.console() == null, "the tests run without a console");
        assertEquals(List.of(), progressLines(runWithFastClock("all_reduce_perf", "-g", "2", "-b", "8", "-e", "128",
            "-f", "4", "-w", "0", "-n", "1")[1]));
    }
}
