package io.jccl.bench;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * nccl-tests' {@code Barrier} and {@code Allreduce} among the bench threads of a run whose ranks all live in this
 * process: a barrier, and a barrier that combines one number per thread. {@link #abort()} breaks every current and
 * future wait, so that one failing thread cannot leave the others blocked.
 */
public final class ThreadSync implements BenchSync
{
    /** {@code -a 0}: the value of thread 0. */
    public static final int RANK0 = 0;
    /** {@code -a 1}: the mean. */
    public static final int AVG = 1;
    /** {@code -a 2}: the minimum. */
    public static final int MIN = 2;
    /** {@code -a 3}: the maximum. */
    public static final int MAX = 3;
    /** The sum (nccl-tests' mode 4, used for wrong-element counts). */
    public static final int SUM = 4;

    private final int parties;
    private final CyclicBarrier barrier;
    private final double[] slots;
    private volatile boolean aborted;

    /** @param parties the thread count. */
    public ThreadSync(final int parties)
    {
        this.parties = parties;
        this.barrier = new CyclicBarrier(parties);
        this.slots = new double[parties];
    }

    /** Waits until every thread arrives. */
    @Override
    public void barrier()
    {
        if (parties == 1)
        {
            checkAborted();
            return;
        }
        try
        {
            barrier.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted at a barrier", ex);
        }
        catch (final BrokenBarrierException ex)
        {
            throw new IllegalStateException("another bench thread failed", ex);
        }
        checkAborted();
    }

    /**
     * Combines one value per thread; every thread gets the result.
     *
     * @param thread this thread's index.
     * @param value  this thread's value.
     * @param mode   {@link #RANK0}, {@link #AVG}, {@link #MIN}, {@link #MAX} or {@link #SUM}.
     * @return the combination.
     */
    @Override
    public double allReduce(final int thread, final double value, final int mode)
    {
        slots[thread] = value;
        barrier();
        final double result = combine(slots, mode);
        barrier();
        return result;
    }

    /**
     * {@inheritDoc}
     * <p>
     * One process: the values are already the sum.
     */
    @Override
    public double[] sumOverProcesses(final double[] values)
    {
        checkAborted();
        return values.clone();
    }

    /** Breaks every current and future wait with an exception. */
    @Override
    public void abort()
    {
        aborted = true;
        barrier.reset();
    }

    /**
     * @param values one value per thread.
     * @param mode   {@link #RANK0}, {@link #AVG}, {@link #MIN}, {@link #MAX} or {@link #SUM}.
     * @return the combination, as nccl-tests' {@code Allreduce}.
     */
    static double combine(final double[] values, final int mode)
    {
        double result = values[0];
        for (int i = 1; i < values.length; i++)
        {
            result = switch (mode)
            {
                case RANK0 -> result;
                case MIN -> Math.min(result, values[i]);
                case MAX -> Math.max(result, values[i]);
                default -> result + values[i];
            };
        }
        return mode == AVG ? result / values.length : result;
    }

    private void checkAborted()
    {
        if (aborted)
        {
            throw new IllegalStateException("another bench thread failed");
        }
    }
}
