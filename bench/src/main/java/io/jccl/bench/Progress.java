package io.jccl.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Progress lines on stderr for long runs, at most one per interval, each after a row:
 * {@code jccl-bench: all_reduce_perf: combination 2/5 (proto=ll), size 7/13 (32K), 12.3 s elapsed, about 30 s left}.
 * Never on stdout, which carries nccl-tests' table; on by default only when the JVM has a console
 * ({@link #wanted(Boolean, boolean)}).
 * <p>
 * The time left is the time so far scaled by the work left over the work done, where a row's work is its size plus
 * {@link #ROW_OVERHEAD_BYTES} (a large row takes longer; every row pays a fixed cost of warm-up, timed iterations,
 * checks); every pass of a sweep runs the same rows, so the estimate firms up after the first pass. A pass that never
 * ends ({@code -N 0}) has no estimate. The clock is injected so that tests drive it.
 */
public final class Progress implements RunObserver
{
    /** The least time between two lines. */
    public static final long DEFAULT_INTERVAL_NS = TimeUnit.SECONDS.toNanos(2);
    /** The fixed cost of a row in the estimate, in bytes of message: a small row is not free. */
    public static final long ROW_OVERHEAD_BYTES = 64 * 1024;

    private final String toolName;
    private final PrintStream err;
    private final LongSupplier nanoClock;
    private final long intervalNs;
    private long startNs;
    private long lastLineNs;
    private int passCount = 1;
    private int pass;
    private SweepCombination combination = SweepCombination.DEFAULT;
    private List<Long> rowBytes = List.of();
    /** {@code cumulativeWork[i]}: the work of the first i + 1 rows of a pass. */
    private long[] cumulativeWork = new long[0];
    private int rowsDone;

    /**
     * @param toolName   the tool, at the start of every line.
     * @param err        where the lines go (stderr for the tools).
     * @param nanoClock  the time in nanoseconds ({@code System::nanoTime} for the tools).
     * @param intervalNs the least time between two lines, and before the first.
     */
    public Progress(final String toolName, final PrintStream err, final LongSupplier nanoClock, final long intervalNs)
    {
        this.toolName = toolName;
        this.err = err;
        this.nanoClock = nanoClock;
        this.intervalNs = intervalNs;
        this.startNs = nanoClock.getAsLong();
        this.lastLineNs = startNs;
    }

    /**
     * @param flag    {@code --progress} (true), {@code --no-progress} (false), or null when neither was given.
     * @param console whether the JVM has a console ({@code System.console() != null}: run from a terminal).
     * @return whether to print progress lines: the flag when given, else whether there is a console.
     */
    public static boolean wanted(final Boolean flag, final boolean console)
    {
        return flag != null ? flag : console;
    }

    @Override
    public void runStarted(final int passCount, final List<Long> rowBytes)
    {
        this.passCount = passCount;
        this.rowBytes = List.copyOf(rowBytes);
        this.cumulativeWork = new long[rowBytes.size()];
        long work = 0;
        for (int i = 0; i < cumulativeWork.length; i++)
        {
            work += rowBytes.get(i) + ROW_OVERHEAD_BYTES;
            cumulativeWork[i] = work;
        }
        startNs = nanoClock.getAsLong();
        lastLineNs = startNs;
    }

    @Override
    public void passStarted(final int pass, final int passCount, final SweepCombination combination)
    {
        this.pass = pass;
        this.passCount = passCount;
        this.combination = combination;
        this.rowsDone = 0;
    }

    @Override
    public void row(final SweepCombination combination, final RowResult row)
    {
        rowsDone++;
        final long nowNs = nanoClock.getAsLong();
        if (nowNs - lastLineNs < intervalNs)
        {
            return;
        }
        lastLineNs = nowNs;
        err.println(line(row.bytes(), nowNs - startNs));
        err.flush();
    }

    private String line(final long bytes, final long elapsedNs)
    {
        final StringBuilder sb = new StringBuilder("jccl-bench: ").append(toolName).append(": ");
        if (passCount > 1)
        {
            sb.append("combination ").append(pass + 1).append('/').append(passCount).append(" (")
                .append(combination.label()).append("), ");
        }
        sb.append("size ").append(rowsDone);
        if (!rowBytes.isEmpty())
        {
            sb.append('/').append(rowBytes.size());
        }
        sb.append(" (").append(Sizes.label(bytes)).append("), ").append(duration(elapsedNs)).append(" elapsed");
        final long leftNs = leftNs(elapsedNs);
        if (leftNs >= 0)
        {
            sb.append(", about ").append(duration(leftNs)).append(" left");
        }
        return sb.toString();
    }

    /** @return the estimated time left, or -1 when there is no estimate. */
    private long leftNs(final long elapsedNs)
    {
        if (cumulativeWork.length == 0)
        {
            return -1;
        }
        final long passWork = cumulativeWork[cumulativeWork.length - 1];
        final int row = Math.min(rowsDone, cumulativeWork.length);
        final double done = (double)pass * passWork + (row == 0 ? 0 : cumulativeWork[row - 1]);
        final double total = (double)passCount * passWork;
        if (done <= 0)
        {
            return -1;
        }
        return (long)(elapsedNs * Math.max(0, total - done) / done);
    }

    /**
     * @param ns a duration.
     * @return {@code 4.2 s} below 10 s, {@code 42 s}, {@code 3 min 05 s}, {@code 1 h 02 min}.
     */
    static String duration(final long ns)
    {
        final double seconds = ns / 1e9;
        if (seconds < 10)
        {
            return String.format(Locale.ROOT, "%.1f s", seconds);
        }
        final long whole = Math.round(seconds);
        if (whole < 60)
        {
            return whole + " s";
        }
        if (whole < 3600)
        {
            return String.format(Locale.ROOT, "%d min %02d s", whole / 60, whole % 60);
        }
        return String.format(Locale.ROOT, "%d h %02d min", whole / 3600, whole % 3600 / 60);
    }
}
