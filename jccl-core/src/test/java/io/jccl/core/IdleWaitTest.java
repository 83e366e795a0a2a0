package io.jccl.core;

import org.junit.jupiter.api.Test;

import static io.jccl.core.IdleWait.Contention.CONFIRM_WINDOW_NS;
import static io.jccl.core.IdleWait.Contention.LONG_YIELD_NS;
import static io.jccl.core.IdleWait.Contention.MAX_HOLD_NS;
import static io.jccl.core.IdleWait.Contention.MIN_HOLD_NS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When waiting threads decide that busy threads hold the cores, and for how long they then park. */
class IdleWaitTest
{
    private static final long MS = 1_000_000;
    private static final long LONG = LONG_YIELD_NS + MS;

    private final IdleWait.Contention contention = new IdleWait.Contention();
    private long now = 5_000 * MS;

    /** @return when the yield ended. */
    private long yieldFor(final long ns)
    {
        final long start = now;
        now += ns;
        contention.yielded(start, now);
        return now;
    }

    @Test
    void shouldParkOnlyAfterThreeLongYieldsInTheWindowAndForTheMinimumHold()
    {
        yieldFor(LONG);
        assertFalse(contention.parks(now), "one long yield is no proof");
        yieldFor(LONG);
        assertFalse(contention.parks(now), "nor are two");
        final long marked = yieldFor(LONG);

        assertTrue(contention.parks(marked));
        assertTrue(contention.parks(marked + MIN_HOLD_NS - 1));
        assertFalse(contention.parks(marked + MIN_HOLD_NS));
    }

    @Test
    void shouldNotParkWhenLongYieldsAreFarApartOrShort()
    {
        for (int i = 0; i < 10; i++)
        {
            yieldFor(LONG);
            now += CONFIRM_WINDOW_NS / 2;
            assertFalse(contention.parks(now), "long yield " + i);
        }
        for (int i = 0; i < 1000; i++)
        {
            yieldFor(LONG_YIELD_NS);
            assertFalse(contention.parks(now), "a yield of exactly the threshold is not long");
        }
    }

    @Test
    void shouldDoubleTheHoldUpToTheMaximumWhileProbesFindTheCoresTaken()
    {
        yieldFor(LONG);
        yieldFor(LONG);
        long hold = MIN_HOLD_NS;
        long marked = yieldFor(LONG);
        for (int probe = 0; probe < 10; probe++)
        {
            assertTrue(contention.parks(marked + hold - 1), "probe " + probe);
            assertFalse(contention.parks(marked + hold), "probe " + probe);
            // a long yield while the mark holds (another thread's) changes nothing
            contention.yielded(marked - LONG, marked + hold / 2);
            assertFalse(contention.parks(marked + hold));
            now = marked + hold;
            marked = yieldFor(LONG);
            hold = Math.min(hold * 2, MAX_HOLD_NS);
        }
        assertEquals(MAX_HOLD_NS, hold);
        assertTrue(contention.parks(marked + MAX_HOLD_NS - 1));
        assertFalse(contention.parks(marked + MAX_HOLD_NS));
    }

    @Test
    void shouldClearTheMarkAndTheHoldWhenAProbeYieldsQuickly()
    {
        yieldFor(LONG);
        yieldFor(LONG);
        final long marked = yieldFor(LONG);
        now = marked + MIN_HOLD_NS;
        yieldFor(LONG);
        assertTrue(contention.parks(now), "the probe found the cores taken: held again, for twice as long");
        now += 2 * MIN_HOLD_NS;
        yieldFor(1000);
        assertFalse(contention.parks(now));

        now += CONFIRM_WINDOW_NS * 10;
        yieldFor(LONG);
        assertFalse(contention.parks(now), "cleared: one long yield does not mark again");
        yieldFor(LONG);
        final long again = yieldFor(LONG);
        assertTrue(contention.parks(again));
        assertFalse(contention.parks(again + MIN_HOLD_NS), "the hold started over at the minimum");
    }
}
