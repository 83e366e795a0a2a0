package io.jccl.core;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import io.jccl.ReduceOp;
import io.jccl.autotune.KnobSpace;
import io.jccl.autotune.OnlineTuner;
import io.jccl.autotune.OnlineTunerConfig;
import io.jccl.autotune.PlanConstraints;
import io.jccl.autotune.PlanRequest;
import io.jccl.autotune.TaskKey;
import io.jccl.autotune.TuningRound;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rank 0's tuner records on their way to the other processes' tuners: held while they publish nothing, sent in order,
 * and a follower that has them never gives a call another plan than the leader did.
 */
class TunerReplicationTest
{
    private static final PlanRequest REQUEST = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 1 << 16, 2);

    @Test
    void shouldHoldRecordsAsLongAsEveryOneHeldAllowsAndSendFailuresAtOnceInOrder()
    {
        final List<byte[]> sent = new ArrayList<>();
        final TunerReplication.Outbox outbox = new TunerReplication.Outbox(sent::add);
        final OnlineTuner tuner = tuner(OnlineTunerConfig.defaults());
        final TaskKey task = tuner.key(REQUEST, ReduceOp.SUM, 1);
        final Plan plan = tuner.planFor(task, REQUEST, 0);

        outbox.record(task, REQUEST, 0, plan, 10, 3);
        outbox.record(task, REQUEST, 1, plan, 10, Integer.MAX_VALUE);
        assertEquals(0, sent.size(), "held");
        outbox.record(task, REQUEST, 2, plan, 10, 3);
        assertEquals(List.of(3), counts(sent), "the first record allowed 3");
        outbox.record(task, REQUEST, 3, plan, 10, 0);
        assertEquals(List.of(3, 1), counts(sent), "one that published goes at once");
        outbox.record(task, REQUEST, 4, plan, 10, Integer.MAX_VALUE);
        outbox.failed(task, REQUEST, 5, plan, "timed out");
        assertEquals(List.of(3, 1, 1, 1), counts(sent), "a failure goes at once, after the one held before it");
        outbox.flush();
        assertEquals(4, sent.size(), "nothing left to flush");
        for (int k = 0; k < TunerReplication.Outbox.CAPACITY; k++)
        {
            outbox.record(task, REQUEST, 6 + k, plan, 10, Integer.MAX_VALUE);
        }
        assertEquals(List.of(3, 1, 1, 1, TunerReplication.Outbox.CAPACITY), counts(sent), "full: sent");
    }

    @Test
    void shouldSendConsecutiveRecordsOfOneTaskAndPlanAsOneRunThatAFollowerAppliesInOrder()
    {
        final OnlineTunerConfig config = OnlineTunerConfig.defaults().withHold(2, 0).withBudgetCalls(40);
        final OnlineTuner leader = tuner(config);
        final OnlineTuner follower = tuner(config);
        final TaskKey task = leader.key(REQUEST, ReduceOp.SUM, 1);
        final List<byte[]> sent = new ArrayList<>();
        final TunerReplication.Outbox outbox = new TunerReplication.Outbox(sent::add);
        for (long call = 0; call < 1000; call++)
        {
            final Plan plan = leader.planFor(task, REQUEST, call);
            final long nanos = 1000L * plan.channels() + call % 7;
            outbox.record(task, REQUEST, call, plan, nanos, leader.record(task, call, plan, nanos));
        }
        outbox.flush();
        assertTrue(leader.state(task).converged(), "converged");

        long records = 0;
        long bytes = 0;
        for (final byte[] notice : sent)
        {
            records += ByteBuffer.wrap(notice).getInt();
            bytes += notice.length;
            TunerReplication.apply(follower, notice, 1);
        }
        assertEquals(1000, records, "every record sent once");
        // one header per run (a candidate's hold, the converged plan's calls), then 8 bytes a record
        assertTrue(bytes < 1000 * 8 + 60 * 128, "runs, not whole records: " + bytes + " bytes");
        assertEquals(leader.rounds(task), follower.rounds(task), "the same rounds");
        assertEquals(leader.state(task).bestPlan(), follower.state(task).bestPlan());
        assertEquals(leader.planFor(task, REQUEST, 1000), follower.planFor(task, REQUEST, 1000),
            "the same plan for the next call");
    }

    /**
     * Leads of 8 calls (batches of 2, so the follower runs at the end of what it was sent most of the time), of 512
     * (1 us calls) and of 16 (1 ms calls: the least lead, under the cap of 512).
     */
    @ParameterizedTest
    @CsvSource({"8, 1000", "512, 1000", "512, 1000000"})
    void shouldNeverGiveAFollowerAPlanTheLeaderDidNotGiveTheSameCall(final int leadCalls, final long unitNs)
    {
        final OnlineTunerConfig config = OnlineTunerConfig.defaults().withHold(2, 0).withBudgetCalls(40)
            .withLeadCalls(leadCalls).withDrift(1.5, 5).withDriftMinMs(0);
        final OnlineTuner leader = tuner(config);
        final OnlineTuner follower = tuner(config);
        final TaskKey task = leader.key(REQUEST, ReduceOp.SUM, 1);
        final TunerReplication.Outbox outbox = new TunerReplication.Outbox(
            notice -> TunerReplication.apply(follower, notice, 1));
        final Random random = new Random(5);
        final List<Plan> led = new ArrayList<>();
        long followerNext = 0;
        for (long call = 0; call < 4000; call++)
        {
            final Plan plan = leader.planFor(task, REQUEST, call);
            assertNotNull(plan, "the leader's call " + call);
            led.add(plan);
            // the cost jumps after 1500 calls: a drift re-tune, whose rounds must reach the follower too; call 2800
            // fails, which re-tunes a converged plan at the horizon (the search has converged again by then)
            final long nanos = unitNs * plan.channels() * (call < 1500 ? 1 : 40) + random.nextInt(100);
            if (call == 2800)
            {
                assertTrue(leader.state(task).converged(), "converged again before the failure");
                leader.failed(task, call, plan, "synthetic");
                outbox.failed(task, REQUEST, call, plan, "synthetic");
            }
            else
            {
                outbox.record(task, REQUEST, call, plan, nanos, leader.record(task, call, plan, nanos));
            }
            // the follower binds as far as its tuner lets it, never past the leader
            for (Plan p; followerNext <= call && (p = follower.planFor(task, REQUEST, followerNext)) != null; )
            {
                assertEquals(led.get((int)followerNext), p, "call " + followerNext);
                followerNext++;
            }
            assertTrue(call - followerNext < config.leadCalls(), "the follower kept up: " + followerNext + " at " +
                call);
        }
        outbox.flush();
        assertTrue(leader.state(task).retunes() >= 2, "the jump and the failure re-tuned");
        final List<TuningRound> rounds = leader.rounds(task);
        assertEquals(rounds, follower.rounds(task), "the same rounds once every record arrived");
    }

    private static OnlineTuner tuner(final OnlineTunerConfig config)
    {
        final PlanConstraints ringSimpleP2p = PlanConstraints.none()
            .withAlgorithms(java.util.Set.of(io.jccl.Algorithm.RING))
            .withProtocols(java.util.Set.of(io.jccl.Protocol.SIMPLE))
            .withTransport(io.jccl.TransportKind.P2P);
        final Plan first = new Plan(io.jccl.Algorithm.RING, io.jccl.Protocol.SIMPLE, io.jccl.TransportKind.P2P, 4,
            KnobSpace.threads(ringSimpleP2p), 32 << 10);
        return new OnlineTuner(config, request -> first, ringSimpleP2p);
    }

    private static List<Integer> counts(final List<byte[]> notices)
    {
        final List<Integer> counts = new ArrayList<>();
        for (final byte[] notice : notices)
        {
            counts.add(ByteBuffer.wrap(notice).getInt());
        }
        return counts;
    }
}
