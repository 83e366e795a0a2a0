package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.TransportKind;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Synthetic cost landscapes over plans, and a single-process leader that drives an {@link OnlineTuner} with them. */
final class OnlineTunerHarness
{
    /** AllReduce of 1 MiB floats on 4 ranks of one host. */
    static final PlanRequest REQUEST = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 1 << 20, 4);
    /** Threads every candidate carries on the host. */
    static final int THREADS = KnobSpace.threads(PlanConstraints.none());
    /** One subspace only: ring, SIMPLE, P2P (6 channel counts x 5 chunk sizes). */
    static final PlanConstraints RING_SIMPLE_P2P = PlanConstraints.none()
        .withAlgorithms(Set.of(Algorithm.RING))
        .withProtocols(Set.of(Protocol.SIMPLE))
        .withTransport(TransportKind.P2P);

    private OnlineTunerHarness()
    {
    }

    /** A synthetic time per plan, in ns. */
    interface Landscape
    {
        /**
         * @param plan a plan.
         * @return its time in ns, without noise.
         */
        double nanos(Plan plan);
    }

    static Plan plan(final Algorithm algorithm, final Protocol protocol, final TransportKind transport,
        final int channels, final int chunkBytes)
    {
        return new Plan(algorithm, protocol, transport, channels, THREADS, chunkBytes);
    }

    static Plan ringSimpleP2p(final int channels, final int chunkBytes)
    {
        return plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, channels, chunkBytes);
    }

    static double log2(final double value)
    {
        return Math.log(value) / Math.log(2);
    }

    /**
     * A unimodal bowl over log2(channels) x log2(chunk), the same shape in every subspace, scaled per subspace.
     *
     * @param curvature how much one ladder step away from the optimum costs, relative.
     * @param channels  the best channel count.
     * @param chunk     the best chunk size.
     * @param scale     the scale of a plan's subspace (its time at the optimum, in ns).
     * @return the landscape.
     */
    static Landscape bowl(final double curvature, final int channels, final int chunk, final Landscape scale)
    {
        return plan ->
        {
            final double dc = log2(plan.channels()) - log2(channels);
            final double dk = log2(plan.chunkBytes()) - log2(chunk);
            return scale.nanos(plan) * (1.0 + curvature * (dc * dc + dk * dk));
        };
    }

    /** A leader alone: asks for the plan of each call, times it on the landscape and records it. */
    static final class Leader
    {
        final OnlineTuner tuner;
        final TaskKey key;
        final PlanRequest request;
        final List<Plan> plans = new ArrayList<>();
        final Set<Plan> failing = new HashSet<>();
        Landscape landscape;
        double noise;
        Random random = new Random(1);
        double coldPenalty;
        double coldDecayCalls = 1;
        long next;

        Leader(final OnlineTuner tuner, final PlanRequest request, final Landscape landscape)
        {
            this.tuner = tuner;
            this.request = request;
            this.key = tuner.key(request, ReduceOp.SUM, 7);
            this.landscape = landscape;
        }

        Leader noise(final double fraction, final long seed)
        {
            noise = fraction;
            random = new Random(seed);
            return this;
        }

        /**
         * A cold start: every call is slower by {@code penalty x exp(-callIndex / decayCalls)}, whatever its plan (JIT
         * warming up, neighbours settling), so plans measured early look slower than they are.
         */
        Leader coldStart(final double penalty, final double decayCalls)
        {
            coldPenalty = penalty;
            coldDecayCalls = decayCalls;
            return this;
        }

        long nanos(final Plan plan)
        {
            final double factor = 1.0 + noise * (2.0 * random.nextDouble() - 1.0);
            final double cold = 1.0 + coldPenalty * Math.exp(-next / coldDecayCalls);
            return Math.round(landscape.nanos(plan) * factor * cold);
        }

        Plan step()
        {
            final Plan plan = tuner.planFor(key, request, next);
            assertNotNull(plan, "the leader's call " + next + " has no plan");
            plans.add(plan);
            if (failing.contains(plan))
            {
                tuner.failed(key, next, plan, "synthetic failure");
            }
            else
            {
                tuner.record(key, next, plan, nanos(plan));
            }
            next++;
            return plan;
        }

        void run(final long calls)
        {
            for (long i = 0; i < calls; i++)
            {
                step();
            }
        }

        TaskState converge(final long maxCalls)
        {
            for (long i = 0; i < maxCalls && (i == 0 || !tuner.state(key).converged()); i++)
            {
                step();
            }
            return tuner.state(key);
        }

        /** @return the distinct plans the tuner gave, in first-seen order. */
        List<Plan> distinct()
        {
            final List<Plan> distinct = new ArrayList<>();
            for (final Plan plan : plans)
            {
                if (!distinct.contains(plan))
                {
                    distinct.add(plan);
                }
            }
            return distinct;
        }
    }

    /** The cost of one call of the leader under a plan: its index in the task may matter (a cold start). */
    interface CallCost
    {
        long nanos(Plan plan, long call);
    }

    /**
     * What each rank ran when several ranks share one tuner, interleaved at random: rank 0 leads (takes its plan, later
     * records the call's cost), the others ask for the plan of their next call and wait (null) until it is published.
     *
     * @param plans                the plans each rank ran, by rank.
     * @param waits                how often a rank waited.
     * @param waitsWhileConfirming how often a rank waited while the task confirmed its best plan.
     */
    record Interleaving(List<List<Plan>> plans, int waits, int waitsWhileConfirming)
    {
    }

    /**
     * Runs {@code calls} calls on each of {@code ranks} ranks in an order drawn from {@code seed}, asserting that a rank
     * waits only for a plan the leader has not recorded the calls for.
     */
    static Interleaving interleave(final OnlineTuner tuner, final TaskKey key, final int ranks, final int calls,
        final long seed, final CallCost cost)
    {
        final Random random = new Random(seed);
        final List<List<Plan>> plans = new ArrayList<>();
        for (int rank = 0; rank < ranks; rank++)
        {
            plans.add(new ArrayList<>());
        }
        final long[] next = new long[ranks];
        Plan leaderRunning = null;
        long leaderRecorded = -1;
        int waits = 0;
        int waitsWhileConfirming = 0;
        while (java.util.Arrays.stream(next).anyMatch(n -> n < calls))
        {
            final int rank = random.nextInt(ranks);
            if (next[rank] >= calls)
            {
                continue;
            }
            if (rank == 0)
            {
                if (leaderRunning == null)
                {
                    leaderRunning = tuner.planFor(key, REQUEST, next[0]);
                    assertNotNull(leaderRunning, "the leader never waits: it recorded every earlier call");
                    plans.get(0).add(leaderRunning);
                }
                else
                {
                    tuner.record(key, next[0], leaderRunning, cost.nanos(leaderRunning, next[0]));
                    leaderRecorded = next[0]++;
                    leaderRunning = null;
                }
                continue;
            }
            final Plan plan = tuner.planFor(key, REQUEST, next[rank]);
            if (plan == null)
            {
                org.junit.jupiter.api.Assertions.assertTrue(leaderRecorded < next[rank] - 1, "call " + next[rank] +
                    " waits though the leader recorded up to " + leaderRecorded);
                waits++;
                if (tuner.state(key).confirmation() == TaskState.Confirmation.RUNNING)
                {
                    waitsWhileConfirming++;
                }
                continue;
            }
            plans.get(rank).add(plan);
            next[rank]++;
        }
        return new Interleaving(plans, waits, waitsWhileConfirming);
    }
}
