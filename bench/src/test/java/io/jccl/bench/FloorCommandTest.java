package io.jccl.bench;

import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jccl-bench floor}: two threads and two child JVMs exchange and check every call, a round a line and the
 * median after; a peer's wrong or stale value is counted; bad flags are named.
 */
class FloorCommandTest
{
    private static final Pattern MEDIAN =
        Pattern.compile("# floor median ([0-9.]+) us over (\\d+) rounds; #wrong (\\d+)");
    private static final Pattern ROUND = Pattern.compile("(?m)^ +\\d+ +(\\d+) +[0-9.]+ +(\\d+)$");

    private String stdout;
    private String stderr;

    private int floor(final String... args)
    {
        final CommandRun run = CommandRun.of("floor", args);
        stdout = run.stdout();
        stderr = run.stderr();
        return run.status();
    }

    private void assertRounds(final int calls, final int rounds)
    {
        final Matcher row = ROUND.matcher(stdout);
        int rows = 0;
        while (row.find())
        {
            assertEquals(calls, Integer.parseInt(row.group(1)), stdout);
            assertEquals(0, Integer.parseInt(row.group(2)), stdout);
            rows++;
        }
        assertEquals(rounds, rows, stdout);
        final Matcher median = MEDIAN.matcher(stdout);
        assertTrue(median.find(), stdout);
        assertTrue(Double.parseDouble(median.group(1)) > 0, stdout);
        assertEquals(rounds, Integer.parseInt(median.group(2)), stdout);
        assertEquals(0, Integer.parseInt(median.group(3)), stdout);
    }

    @Test
    void shouldExchangeAndCheckEveryCallBetweenTwoThreads()
    {
        assertEquals(BenchRunner.EXIT_OK, floor("-n", "5000", "--rounds", "3"), stderr);
        assertTrue(stdout.contains("between 2 threads of one JVM"), stdout);
        assertRounds(5000, 3);
    }

    @Test
    void shouldExchangeAndCheckEveryCallBetweenTwoProcesses()
    {
        assertEquals(BenchRunner.EXIT_OK, floor("--procs", "-n", "5000", "--rounds", "2"), stderr);
        assertTrue(stdout.contains("# floor between 2 processes"), stdout);
        assertTrue(stdout.contains("between 2 processes sharing a mapped file"), stdout);
        assertRounds(5000, 2);
    }

    @Test
    void shouldCountAPeerValueThatIsNotTheCallsOwn()
    {
        final ByteBuffer region = ByteBuffer.allocateDirect(256).order(ByteOrder.nativeOrder());
        final VarHandle longs = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
        // rank 1 has published call 1000 already, with slots that hold call 999's values: stale for every call
        longs.setRelease(region, 128, 1000L);
        for (int slot = 0; slot < 2; slot++)
        {
            region.putFloat(128 + 8 + slot * 8, FloorCommand.value(999, 1, 0));
            region.putFloat(128 + 8 + slot * 8 + 4, FloorCommand.value(999, 1, 1));
        }
        assertEquals(10, FloorCommand.exchange(region, 0, 10));
    }

    @Test
    void shouldNameAPeerThatNeverCallsWithinTheDeadline()
    {
        final ByteBuffer region = ByteBuffer.allocateDirect(256).order(ByteOrder.nativeOrder());
        final IllegalStateException error = assertThrows(IllegalStateException.class,
            () -> FloorCommand.exchange(region, 0, 1, 200_000_000L));
        assertEquals("rank 0 waited 200 ms for rank 1 to make call 1: it stopped or never started",
            error.getMessage());
    }

    @Test
    void shouldNameABadCallCount()
    {
        assertEquals(JcclBench.EXIT_USAGE, floor("-n", "0"));
        assertTrue(stderr.contains("-n and --rounds must be at least 1, not 0 and 5"), stderr);
    }
}
