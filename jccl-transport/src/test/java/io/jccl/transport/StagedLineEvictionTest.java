package io.jccl.transport;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The policy against a simulated pipeline whose slots flow at a rate that depends on the mode of the slots one lap
 * earlier (as a sender's stores depend on where the receiver left the lines), with noise.
 */
class StagedLineEvictionTest
{
    private static final int SLOT = 256 * 1024;
    private static final int CALL_SLOTS = 256;

    /** Rates in bytes per ns of the two modes, and the relative noise of each slot's time. */
    private record Host(double keepRate, double evictRate, double noise)
    {
    }

    private static final Host NEAR = new Host(12.0, 7.5, 0.15);
    private static final Host APART = new Host(2.4, 6.8, 0.15);

    /** Drives the policy; returns the fraction of slots read in the evicting mode over the last half. */
    private static final class Pipeline
    {
        private final StagedLineEviction policy = new StagedLineEviction();
        private final Random random = new Random(42);
        private final boolean[] lap = new boolean[FifoDescriptor.SLOTS];
        private long now = 1_000_000;
        private long seq;
        private long slots;

        double run(final Host host, final int calls)
        {
            long evicted = 0;
            long counted = 0;
            for (int c = 0; c < calls; c++)
            {
                seq++;
                // a gap between calls, which must not count as a slow slot
                now += 5_000_000;
                for (int s = 0; s < CALL_SLOTS; s++)
                {
                    final int index = (int)(slots % lap.length);
                    final double rate = lap[index] ? host.evictRate : host.keepRate;
                    now += (long)(SLOT / rate * (1 + host.noise * (random.nextDouble() * 2 - 1)));
                    final boolean evicting = policy.evicting();
                    lap[index] = evicting;
                    policy.slotRead(seq, SLOT, now);
                    slots++;
                    if (c >= calls / 2)
                    {
                        counted++;
                        evicted += evicting ? 1 : 0;
                    }
                }
            }
            return (double)evicted / counted;
        }
    }

    @Test
    void shouldKeepTheLinesWhereKeepingIsFaster()
    {
        final Pipeline pipeline = new Pipeline();
        final double evicting = pipeline.run(NEAR, 60);
        assertTrue(evicting < 0.05, "evicting in " + evicting + " of the slots while keeping is faster");
        assertEquals(0, pipeline.policy.switches(), "never left the faster mode");
    }

    @Test
    void shouldWriteTheLinesBackWhereThatIsFasterAndExploreLessOnceSettled()
    {
        final Pipeline pipeline = new Pipeline();
        final double evicting = pipeline.run(APART, 60);
        assertTrue(evicting > 0.95, "evicting in only " + evicting + " of the slots while it is faster");
        assertEquals(1, pipeline.policy.switches(), "switched once and held");
    }

    @Test
    void shouldFollowTheHostWhenItMovesTheCpus()
    {
        final Pipeline pipeline = new Pipeline();
        assertTrue(pipeline.run(APART, 40) > 0.95);
        assertTrue(pipeline.run(NEAR, 40) < 0.05, "back to keeping once the CPUs share a cache");
        assertTrue(pipeline.run(APART, 40) > 0.95, "and to writing back when they are apart again");
        assertEquals(3, pipeline.policy.switches());
    }

    @Test
    void shouldNotSwitchOnNoiseAlone()
    {
        final Pipeline pipeline = new Pipeline();
        pipeline.run(new Host(5.0, 5.0, 0.3), 60);
        assertEquals(0, pipeline.policy.switches(), "two equal modes under 30% noise");
    }

    @Test
    void shouldStartByKeepingTheLines()
    {
        final StagedLineEviction policy = new StagedLineEviction();
        assertFalse(policy.evicting(), "starts by keeping the lines");
        policy.slotRead(1, SLOT, 10);
        assertFalse(policy.evicting(), "one slot decides nothing");
    }
}
