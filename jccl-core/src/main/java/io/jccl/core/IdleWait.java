package io.jccl.core;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread with nothing to do waits on a 2-core machine (PERF-NOTES.md): spin a few times, then
 * {@code Thread.yield()}, and only after a long stall park for a few microseconds, growing to 100 us, so a dead
 * peer does not burn a core while a live one costs no wake-up latency.
 * <p>
 * A yield is cheap only while no busy thread shares the core. Beside a compute thread (a rank bound to one CPU with a
 * training step's math on it: {@code --nprocs 2 --load matmul:1}), the scheduler gives that thread the rest of its
 * slice at every yield, 1-4 ms here, so every wait for a peer took a millisecond or more. A thread that parks leaves
 * the run queue instead, and its timer puts it back ahead of the compute within about 60 us. So the waits of this
 * process watch their yields ({@link Contention}): while the cores are taken they park for
 * {@link #CONTENDED_PARK_NS} where they would yield. Measured here, a blocking 8-byte AllReduce between two processes,
 * each with a matmul thread on its CPU, took 966 us a call with yields and 138 us with this (paired windows of one
 * launch); without the load the two read the same (0.64 and 0.67 us, 0.48 and 0.46 us in two launches).
 */
final class IdleWait
{
    private static final int SPINS = 8;
    private static final int YIELDS = 2000;
    private static final long MAX_PARK_NS = 100_000;

    /** The park that stands in for a yield while contended (the timer's slack makes it about 60 us). */
    static final long CONTENDED_PARK_NS = 20_000;

    /** This process's cores, as the threads waiting for their calls see them. */
    static final Contention CALLERS = new Contention();

    private final Contention contention;
    private int idle;
    private long parkNs = 1000;

    /**
     * @param contention what this thread's yields count in: {@link #CALLERS} for a thread waiting for its call, its
     *                   own for the progress helper. The helper yields to this process's callers while they issue
     *                   calls, so its long yields would mark the callers' waits, where a peer answers within a
     *                   microsecond; with its own mark it parks only itself.
     */
    IdleWait(final Contention contention)
    {
        this.contention = contention;
    }

    /** Called after a round that did something. */
    void reset()
    {
        idle = 0;
        parkNs = 1000;
    }

    /** Called after a round that did nothing. */
    void idle()
    {
        final int n = ++idle;
        if (n <= SPINS)
        {
            Thread.onSpinWait();
        }
        else if (n <= SPINS + YIELDS)
        {
            final long start = System.nanoTime();
            if (contention.parks(start))
            {
                LockSupport.parkNanos(CONTENDED_PARK_NS);
            }
            else
            {
                Thread.yield();
                contention.yielded(start, System.nanoTime());
            }
        }
        else
        {
            LockSupport.parkNanos(parkNs);
            parkNs = Math.min(parkNs * 2, MAX_PARK_NS);
        }
    }

    /**
     * Whether busy threads hold the cores, judged from how long yields take. {@value #CONFIRM_YIELDS} yields of over
     * {@link #LONG_YIELD_NS} within {@link #CONFIRM_WINDOW_NS} mark it (one or two are no proof: the host took the
     * vCPU away, or a JIT or GC thread ran for a while; beside a compute thread they come one after another). The
     * mark lasts {@link #MIN_HOLD_NS} at first. When it lapses the next yield probes: a long one marks again for
     * twice as long (up to {@link #MAX_HOLD_NS}, so a steady load pays one long yield in 50 ms), a short one clears
     * the mark and the hold. Thread-safe; the hot check ({@link #parks}) reads two volatile fields.
     */
    static final class Contention
    {
        /** A yield that kept its thread off the core for longer than this met a busy thread there. */
        static final long LONG_YIELD_NS = 1_000_000;
        static final int CONFIRM_YIELDS = 3;
        static final long CONFIRM_WINDOW_NS = 10_000_000;
        static final long MIN_HOLD_NS = 2_000_000;
        static final long MAX_HOLD_NS = 50_000_000;

        private volatile boolean marked;
        private volatile long untilNs;
        private long holdNs = MIN_HOLD_NS;
        /** The last {@link #CONFIRM_YIELDS} - 1 long yields' ends, a ring. */
        private final long[] longYieldsNs = new long[CONFIRM_YIELDS - 1];
        private int next;

        /**
         * @param nowNs {@link System#nanoTime()}.
         * @return whether waiting threads park instead of yielding now.
         */
        boolean parks(final long nowNs)
        {
            return marked && nowNs - untilNs < 0;
        }

        /**
         * @param startNs when the yield began.
         * @param endNs   when it returned.
         */
        void yielded(final long startNs, final long endNs)
        {
            if (endNs - startNs > LONG_YIELD_NS)
            {
                longYield(endNs);
            }
            else if (marked)
            {
                clear();
            }
        }

        private synchronized void longYield(final long nowNs)
        {
            if (parks(nowNs))
            {
                return;
            }
            if (marked)
            {
                // the mark lapsed and the probe found the cores still taken
                holdNs = Math.min(holdNs * 2, MAX_HOLD_NS);
            }
            else
            {
                final long oldest = longYieldsNs[next];
                longYieldsNs[next] = nowNs;
                next = (next + 1) % longYieldsNs.length;
                if (oldest == 0 || nowNs - oldest > CONFIRM_WINDOW_NS)
                {
                    return;
                }
                holdNs = MIN_HOLD_NS;
            }
            untilNs = nowNs + holdNs;
            marked = true;
        }

        private synchronized void clear()
        {
            marked = false;
            holdNs = MIN_HOLD_NS;
        }
    }
}
