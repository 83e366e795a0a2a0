package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KnobSpaceTest
{
    private static final PlanRequest ALL_REDUCE = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 1 << 20, 4);

    private static PlanConstraints parse(final String algo, final String proto, final String transport,
        final String min, final String max, final String threads, final String chunk)
    {
        return PlanConstraints.parse(algo, proto, transport, min, max, threads, chunk);
    }

    @Test
    void shouldMatchTheTransportsSlotPayloadsWhenAskedPerProtocol()
    {
        assertEquals(512 * 1024, KnobSpace.slotPayload(Protocol.SIMPLE));
        assertEquals(32 * 1024, KnobSpace.slotPayload(Protocol.LL));
        assertEquals(4608 * 120, KnobSpace.slotPayload(Protocol.LL128));
        assertEquals(32 * 1024, KnobSpace.cap(Protocol.LL, 1 << 20));
        assertEquals(4096, KnobSpace.cap(Protocol.LL, 4096));
        assertEquals(512 * 1024, KnobSpace.cap(Protocol.SIMPLE, Integer.MAX_VALUE));
    }

    @Test
    void shouldOfferPowersOfTwoBetweenTheMinimumAndTheMaximumChannels()
    {
        assertEquals(List.of(1, 2, 4, 8, 16, 32), KnobSpace.channels(PlanConstraints.none()));
        assertEquals(List.of(3, 4, 8, 12), KnobSpace.channels(PlanConstraints.none().withChannels(3, 12)));
        assertEquals(List.of(4), KnobSpace.channels(PlanConstraints.none().withChannels(4, 4)));
        assertEquals(List.of(1, 2), KnobSpace.channels(PlanConstraints.none().withChannels(1, 2)));
        assertEquals(List.of(5, 8, 16, 32), KnobSpace.channels(PlanConstraints.none().withChannels(5, 32)));
    }

    @Test
    void shouldOfferTheChunkLadderCappedByTheSlotPayloadWhenNoChunkIsPinned()
    {
        assertEquals(KnobSpace.CHUNK_LADDER, KnobSpace.chunks(Protocol.SIMPLE, PlanConstraints.none()));
        assertEquals(KnobSpace.CHUNK_LADDER, KnobSpace.chunks(Protocol.LL128, PlanConstraints.none()));
        assertEquals(List.of(32 << 10), KnobSpace.chunks(Protocol.LL, PlanConstraints.none()));
    }

    @Test
    void shouldUseAPinnedChunkCappedByTheSlotPayload()
    {
        final PlanConstraints oneMiB = PlanConstraints.none().withChunkBytes(1 << 20);
        assertEquals(List.of(512 << 10), KnobSpace.chunks(Protocol.SIMPLE, oneMiB));
        assertEquals(List.of(32 << 10), KnobSpace.chunks(Protocol.LL, oneMiB));
        assertEquals(List.of(KnobSpace.LL128_SLOT_PAYLOAD), KnobSpace.chunks(Protocol.LL128, oneMiB));
        assertEquals(List.of(4096), KnobSpace.chunks(Protocol.LL, PlanConstraints.none().withChunkBytes(4096)));
    }

    @Test
    void shouldNeverOfferTreeWhereItWouldRunAsRing()
    {
        for (final Collective collective : new Collective[] {Collective.ALL_GATHER, Collective.REDUCE_SCATTER,
            Collective.ALL_TO_ALL})
        {
            final PlanRequest request = new PlanRequest(collective, DataType.FLOAT32, 1 << 20, 4);
            for (final String algo : new String[] {null, "tree", "ring,tree"})
            {
                final List<Plan> plans = KnobSpace.candidates(request, parse(algo, null, null, null, null, null,
                    null));
                assertFalse(plans.isEmpty());
                // AllGather and ReduceScatter have a direct program, AllToAll only its own
                assertTrue(plans.stream().allMatch(plan -> plan.algorithm() == Algorithm.RING ||
                    plan.algorithm() == Algorithm.DIRECT && algo == null && collective != Collective.ALL_TO_ALL),
                    collective + algo);
            }
        }
        assertEquals(List.of(Algorithm.RING, Algorithm.TREE, Algorithm.DIRECT),
            KnobSpace.algorithms(Collective.ALL_REDUCE, PlanConstraints.none()));
        assertEquals(List.of(Algorithm.TREE),
            KnobSpace.algorithms(Collective.BROADCAST, parse("tree", null, null, null, null, null, null)));
        assertEquals(List.of(Algorithm.RING, Algorithm.DIRECT),
            KnobSpace.algorithms(Collective.ALL_GATHER, PlanConstraints.none()));
        assertEquals(List.of(Algorithm.RING, Algorithm.TREE),
            KnobSpace.algorithms(Collective.REDUCE, PlanConstraints.none()));
    }

    @Test
    void shouldOfferNetOnlyWhenTheRanksSpanNodes()
    {
        assertEquals(List.of(TransportKind.P2P, TransportKind.SHM),
            KnobSpace.transports(ALL_REDUCE, PlanConstraints.none()));
        final PlanRequest twoNodes = new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, 1 << 20, 4, 2, 1,
            false);
        assertEquals(List.of(TransportKind.P2P, TransportKind.SHM, TransportKind.NET),
            KnobSpace.transports(twoNodes, PlanConstraints.none()));
        assertEquals(List.of(TransportKind.NET),
            KnobSpace.transports(ALL_REDUCE, PlanConstraints.none().withTransport(TransportKind.NET)));
    }

    @Test
    void shouldFixThreadsAtTheHostValueUnlessPinned()
    {
        assertTrue(KnobSpace.candidates(ALL_REDUCE, PlanConstraints.none()).stream()
            .allMatch(plan -> plan.threads() == PinnedTuner.HOST_THREADS));
        assertTrue(KnobSpace.candidates(ALL_REDUCE, PlanConstraints.none().withThreads(512)).stream()
            .allMatch(plan -> plan.threads() == 512));
    }

    @Test
    void shouldOfferEveryKnobCombinationOnceInAFixedOrder()
    {
        final List<Plan> plans = KnobSpace.candidates(ALL_REDUCE, PlanConstraints.none());
        // ring and tree x (5 SIMPLE + 1 LL + 5 LL128 chunks), direct x 5 SIMPLE chunks; x 2 transports x 6 channel
        // counts
        assertEquals((2 * 11 + 5) * 2 * 6, plans.size());
        assertEquals(plans.size(), new HashSet<>(plans).size());
        assertEquals(new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 1, 256, 32 << 10), plans.get(0));
        assertEquals(new Plan(Algorithm.DIRECT, Protocol.SIMPLE, TransportKind.SHM, 32, 256, 512 << 10),
            plans.get(plans.size() - 1));
        assertTrue(plans.stream().noneMatch(plan -> plan.algorithm() == Algorithm.DIRECT &&
            plan.protocol() != Protocol.SIMPLE));
        // DIRECT keeps the protocols a pin leaves when SIMPLE is not among them
        assertEquals(List.of(Protocol.LL), KnobSpace.protocols(Algorithm.DIRECT, Collective.ALL_REDUCE,
            parse(null, "ll", null, null, null, null, null)));
        assertEquals(plans, KnobSpace.candidates(ALL_REDUCE, PlanConstraints.none()));
    }

    @Test
    void shouldOfferOnlyPlansTheConstraintsAllow()
    {
        final PlanConstraints[] all = {
            PlanConstraints.none(),
            parse("allreduce:tree", "^ll", null, "2", "6", null, null),
            parse("ring", "ll128", "shm", null, "4", "640", "48K"),
            parse(null, "allreduce:simple;broadcast:ll", null, "32", "32", null, "1M"),
        };
        for (final PlanConstraints constraints : all)
        {
            for (final Collective collective : Collective.values())
            {
                final PlanRequest request = new PlanRequest(collective, DataType.INT32, 12345, 5, 2, 1, false);
                final List<Plan> plans = KnobSpace.candidates(request, constraints);
                assertFalse(plans.isEmpty(), constraints + " " + collective);
                for (final Plan plan : plans)
                {
                    assertTrue(constraints.allows(collective, plan), constraints + " " + plan.id());
                    assertTrue(plan.chunkBytes() <= KnobSpace.slotPayload(plan.protocol()), plan.id());
                }
            }
        }
    }
}
