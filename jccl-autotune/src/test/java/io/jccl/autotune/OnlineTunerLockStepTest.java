package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static io.jccl.autotune.OnlineTunerHarness.Interleaving;
import static io.jccl.autotune.OnlineTunerHarness.Landscape;
import static io.jccl.autotune.OnlineTunerHarness.Leader;
import static io.jccl.autotune.OnlineTunerHarness.REQUEST;
import static io.jccl.autotune.OnlineTunerHarness.bowl;
import static io.jccl.autotune.OnlineTunerHarness.interleave;
import static io.jccl.autotune.OnlineTunerHarness.ringSimpleP2p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OnlineTunerLockStepTest
{
    private static final Plan DEFAULT = ringSimpleP2p(1, 32 << 10);
    private static final int RANKS = 3;
    private static final Landscape LANDSCAPE = bowl(0.2, 8, 256 << 10, plan ->
        plan.protocol().ordinal() * 300 + plan.transport().ordinal() * 200 + plan.algorithm().ordinal() * 100 + 1000);

    private static OnlineTuner tuner()
    {
        return new OnlineTuner(OnlineTunerConfig.defaults(), request -> DEFAULT, PlanConstraints.none());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42})
    void shouldGiveEveryRankTheSamePlanForEveryCallInAnyInterleaving(final long seed)
    {
        final OnlineTuner tuner = tuner();
        final TaskKey key = tuner.key(REQUEST, 1);
        final int calls = 400;
        final Interleaving run = interleave(tuner, key, RANKS, calls, seed,
            (plan, call) -> Math.round(LANDSCAPE.nanos(plan)));
        final List<List<Plan>> plans = run.plans();
        final int waits = run.waits();

        for (int rank = 1; rank < RANKS; rank++)
        {
            assertEquals(plans.get(0), plans.get(rank), "rank " + rank);
        }
        assertTrue(waits > 0, "ranks ahead of the leader wait for the next round");
        assertTrue(tuner.state(key).converged());
        assertTrue(tuner.state(key).trials() > 10);
        assertEquals(calls, plans.get(0).size());
    }

    @Test
    void shouldAnswerNullBeyondThePublishedRoundAndThePlanOnceItIsPublished()
    {
        final OnlineTuner tuner = tuner();
        final TaskKey key = tuner.key(REQUEST, 1);
        final int length = OnlineTunerConfig.defaults().callsPerCandidate();
        for (int k = 0; k < length; k++)
        {
            assertEquals(DEFAULT, tuner.planFor(key, REQUEST, k));
        }
        assertNull(tuner.planFor(key, REQUEST, length));
        for (int k = 0; k < length - 1; k++)
        {
            tuner.record(key, k, DEFAULT, 1000);
            assertNull(tuner.planFor(key, REQUEST, length), "published only once the whole round is recorded");
        }
        tuner.record(key, length - 1, DEFAULT, 1000);
        final Plan second = tuner.planFor(key, REQUEST, length);
        assertNotNull(second);
        assertEquals(2, tuner.rounds(key).size());
        assertEquals(length, tuner.rounds(key).get(1).firstCall());
        assertEquals(second, tuner.rounds(key).get(1).planAt(length));
    }

    @Test
    @Timeout(120)
    void shouldGiveEveryThreadTheSamePlansWhileTheLeaderRecords() throws InterruptedException
    {
        final OnlineTuner tuner = tuner();
        final TaskKey key = tuner.key(REQUEST, 1);
        final int calls = 600;
        final Plan[][] plans = new Plan[RANKS][calls];
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < RANKS; r++)
        {
            final int rank = r;
            threads.add(new Thread(() ->
            {
                try
                {
                    for (int k = 0; k < calls; k++)
                    {
                        Plan plan;
                        while ((plan = tuner.planFor(key, REQUEST, k)) == null)
                        {
                            Thread.yield();
                        }
                        plans[rank][k] = plan;
                        if (rank == 0)
                        {
                            tuner.record(key, k, plan, Math.round(LANDSCAPE.nanos(plan)));
                        }
                    }
                }
                catch (final Throwable ex)
                {
                    error.set(ex);
                }
            }, "rank-" + rank));
        }
        for (final Thread thread : threads)
        {
            thread.start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }

        assertNull(error.get());
        for (int rank = 1; rank < RANKS; rank++)
        {
            for (int k = 0; k < calls; k++)
            {
                assertEquals(plans[0][k], plans[rank][k], "rank " + rank + " call " + k);
            }
        }
        assertTrue(tuner.state(key).converged());
    }

    @Test
    void shouldNeverTryAFailedCandidateAgain()
    {
        final Leader leader = new Leader(tuner(), REQUEST, LANDSCAPE);
        final Plan neighbour = ringSimpleP2p(2, 32 << 10);
        final Plan treeEntry = OnlineTunerHarness.plan(Algorithm.TREE, Protocol.SIMPLE, TransportKind.P2P, 1,
            32 << 10);
        leader.failing.add(neighbour);
        leader.failing.add(treeEntry);
        leader.converge(10_000);
        leader.run(300);

        final TaskState state = leader.tuner.state(leader.key);
        assertTrue(state.converged());
        final int length = OnlineTunerConfig.defaults().callsPerCandidate();
        for (final Plan failing : List.of(neighbour, treeEntry))
        {
            int rounds = 0;
            for (final TuningRound round : leader.tuner.rounds(leader.key))
            {
                rounds += round.holds().get(0).plan().equals(failing) ? 1 : 0;
            }
            assertEquals(1, rounds, failing.id());
            final int first = leader.plans.indexOf(failing);
            final int last = leader.plans.lastIndexOf(failing);
            assertEquals(length - 1, last - first, "only the calls already published for it ran it");
        }
        assertFalse(List.of(neighbour, treeEntry).contains(state.bestPlan()));
        assertEquals(2 * length, state.failures(), "every failed call is counted");
        assertTrue(state.lastFailure().contains("synthetic failure"), state.lastFailure());
    }

    @Test
    void shouldGoOnWithoutTheBaselineWhenItFails()
    {
        final Leader leader = new Leader(tuner(), REQUEST, LANDSCAPE);
        leader.failing.add(DEFAULT);
        final TaskState state = leader.converge(10_000);

        assertTrue(state.converged());
        assertTrue(Double.isNaN(state.baselineNs()));
        assertEquals(DEFAULT, state.baselinePlan());
        assertFalse(DEFAULT.equals(state.bestPlan()));
        assertTrue(state.bestNs() > 0);
    }

    @Test
    void shouldRejectARecordOfAnotherPlanThanThePublishedOne()
    {
        final OnlineTuner tuner = tuner();
        final TaskKey key = tuner.key(REQUEST, 1);
        tuner.planFor(key, REQUEST, 0);
        final JcclInvalidUsageException ex = assertThrows(JcclInvalidUsageException.class,
            () -> tuner.record(key, 0, ringSimpleP2p(4, 32 << 10), 10));
        assertTrue(ex.getMessage().contains("ring/simple/p2p/c4"), ex.getMessage());
    }

    @Test
    void shouldRejectARecordOfACallNotYetPublished()
    {
        final OnlineTuner tuner = tuner();
        final TaskKey key = tuner.key(REQUEST, 1);
        tuner.planFor(key, REQUEST, 0);
        assertThrows(JcclInvalidUsageException.class, () -> tuner.record(key, 100, DEFAULT, 10));
    }

    @Test
    void shouldRejectARecordOfAnUnknownTask()
    {
        final OnlineTuner tuner = tuner();
        final TaskKey key = tuner.key(REQUEST, 1);
        assertThrows(JcclInvalidUsageException.class, () -> tuner.record(key, 0, DEFAULT, 10));
        assertNull(tuner.state(key));
        assertTrue(tuner.rounds(key).isEmpty());
    }

    @Test
    void shouldRejectARequestOutsideTheTaskAndANegativeIndex()
    {
        final OnlineTuner tuner = tuner();
        final TaskKey key = tuner.key(REQUEST, 1);
        final PlanRequest other = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 4 << 20, 4);
        assertThrows(JcclInvalidArgumentException.class, () -> tuner.planFor(key, other, 0));
        assertThrows(JcclInvalidArgumentException.class, () -> tuner.planFor(key, REQUEST, -1));
    }
}
