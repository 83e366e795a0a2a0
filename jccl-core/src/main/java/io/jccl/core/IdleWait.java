package io.jccl.core;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread with nothing to do waits on a 2-core machine (PERF-NOTES.md): spin a few times, then
 * {@code Thread.yield()}, and only after a long stall park for a few microseconds, growing to 100 us, so a dead
 * peer does not burn a core while a live one costs no wake-up latency.
 */
final class IdleWait
{
    private static final int SPINS = 8;
    private static final int YIELDS = 2000;
    private static final long MAX_PARK_NS = 100_000;

    private int idle;
    private long parkNs = 1000;

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
            Thread.yield();
        }
        else
        {
            LockSupport.parkNanos(parkNs);
            parkNs = Math.min(parkNs * 2, MAX_PARK_NS);
        }
    }
}
