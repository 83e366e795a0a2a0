package io.jccl.autotune;

import io.jccl.Plan;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.jccl.autotune.OnlineTunerHarness.Landscape;
import static io.jccl.autotune.OnlineTunerHarness.Leader;
import static io.jccl.autotune.OnlineTunerHarness.REQUEST;
import static io.jccl.autotune.OnlineTunerHarness.RING_SIMPLE_P2P;
import static io.jccl.autotune.OnlineTunerHarness.bowl;
import static io.jccl.autotune.OnlineTunerHarness.ringSimpleP2p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OnlineTunerDriftTest
{
    private static final Plan DEFAULT = ringSimpleP2p(1, 32 << 10);
    private static final Plan FIRST_OPTIMUM = ringSimpleP2p(8, 256 << 10);
    private static final Plan SECOND_OPTIMUM = ringSimpleP2p(2, 64 << 10);
    private static final Landscape BEFORE = bowl(0.3, 8, 256 << 10, plan -> 1000);
    /** After the jump: the converged plan costs over 3x as much, and the bowl's bottom moved. */
    private static final Landscape AFTER = bowl(0.3, 2, 64 << 10, plan -> 1200);

    /**
     * Calls after the jump that cover the default drift time: the converged plan's slow calls count at least 2000 ns
     * each (clamped at {@link DriftWatch#DRIFT_CLAMP} x its 1.5 x threshold over a reference of about 1000 ns, less
     * with noise), and the re-tune then needs its own calls.
     */
    private static final int CALLS_FOR_DRIFT_MIN_MS =
        (int)(OnlineTunerConfig.DRIFT_MIN_MS_DEFAULT * 1_000_000 / 2000) + 3000;

    private static Leader converged(final OnlineTunerConfig config, final double noise)
    {
        final Leader leader = new Leader(new OnlineTuner(config, request -> DEFAULT, RING_SIMPLE_P2P), REQUEST,
            BEFORE).noise(noise, 11);
        final TaskState state = leader.converge(10_000);
        assertTrue(state.converged());
        assertEquals(FIRST_OPTIMUM, state.bestPlan());
        return leader;
    }

    @Test
    void shouldRetuneExactlyOnceWhenTheCostJumps()
    {
        final Leader leader = converged(OnlineTunerConfig.defaults(), 0.2);
        leader.run(300);
        assertEquals(0, leader.tuner.state(leader.key).retunes());
        assertTrue(AFTER.nanos(FIRST_OPTIMUM) > 3 * BEFORE.nanos(FIRST_OPTIMUM));

        final long jump = leader.next;
        leader.landscape = AFTER;
        leader.run(CALLS_FOR_DRIFT_MIN_MS);

        final TaskState state = leader.tuner.state(leader.key);
        assertEquals(1, state.retunes());
        assertTrue(state.converged());
        assertEquals(SECOND_OPTIMUM, state.bestPlan());
        assertEquals(FIRST_OPTIMUM, state.baselinePlan(), "the re-tune starts from the old best");

        // the converged round was closed after the calls it had already been given for, and the re-tune follows it
        final List<TuningRound> rounds = leader.tuner.rounds(leader.key);
        TuningRound closed = null;
        for (final TuningRound round : rounds)
        {
            if (round.frozen() && !round.open())
            {
                assertNull(closed, "one frozen round was closed");
                closed = round;
                assertEquals(round.firstCall() + round.calls(), rounds.get(round.number() + 1).firstCall());
                assertEquals(FIRST_OPTIMUM, round.holds().get(0).plan());
            }
        }
        assertNotNull(closed);
        final long retuneStart = closed.firstCall() + closed.calls();
        assertTrue(retuneStart > jump + OnlineTunerConfig.DRIFT_WINDOW_DEFAULT, "after a window of slow calls");
        for (long k = closed.firstCall(); k < retuneStart; k++)
        {
            assertEquals(FIRST_OPTIMUM, leader.plans.get((int)k));
        }
        assertTrue(rounds.get(rounds.size() - 1).open());
    }

    @Test
    void shouldNotRetuneOnNoiseAndPauses()
    {
        final Leader leader = converged(OnlineTunerConfig.defaults(), 0.2);
        final Landscape noisy = plan -> BEFORE.nanos(plan) * (leader.next % 97 == 0 ? 50 : 1);
        leader.landscape = noisy;
        leader.run(10_000);

        final TaskState state = leader.tuner.state(leader.key);
        assertEquals(0, state.retunes());
        assertEquals(FIRST_OPTIMUM, state.bestPlan());
    }

    @Test
    void shouldNotRetuneOnAModestSlowdownOrAShortBurst()
    {
        final Leader leader = converged(OnlineTunerConfig.defaults(), 0.0);
        leader.landscape = plan -> BEFORE.nanos(plan) * 1.3;
        leader.run(2000);
        final long burst = leader.next;
        leader.landscape = plan -> BEFORE.nanos(plan) * (leader.next - burst < 20 ? 3 : 1);
        leader.run(500);

        assertEquals(0, leader.tuner.state(leader.key).retunes());
    }

    @Test
    void shouldRetuneOnlyOnceTheSlowCallsLastedTheDriftTime()
    {
        // the converged plan's calls now count 3000 ns each (clamped at 2 x its 1.5 x 1000 ns threshold)
        final Leader leader = converged(OnlineTunerConfig.defaults().withDriftMinMs(10), 0.0);
        leader.landscape = AFTER;
        leader.run(3000);
        assertEquals(0, leader.tuner.state(leader.key).retunes(), "3000 slow calls are 9 ms, under 10");

        leader.run(1000);
        assertEquals(1, leader.tuner.state(leader.key).retunes(), "4000 slow calls are 12 ms");
    }

    @Test
    void shouldNotRetuneOnASlowdownShorterThanTheDriftTime()
    {
        // 20,000 calls at 3x: 60 ms of slow calls, far over the call window, under the default second
        final Leader leader = converged(OnlineTunerConfig.defaults(), 0.0);
        final long start = leader.next;
        leader.landscape = plan -> BEFORE.nanos(plan) * (leader.next - start < 20_000 ? 3 : 1);
        leader.run(40_000);

        assertEquals(0, leader.tuner.state(leader.key).retunes());
        assertEquals(FIRST_OPTIMUM, leader.tuner.state(leader.key).bestPlan());
    }

    @Test
    void shouldRetuneFromTheDefaultPlanWhenConfigured()
    {
        final Leader leader = converged(OnlineTunerConfig.defaults().withRetuneFromBest(false), 0.0);
        leader.landscape = AFTER;
        leader.run(CALLS_FOR_DRIFT_MIN_MS);

        final TaskState state = leader.tuner.state(leader.key);
        assertEquals(1, state.retunes());
        assertEquals(DEFAULT, state.baselinePlan());
        assertEquals(SECOND_OPTIMUM, state.bestPlan());
    }

    @Test
    void shouldRetuneWithoutAConvergedPlanThatFails()
    {
        final int lead = 512;
        final Leader leader = converged(OnlineTunerConfig.defaults().withLeadCalls(lead), 0.0);
        final int before = leader.plans.size();
        leader.failing.add(FIRST_OPTIMUM);
        leader.run(2000);

        final TaskState state = leader.tuner.state(leader.key);
        assertEquals(1, state.retunes());
        assertTrue(state.converged());
        final int lastFailing = leader.plans.lastIndexOf(FIRST_OPTIMUM);
        assertTrue(lastFailing - before <= lead, "only the calls already given it");
        assertEquals(1300.0, BEFORE.nanos(state.bestPlan()), 1e-9, "a nearest neighbour of the lost optimum");
        assertTrue(leader.tuner.state(leader.key).lastFailure().startsWith(FIRST_OPTIMUM.id()));
    }

    @Test
    void shouldGiveTheConvergedPlanUpToTheLeadPastTheLastRecord()
    {
        final Leader leader = converged(OnlineTunerConfig.defaults().withLeadCalls(10), 0.0);
        final long lastRecorded = leader.next - 1;

        assertEquals(FIRST_OPTIMUM, leader.tuner.planFor(leader.key, REQUEST, lastRecorded + 10));
        assertNull(leader.tuner.planFor(leader.key, REQUEST, lastRecorded + 11));
        leader.step();
        assertEquals(FIRST_OPTIMUM, leader.tuner.planFor(leader.key, REQUEST, lastRecorded + 11));
    }

    @Test
    void shouldGiveAConvergedPlanAboutTenMillisecondsOfCallsPastTheLastRecord()
    {
        // 1 us calls: 10,000 (under the default cap), or 512 under a cap of 512; 100 us calls: 100; 1 ms calls: 10,
        // raised to 16
        final long[][] cases = {{1, 10_000, OnlineTunerConfig.LEAD_DEFAULT}, {1, 512, 512}, {100, 100,
            OnlineTunerConfig.LEAD_DEFAULT}, {1000, TaskTuning.MIN_LEAD_CALLS, OnlineTunerConfig.LEAD_DEFAULT}};
        for (final long[] c : cases)
        {
            final long scale = c[0];
            final Leader leader = new Leader(new OnlineTuner(OnlineTunerConfig.defaults().withLeadCalls((int)c[2]),
                request -> DEFAULT, RING_SIMPLE_P2P), REQUEST, plan -> BEFORE.nanos(plan) * scale);
            assertTrue(leader.converge(10_000).converged());
            final Plan best = leader.tuner.state(leader.key).bestPlan();
            final long last = leader.next - 1;
            assertEquals(best, leader.tuner.planFor(leader.key, REQUEST, last + c[1]), "x" + scale);
            assertNull(leader.tuner.planFor(leader.key, REQUEST, last + c[1] + 1), "x" + scale);
        }
    }

    @Test
    void shouldGiveTheConvergedPlanForEveryCallAndNeverRetuneWithDriftOff()
    {
        final Leader leader = converged(OnlineTunerConfig.defaults().withDrift(1.5, 0), 0.0);

        assertEquals(FIRST_OPTIMUM, leader.tuner.planFor(leader.key, REQUEST, Long.MAX_VALUE - 1));
        leader.landscape = AFTER;
        leader.run(3000);
        assertEquals(0, leader.tuner.state(leader.key).retunes());
    }
}
