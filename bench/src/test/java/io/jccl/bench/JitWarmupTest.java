package io.jccl.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --jit-warmup-ms}: 0 leaves exactly nccl-tests' calls; a budget adds untimed calls on every rank, in whole
 * rounds (out of place and in place; the largest size, then the table's small sizes in turn), without changing the
 * table.
 */
@Timeout(120)
class JitWarmupTest
{
    private final AtomicLong calls = new AtomicLong();
    private final java.util.Queue<Long> counts = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.Queue<Long> recvOffsets = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private String stdout;

    private int run(final String... args)
    {
        calls.set(0);
        counts.clear();
        recvOffsets.clear();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            FakeCommunicators.factory(FakeCommunicators.Fault.NONE, calls, counts, recvOffsets));
        stdout = out.toString(StandardCharsets.UTF_8);
        return status;
    }

    private long tableRows()
    {
        return Arrays.stream(stdout.split("\n")).filter(l -> !l.startsWith("#") && !l.isEmpty()).count();
    }

    @Test
    void shouldMakeOnlyNcclTestsCallsWhenZero()
    {
        assertEquals(0, run("all_reduce_perf", "-g", "2", "-b", "8", "-e", "128", "-f", "4", "-w", "1", "-n", "2",
            "--jit-warmup-ms", "0"), stdout);
        // per rank: -w at the largest and smallest size (2), then per size and placement one call before the
        // timing, -n timed, -c checked: 3 sizes x 2 placements x (1 + 2 + 1)
        assertEquals(2 * (2 + 3 * 2 * (1 + 2 + 1)), calls.get());
        assertEquals(3, tableRows());
    }

    @Test
    void shouldMoveEachCallToTheNextSliceUnlessSameBuffersAsked()
    {
        // -e 4K over 1 KiB calls: as nccl-tests, iteration i works at 1 KiB x (i % 4) of the 4 KiB buffers
        assertEquals(0, run("all_reduce_perf", "-g", "2", "-b", "1K", "-e", "4K", "-f", "4", "-w", "0", "-n", "8",
            "-c", "0", "--jit-warmup-ms", "0"), stdout);
        assertEquals(java.util.Set.of(0L, 1024L, 2048L, 3072L), java.util.Set.copyOf(recvOffsets));
        assertEquals(0, run("all_reduce_perf", "-g", "2", "-b", "1K", "-e", "4K", "-f", "4", "-w", "0", "-n", "8",
            "-c", "0", "--jit-warmup-ms", "0", "--same-buffers"), stdout);
        assertEquals(java.util.Set.of(0L), java.util.Set.copyOf(recvOffsets), "every call on the buffers' start");
        assertEquals(2, tableRows());
    }

    @Test
    void shouldTimeMoreCallsThanIterationsWhenRowTimeAsked()
    {
        assertEquals(0, run("all_reduce_perf", "-g", "2", "-b", "8", "-e", "8", "-w", "0", "-n", "2",
            "--jit-warmup-ms", "0", "--row-time-ms", "30"), stdout);
        // per rank and placement: one untimed call, the -n calls that measure the pace, then the calls that fill
        // 30 ms (a fake call takes microseconds, so hundreds), then the -c check
        final long perRank = calls.get() / 2;
        assertTrue(perRank > 2 * (1 + 2 + 100 + 1), "calls per rank: " + perRank);
        assertTrue(perRank <= 2 * (1 + 2 + BenchWorker.MAX_ROW_CALLS + 1), "calls per rank: " + perRank);
        assertEquals(1, tableRows());
        assertEquals(0, run("all_reduce_perf", "-g", "2", "-b", "8", "-e", "8", "-w", "0", "-n", "2",
            "--jit-warmup-ms", "0", "--row-time-ms", "0"), stdout);
        assertEquals(2 * 2 * (1 + 2 + 1), calls.get(), "0: -n calls, as nccl-tests");
    }

    @Test
    void shouldAddWholeRoundsOfUntimedCallsWhenBudgetGiven()
    {
        assertEquals(0, run("all_reduce_perf", "-g", "2", "-b", "8", "-e", "128", "-f", "4", "-w", "1", "-n", "2",
            "--jit-warmup-ms", "40"), stdout);
        final long extra = calls.get() - 2 * (2 + 3 * 2 * (1 + 2 + 1));
        // at least one round at the smallest and one at the largest size, each out of place and in place, per rank
        assertTrue(extra >= 2 * 2 * 2, "extra calls: " + extra);
        assertEquals(0, extra % (2 * 2), "extra calls: " + extra);
        assertEquals(3, tableRows());
        assertTrue(stdout.contains("# Out of bounds values : 0 OK"), stdout);
    }

    @Test
    void shouldChangeSizeEveryRoundInTheSecondHalfSoTheTablesFirstNewSizeIsNothingNew()
    {
        // 8 B to 4 MiB by 16: 2, 32, 512 elements ... 1M elements; the second half cycles through those up to 1 MiB
        assertEquals(0, run("all_reduce_perf", "-g", "1", "-b", "8", "-e", "4M", "-f", "16", "-w", "0", "-n", "1",
            "-c", "0", "--jit-warmup-ms", "200"), stdout);
        final java.util.List<Long> made = java.util.List.copyOf(counts);
        final long largest = 1L << 20;
        final int firstSmall = made.indexOf(2L);
        assertTrue(firstSmall > 0 && made.subList(0, firstSmall).stream().allMatch(c -> c == largest),
            "largest first: " + made);
        // per round out of place on one size and at once in place on the next (the table's -w changes size from one
        // call to the next): 2, 32, 512, 8192, 131072 elements; the table's own calls follow (5 sizes x 2 placements
        // x (1 before the timing + 1 timed))
        final java.util.List<Long> cycle = java.util.List.of(2L, 32L, 32L, 512L, 512L, 8192L, 8192L, 131072L,
            131072L, 2L);
        // the smallest size's calls come last (JitWarmUp.warmUpSmallest), then the table's
        final java.util.List<Long> secondHalf = made.subList(firstSmall,
            smallestPhaseStart(made, 5 * 2 * 2, 131072L, 1));
        assertTrue(secondHalf.size() >= cycle.size(), "warm-up: " + made);
        for (int i = 0; i < secondHalf.size(); i++)
        {
            assertEquals(cycle.get(i % cycle.size()), secondHalf.get(i), "call " + i + " of " + secondHalf);
        }
    }

    @Test
    void shouldQueueAsManyCallsAsTheTimedLoopOnceRoundsAreShort()
    {
        // the timed loop queues -n calls before it waits: rounds start with 8 and double while they are short
        assertEquals(0, run("all_reduce_perf", "-g", "1", "-b", "8", "-e", "128", "-f", "4", "-w", "0", "-n", "64",
            "-c", "0", "--row-time-ms", "0", "--jit-warmup-ms", "200"), stdout);
        final java.util.List<Long> made = java.util.List.copyOf(counts);
        final int firstSmall = made.indexOf(2L);
        // 3 sizes x 2 placements x (1 before the timing + 64 timed)
        final int table = 3 * 2 * (1 + 64);
        // last, the smallest size in bursts of -n, past C2's thresholds: 20,000 calls rounded to whole groups of
        // 2 rounds of two bursts
        assertEquals(2, JitWarmUp.smallestGroupRounds(64));
        assertEquals(20_224, JitWarmUp.smallestCalls(64));
        final java.util.List<Long> secondHalf = made.subList(firstSmall, smallestPhaseStart(made, table, 32L, 64));
        // a round's in-place burst and the next round's out-of-place burst have the same size: runs of 2 bursts
        int firstRun = 0;
        while (secondHalf.get(firstRun).equals(secondHalf.get(0)))
        {
            firstRun++;
        }
        assertEquals(8, firstRun, "first burst of " + secondHalf);
        int longest = 0;
        for (int i = 0, run = 0; i < secondHalf.size(); i++)
        {
            run = i > 0 && secondHalf.get(i).equals(secondHalf.get(i - 1)) ? run + 1 : 1;
            longest = Math.max(longest, run);
        }
        assertEquals(2 * 64, longest, "bursts of " + secondHalf);
    }

    @Test
    void shouldAgreeOnRoundsAcrossThreadsWhenSeveralThreads()
    {
        // two threads of one rank each: thread 0's clock decides, or the ranks' calls would not meet
        assertEquals(0, run("reduce_scatter_perf", "-t", "2", "-g", "1", "-b", "64", "-e", "1K", "-f", "4", "-w",
            "0", "-n", "1", "--jit-warmup-ms", "30"), stdout);
        final long nccl = 2 * (3 * 2 * (1 + 1 + 1));
        assertTrue(calls.get() > nccl, "calls: " + calls.get());
        assertEquals(0, (calls.get() - nccl) % (2 * 2), "calls: " + calls.get());
    }

    @Test
    void shouldDocumentFlagAsJvmSpecificWhenHelp()
    {
        assertEquals(0, run("all_reduce_perf", "-h"));
        final String flat = stdout.replaceAll("\\s+", " ");
        assertTrue(flat.contains("--jit-warmup-ms=<ms> JVM-specific"), flat);
        assertTrue(flat.contains("0 disables (default: 500)"), flat);
        assertEquals(500, BenchOptions.JIT_WARMUP_MS_DEFAULT);
    }

    /**
     * Checks the calls of {@link JitWarmUp#warmUpSmallest} before the table's: groups of one call of the largest size
     * cycled out of place, {@link JitWarmUp#smallestGroupRounds} rounds of a burst of the smallest out of place and
     * one in place, and one call of the largest in place; at least {@link JitWarmUp#smallestCalls} of the smallest in
     * all (more while a JIT compiled).
     *
     * @param made    every call's element count, in order.
     * @param table   the table's calls, at the end.
     * @param largest the largest size cycled, in elements.
     * @param iters   {@code -n}.
     * @return the index of the phase's first call.
     */
    private static int smallestPhaseStart(final java.util.List<Long> made, final int table, final long largest,
        final int iters)
    {
        final int smallestPerGroup = 2 * JitWarmUp.smallestBurst(iters) * JitWarmUp.smallestGroupRounds(iters);
        final int group = smallestPerGroup + 2;
        int start = made.size() - table;
        int smallest = 0;
        while (start >= group && made.get(start - group) == largest && made.get(start - 1) == largest &&
            made.subList(start - group + 1, start - 1).stream().allMatch(c -> c == 2L))
        {
            start -= group;
            smallest += smallestPerGroup;
        }
        assertTrue(smallest >= JitWarmUp.smallestCalls(iters), smallest + " calls of the smallest size before the " +
            "table, in groups between two of the largest: " + made.subList(Math.max(0, start - group),
            made.size() - table));
        return start;
    }
}
