package io.jccl;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class StableHashTest
{
    @Test
    void shouldBeFnv1aOverBothBytesOfEachCharWhenHashingText()
    {
        assertEquals(StableHash.OFFSET_BASIS, StableHash.of(""));
        // 'a' is the bytes 0x61 then 0x00: FNV-1a by hand
        final long prime = 0x100000001b3L;
        final long expected = ((StableHash.OFFSET_BASIS ^ 0x61) * prime ^ 0x00) * prime;
        assertEquals(expected, StableHash.of("a"));
        assertEquals(StableHash.of("ab"), StableHash.mix(StableHash.of("a"), "b"));
        assertNotEquals(StableHash.mix(StableHash.of("a"), "b"), StableHash.mix(StableHash.of("b"), "a"));
        assertEquals(StableHash.mix(StableHash.OFFSET_BASIS, "ff"), StableHash.mix(StableHash.OFFSET_BASIS, 255L));
    }

    @Test
    void shouldTellPlansApartByEveryKnobWhenHashingThem()
    {
        final Plan plan = new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 2, 256, 131_072);
        assertEquals(StableHash.of(plan.id()), plan.stableHash());
        final List<Plan> plans = List.of(plan, plan.withChannels(3), plan.withChunkBytes(65_536),
            new Plan(Algorithm.TREE, Protocol.SIMPLE, TransportKind.P2P, 2, 256, 131_072),
            new Plan(Algorithm.RING, Protocol.LL, TransportKind.P2P, 2, 256, 131_072),
            new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.SHM, 2, 256, 131_072),
            new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 2, 512, 131_072));
        final Set<Long> hashes = new HashSet<>();
        plans.forEach(p -> hashes.add(p.stableHash()));
        assertEquals(plans.size(), hashes.size(), plans::toString);
    }
}
