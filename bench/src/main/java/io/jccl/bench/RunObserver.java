package io.jccl.bench;

import java.util.List;

/**
 * What a tool run tells besides its table: that it starts, that a pass starts (a {@code --sweep} runs one per
 * combination, then the default; a plain run is one pass), and every row. The result files ({@link ResultFiles})
 * and the progress lines ({@link Progress}) listen. Called on the thread that runs the tool, which is bench thread
 * 0, between measurements; never from the timed loop.
 */
public interface RunObserver
{
    /** An observer that does nothing. */
    RunObserver NONE = new RunObserver()
    {
    };

    /**
     * The run starts.
     *
     * @param passCount the passes it will run: 1, or the sweep's combinations plus the default.
     * @param rowBytes  the table size of each row of one pass, in order ({@link BenchRunner#plannedRowBytes}),
     *                  empty when a pass never ends ({@code -N 0}).
     */
    default void runStarted(final int passCount, final List<Long> rowBytes)
    {
    }

    /**
     * A pass starts.
     *
     * @param pass        its index, from 0.
     * @param passCount   the passes of the run.
     * @param combination its pins, {@link SweepCombination#DEFAULT} for the default pass and a plain run.
     */
    default void passStarted(final int pass, final int passCount, final SweepCombination combination)
    {
    }

    /**
     * A row of the table was printed.
     *
     * @param combination the pins of its pass.
     * @param row         what it measured.
     */
    default void row(final SweepCombination combination, final RowResult row)
    {
    }

    /**
     * @param first  told first.
     * @param second told second.
     * @return an observer that tells both, in that order.
     */
    static RunObserver both(final RunObserver first, final RunObserver second)
    {
        return new RunObserver()
        {
            @Override
            public void runStarted(final int passCount, final List<Long> rowBytes)
            {
                first.runStarted(passCount, rowBytes);
                second.runStarted(passCount, rowBytes);
            }

            @Override
            public void passStarted(final int pass, final int passCount, final SweepCombination combination)
            {
                first.passStarted(pass, passCount, combination);
                second.passStarted(pass, passCount, combination);
            }

            @Override
            public void row(final SweepCombination combination, final RowResult row)
            {
                first.row(combination, row);
                second.row(combination, row);
            }
        };
    }
}
