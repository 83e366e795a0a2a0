package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.jccl.autotune.OnlineTunerHarness.Landscape;
import static io.jccl.autotune.OnlineTunerHarness.Leader;
import static io.jccl.autotune.OnlineTunerHarness.REQUEST;
import static io.jccl.autotune.OnlineTunerHarness.RING_SIMPLE_P2P;
import static io.jccl.autotune.OnlineTunerHarness.bowl;
import static io.jccl.autotune.OnlineTunerHarness.log2;
import static io.jccl.autotune.OnlineTunerHarness.plan;
import static io.jccl.autotune.OnlineTunerHarness.ringSimpleP2p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OnlineTunerSearchTest
{
    /** What the default tuner answers: the corner of the grid, far from every optimum below. */
    private static final Plan DEFAULT = ringSimpleP2p(1, 32 << 10);
    private static final OnlineTunerConfig CONFIG = OnlineTunerConfig.defaults();

    private static OnlineTuner tuner(final OnlineTunerConfig config, final PlanConstraints constraints)
    {
        return new OnlineTuner(config, request -> DEFAULT, constraints);
    }

    private static Landscape flat(final double nanos)
    {
        return plan -> nanos;
    }

    @Test
    void shouldMeasureTheDefaultPlanFirstAsTheBaseline()
    {
        final Leader leader = new Leader(tuner(CONFIG, RING_SIMPLE_P2P), REQUEST,
            bowl(0.3, 8, 256 << 10, flat(1000)));
        leader.run(CONFIG.callsPerCandidate());

        assertEquals(List.of(DEFAULT), leader.distinct());
        final TaskState state = leader.tuner.state(leader.key);
        assertEquals(DEFAULT, state.baselinePlan());
        assertEquals(1000 * (1 + 0.3 * (9 + 9)), state.baselineNs(), 1e-9);
        assertEquals(1, state.trials());
        assertEquals(new TuningRound(0, 0, List.of(new TuningRound.Hold(DEFAULT, 6)), false),
            leader.tuner.rounds(leader.key).get(0));
    }

    @Test
    void shouldFindTheBottomOfABowlWithinTheBudget()
    {
        final Leader leader = new Leader(tuner(CONFIG, RING_SIMPLE_P2P), REQUEST,
            bowl(0.3, 8, 256 << 10, flat(1000)));
        final TaskState state = leader.converge(10_000);

        assertTrue(state.converged());
        assertEquals(ringSimpleP2p(8, 256 << 10), state.bestPlan());
        assertEquals(1000.0, state.bestNs(), 1e-9);
        assertTrue(state.searchCalls() <= CONFIG.budgetCalls(), state.toString());
        assertEquals(TaskState.Confirmation.KEPT, state.confirmation());
        // ring, simple, p2p only: no plan of another algorithm or protocol to challenge the best
        assertEquals(2L * CONFIG.confirmRounds() * CONFIG.callsPerCandidate(), state.confirmCalls());
        assertEquals(state.searchCalls() + state.confirmCalls(), leader.next, "the search, then the confirmation");
        assertEquals(2, state.restarts());
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void shouldFindTheOptimumUnderTwentyPercentNoise(final long noiseSeed)
    {
        final Landscape landscape = bowl(0.3, 8, 256 << 10, flat(1000));
        final Leader leader = new Leader(tuner(CONFIG, RING_SIMPLE_P2P), REQUEST, landscape).noise(0.2, noiseSeed);
        final TaskState state = leader.converge(10_000);

        assertTrue(state.converged());
        assertTrue(landscape.nanos(state.bestPlan()) <= 1.05 * 1000, state.bestPlan().id());
        assertTrue(state.searchCalls() <= CONFIG.budgetCalls());
    }

    /**
     * Every subspace is a bowl; ring/SIMPLE/P2P (the default's) bottoms out at 1000 ns at 4 channels and 128K,
     * tree/LL128/SHM at 600 ns at 16 channels and 512K; the other ten subspaces cost 1.7 to 2.6 times as much.
     */
    private static Landscape twoBasins()
    {
        final Map<String, Double> otherScales = new HashMap<>();
        return plan ->
        {
            final String subspace = plan.algorithm() + "/" + plan.protocol() + "/" + plan.transport();
            final double dc;
            final double dk;
            final double scale;
            if (plan.algorithm() == Algorithm.TREE && plan.protocol() == Protocol.LL128 &&
                plan.transport() == TransportKind.SHM)
            {
                dc = log2(plan.channels()) - 4;
                dk = log2(plan.chunkBytes()) - 19;
                scale = 600;
            }
            else
            {
                dc = log2(plan.channels()) - 2;
                dk = log2(plan.chunkBytes()) - 17;
                final boolean baseline = plan.algorithm() == Algorithm.RING && plan.protocol() == Protocol.SIMPLE &&
                    plan.transport() == TransportKind.P2P;
                scale = baseline ? 1000 : otherScales.computeIfAbsent(subspace, s -> 1700 + 100.0 * otherScales.size());
            }
            return scale * (1.0 + 0.1 * (dc * dc + dk * dk));
        };
    }

    @Test
    void shouldFindTheOptimumOfAnotherSubspaceAndDropTheSlowOnes()
    {
        final Landscape landscape = twoBasins();
        final Leader leader = new Leader(tuner(CONFIG, PlanConstraints.none()), REQUEST, landscape);
        final TaskState state = leader.converge(10_000);

        assertTrue(state.converged());
        assertEquals(plan(Algorithm.TREE, Protocol.LL128, TransportKind.SHM, 16, 512 << 10), state.bestPlan(),
            state.toString());
        assertTrue(state.searchCalls() <= CONFIG.budgetCalls(), state.toString());
        // ring and tree x 3 protocols, direct x SIMPLE; x 2 transports
        assertEquals(14, state.subspaces());
        assertTrue(state.droppedSubspaces() >= 12, state.toString());

        // each slow subspace was measured once, at the point nearest the baseline, then dropped
        final Map<String, Integer> plansPerSubspace = new HashMap<>();
        for (final Plan plan : leader.distinct())
        {
            plansPerSubspace.merge(plan.algorithm() + "/" + plan.protocol() + "/" + plan.transport(), 1, Integer::sum);
        }
        assertEquals(14, plansPerSubspace.size());
        for (final Map.Entry<String, Integer> entry : plansPerSubspace.entrySet())
        {
            if (!entry.getKey().equals("TREE/LL128/SHM") && !entry.getKey().equals("RING/SIMPLE/P2P"))
            {
                assertEquals(1, entry.getValue(), entry.getKey());
            }
        }
    }

    @Test
    void shouldKeepTheBaselineOnAFlatLandscape()
    {
        final Leader leader = new Leader(tuner(CONFIG, RING_SIMPLE_P2P), REQUEST, flat(1000));
        final TaskState state = leader.converge(10_000);

        assertTrue(state.converged());
        assertEquals(DEFAULT, state.bestPlan(), "equal times are no gain: the first plan measured stays best");
        assertTrue(state.trials() < 30, state.toString());
        assertEquals(TaskState.Confirmation.NONE, state.confirmation(), "nothing to confirm against itself");
        assertEquals(0, state.confirmCalls());
    }

    @Test
    void shouldWalkTheKnobThatMattersAcrossAPlateauOfTheOther()
    {
        // the chunk size makes no difference; channels are a bowl with its bottom at 16
        final Landscape landscape = plan ->
        {
            final double dc = log2(plan.channels()) - 4;
            return 1000 * (1 + 0.3 * dc * dc);
        };
        final Leader leader = new Leader(tuner(CONFIG, RING_SIMPLE_P2P), REQUEST, landscape);
        final TaskState state = leader.converge(10_000);

        assertEquals(16, state.bestPlan().channels());
        assertEquals(1000.0, state.bestNs(), 1e-9);
    }

    /** A pit at the default plan (600 ns) whose neighbours are all slower; elsewhere a bowl down to 400 ns. */
    private static Landscape pit()
    {
        final Landscape bowl = bowl(0.1, 16, 256 << 10, flat(400));
        return plan -> plan.equals(DEFAULT) ? 600 : bowl.nanos(plan);
    }

    @Test
    void shouldStayInALocalMinimumWithoutRestarts()
    {
        final Leader leader = new Leader(tuner(CONFIG.withRestarts(0), RING_SIMPLE_P2P), REQUEST, pit());
        final TaskState state = leader.converge(10_000);

        assertEquals(DEFAULT, state.bestPlan());
        assertEquals(0, state.restarts());
        assertEquals(3, state.trials(), "the baseline and its two neighbours");
    }

    @Test
    void shouldEscapeALocalMinimumByRestartingFromAnUnvisitedPoint()
    {
        final Leader leader = new Leader(tuner(CONFIG, RING_SIMPLE_P2P), REQUEST, pit());
        final TaskState state = leader.converge(10_000);

        assertEquals(ringSimpleP2p(16, 256 << 10), state.bestPlan());
        assertEquals(2, state.restarts());
        assertTrue(state.searchCalls() <= CONFIG.budgetCalls());
    }

    @Test
    void shouldFreezeTheBestMeasuredWhenTheBudgetIsSpent()
    {
        final OnlineTunerConfig config = CONFIG.withBudgetCalls(60);
        final Landscape landscape = twoBasins();
        final Leader leader = new Leader(tuner(config, PlanConstraints.none()), REQUEST, landscape);
        final TaskState state = leader.converge(10_000);

        assertTrue(state.converged());
        assertEquals(60, state.searchCalls());
        // the confirmation, if any, comes on top of the budget
        assertEquals(60 + state.confirmCalls(), leader.next);
        assertTrue(state.confirmCalls() <= config.confirmCalls(), state.toString());
        assertEquals(0, state.confirmCalls() % (config.confirmRounds() * config.callsPerCandidate()),
            "whole rounds of whole holds: " + state);
        assertEquals(10, state.trials());
        assertEquals(10, leader.distinct().size());
        double best = Double.POSITIVE_INFINITY;
        for (final Plan plan : leader.distinct())
        {
            best = Math.min(best, landscape.nanos(plan));
        }
        assertEquals(best, state.bestNs(), 1e-9);
        assertEquals(best, landscape.nanos(state.bestPlan()), 1e-9);
    }

    @Test
    void shouldGiveTheFrozenPlanToEveryLaterCall()
    {
        final Leader leader = new Leader(tuner(CONFIG, RING_SIMPLE_P2P), REQUEST,
            bowl(0.3, 8, 256 << 10, flat(1000)));
        final TaskState converged = leader.converge(10_000);
        final int before = leader.plans.size();
        leader.run(500);

        for (final Plan plan : leader.plans.subList(before, leader.plans.size()))
        {
            assertEquals(converged.bestPlan(), plan);
        }
        assertEquals(converged.trials(), leader.tuner.state(leader.key).trials());
        assertEquals(converged.searchCalls(), leader.tuner.state(leader.key).searchCalls());
    }

    @Test
    void shouldSearchTheSameWayUnderTheSameSeed()
    {
        final Leader first = new Leader(tuner(CONFIG, PlanConstraints.none()), REQUEST, twoBasins()).noise(0.2, 3);
        final Leader second = new Leader(tuner(CONFIG, PlanConstraints.none()), REQUEST, twoBasins()).noise(0.2, 3);
        first.converge(10_000);
        second.converge(10_000);
        first.run(100);
        second.run(100);

        assertEquals(first.plans, second.plans);
        assertEquals(first.tuner.rounds(first.key), second.tuner.rounds(second.key));
        assertEquals(first.tuner.state(first.key), second.tuner.state(second.key));
    }

    @Test
    void shouldRestartFromOtherPointsUnderAnotherSeed()
    {
        final Leader first = new Leader(tuner(CONFIG, RING_SIMPLE_P2P), REQUEST, flat(1000));
        final Leader second = new Leader(tuner(CONFIG.withSeed(12345), RING_SIMPLE_P2P), REQUEST, flat(1000));
        first.converge(10_000);
        second.converge(10_000);

        assertNotEquals(first.distinct(), second.distinct());
    }

    @Test
    void shouldCopeWithCallsThatTakeNoTime()
    {
        // a gain to 0 ns is an infinite relative gain: the next step must stay on the ladder
        final Landscape landscape = plan -> plan.channels() >= 2 ? 0 : 1000;
        final Leader leader = new Leader(tuner(CONFIG, RING_SIMPLE_P2P), REQUEST, landscape);
        final TaskState state = leader.converge(10_000);
        leader.run(500);

        assertTrue(state.converged());
        assertEquals(ringSimpleP2p(2, 32 << 10), state.bestPlan());
        assertEquals(0.0, state.bestNs());
        assertEquals(0, leader.tuner.state(leader.key).retunes());
    }

    @Test
    void shouldScoreACandidateByTheMeanOfItsFastestThreeQuartersAfterTheWarmUp()
    {
        assertEquals(25.0, TaskTuning.trimmedMean(new long[]{999, 10, 20, 30, 40, 1000}, 1), 1e-12);
        assertEquals(20.0, TaskTuning.trimmedMean(new long[]{40, 10, 20, 30}, 0), 1e-12);
        assertEquals(7.0, TaskTuning.trimmedMean(new long[]{5, 7}, 1), 1e-12);
    }
}
