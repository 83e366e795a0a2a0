package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlanConstraintsTest
{
    private static final Set<Algorithm> ALL_ALGORITHMS = EnumSet.allOf(Algorithm.class);
    private static final Set<Protocol> ALL_PROTOCOLS = EnumSet.allOf(Protocol.class);

    private static PlanConstraints algo(final String value)
    {
        return PlanConstraints.parse(value, null, null, null, null, null, null);
    }

    private static PlanConstraints proto(final String value)
    {
        return PlanConstraints.parse(null, value, null, null, null, null, null);
    }

    private static String error(final Runnable parse)
    {
        return assertThrows(JcclInvalidArgumentException.class, parse::run).getMessage();
    }

    private static Plan plan(final Algorithm algorithm, final Protocol protocol)
    {
        return new Plan(algorithm, protocol, TransportKind.P2P, 1, PinnedTuner.HOST_THREADS, 32 << 10);
    }

    @Test
    void shouldAllowEverythingWhenNothingIsSet()
    {
        final PlanConstraints none = PlanConstraints.parse(null, " ", "", null, "", null, "\t");
        assertEquals(PlanConstraints.none(), none);
        assertTrue(none.isNone());
        assertEquals("none", none.toString());
        assertNull(none.algoSpec());
        assertNull(none.protoSpec());
        assertNull(none.transport());
        assertEquals(1, none.minChannels());
        assertEquals(Plan.MAX_CHANNELS, none.maxChannels());
        assertEquals(0, none.threads());
        assertEquals(0, none.chunkBytes());
        assertTrue(none.warnings().isEmpty());
        for (final Collective collective : Collective.values())
        {
            assertEquals(ALL_ALGORITHMS, none.algorithms(collective));
            assertEquals(ALL_PROTOCOLS, none.protocols(collective));
            assertTrue(none.allows(collective, new Plan(Algorithm.TREE, Protocol.LL128, TransportKind.NET, 32,
                640, 1)));
        }
    }

    @Test
    void shouldIncludeOnlyTheListedNamesWhenGivenACommaList()
    {
        final PlanConstraints constraints = algo("Ring");
        for (final Collective collective : Collective.values())
        {
            assertEquals(EnumSet.of(Algorithm.RING), constraints.algorithms(collective));
        }
        assertFalse(constraints.allows(Collective.ALL_REDUCE, plan(Algorithm.TREE, Protocol.SIMPLE)));
        assertTrue(constraints.allows(Collective.ALL_REDUCE, plan(Algorithm.RING, Protocol.SIMPLE)));
        assertEquals(EnumSet.of(Protocol.SIMPLE, Protocol.LL), proto("simple, LL").protocols(Collective.REDUCE));
    }

    @Test
    void shouldExcludeTheListedNamesWhenTheListStartsWithACaret()
    {
        final PlanConstraints constraints = proto("^LL128");
        assertEquals(EnumSet.of(Protocol.SIMPLE, Protocol.LL), constraints.protocols(Collective.ALL_GATHER));
        assertFalse(constraints.allows(Collective.ALL_GATHER, plan(Algorithm.RING, Protocol.LL128)));
        assertEquals(EnumSet.of(Protocol.SIMPLE), proto("^ll,LL128").protocols(Collective.BROADCAST));
    }

    @Test
    void shouldRestrictOnlyTheNamedCollectivesWhenGivenThePerCollectiveForm()
    {
        final PlanConstraints constraints = algo("allreduce:tree,ring;allgather:ring;broadcast:^ring,direct");
        assertEquals(EnumSet.of(Algorithm.RING, Algorithm.TREE), constraints.algorithms(Collective.ALL_REDUCE));
        assertEquals(EnumSet.of(Algorithm.RING), constraints.algorithms(Collective.ALL_GATHER));
        assertEquals(EnumSet.of(Algorithm.TREE), constraints.algorithms(Collective.BROADCAST));
        assertEquals(ALL_ALGORITHMS, constraints.algorithms(Collective.REDUCE));
        assertEquals(ALL_ALGORITHMS, constraints.algorithms(Collective.REDUCE_SCATTER));
        assertEquals(ALL_ALGORITHMS, constraints.algorithms(Collective.ALL_TO_ALL));

        final PlanConstraints protocols = proto("AllReduce:^ll128 ; reducescatter:simple");
        assertEquals(EnumSet.of(Protocol.SIMPLE, Protocol.LL), protocols.protocols(Collective.ALL_REDUCE));
        assertEquals(EnumSet.of(Protocol.SIMPLE), protocols.protocols(Collective.REDUCE_SCATTER));
        assertEquals(ALL_PROTOCOLS, protocols.protocols(Collective.ALL_GATHER));
    }

    @Test
    void shouldApplyAnUnnamedPartToTheOtherCollectivesWhenMixedWithNamedOnes()
    {
        final PlanConstraints constraints = proto("simple;allreduce:ll,ll128");
        assertEquals(EnumSet.of(Protocol.LL, Protocol.LL128), constraints.protocols(Collective.ALL_REDUCE));
        assertEquals(EnumSet.of(Protocol.SIMPLE), constraints.protocols(Collective.BROADCAST));
        assertEquals(EnumSet.of(Protocol.SIMPLE), constraints.protocols(Collective.ALL_TO_ALL));
        assertTrue(error(() -> proto("simple;ll")).contains("two parts without a collective"));
    }

    @Test
    void shouldIgnoreSendRecvWhenItIsNamed()
    {
        final PlanConstraints constraints = algo("sendrecv:ring;allreduce:tree");
        assertEquals(EnumSet.of(Algorithm.TREE), constraints.algorithms(Collective.ALL_REDUCE));
        assertEquals(ALL_ALGORITHMS, constraints.algorithms(Collective.ALL_GATHER));
        assertTrue(error(() -> algo("sendrecv:bogus")).contains("bogus"));
    }

    @Test
    void shouldDropNcclOnlyAlgorithmsWithAWarningWhenSomethingIsLeft()
    {
        final PlanConstraints constraints = algo("NVLS,ring,CollnetDirect,nvls_tree,pat");
        assertEquals(EnumSet.of(Algorithm.RING), constraints.algorithms(Collective.ALL_REDUCE));
        assertEquals(4, constraints.warnings().size());
        assertTrue(constraints.warnings().get(0).startsWith("JCCL_ALGO: 'NVLS'"), constraints.warnings().get(0));

        final PlanConstraints excluded = algo("^nvls,collnet_chain,tree");
        assertEquals(EnumSet.of(Algorithm.RING, Algorithm.DIRECT), excluded.algorithms(Collective.BROADCAST));
        assertEquals(2, excluded.warnings().size());
        assertEquals(PlanConstraints.none(), algo("^nvlstree"));
    }

    @Test
    void shouldRejectAnInclusionListLeftEmptyByNcclOnlyNames()
    {
        final String message = error(() -> algo("allreduce:nvls,collnet_direct"));
        assertTrue(message.contains("JCCL_ALGO"), message);
        assertTrue(message.contains("once NCCL-only names are ignored"), message);
        assertTrue(message.contains("ring, tree"), message);
    }

    @Test
    void shouldNameTheVariableAndTheValidValuesWhenANameIsUnknown()
    {
        final String algorithm = error(() -> algo("ring,butterfly"));
        assertTrue(algorithm.contains("JCCL_ALGO") && algorithm.contains("'butterfly'") &&
            algorithm.contains("ring, tree"), algorithm);
        final String protocol = error(() -> proto("LL256"));
        assertTrue(protocol.contains("JCCL_PROTO") && protocol.contains("'LL256'") &&
            protocol.contains("simple, ll, ll128"), protocol);
        final String collective = error(() -> algo("allscatter:ring"));
        assertTrue(collective.contains("JCCL_ALGO") && collective.contains("'allscatter'") &&
            collective.contains("allreduce, allgather, reducescatter, broadcast, reduce, alltoall"), collective);
        final String protoAsAlgo = error(() -> algo("simple"));
        assertTrue(protoAsAlgo.contains("'simple'"), protoAsAlgo);
    }

    @Test
    void shouldRejectASelectionThatLeavesNothingForACollective()
    {
        final String message = error(() -> proto("allgather:^simple,ll,ll128"));
        assertTrue(message.contains("JCCL_PROTO") && message.contains("no protocol for allgather"), message);
        assertTrue(error(() -> algo("allreduce:ring;allreduce:tree")).contains("twice"));
        assertTrue(error(() -> algo("allreduce:")).contains("empty algorithm list"));
    }

    @Test
    void shouldParseTheTransportWhenGivenOneName()
    {
        assertEquals(TransportKind.SHM,
            PlanConstraints.parse(null, null, "SHM", null, null, null, null).transport());
        final String message = error(() -> PlanConstraints.parse(null, null, "udp", null, null, null, null));
        assertTrue(message.contains("JCCL_TRANSPORT") && message.contains("p2p, shm, net"), message);
        assertTrue(error(() -> PlanConstraints.parse(null, null, "p2p,shm", null, null, null, null))
            .contains("JCCL_TRANSPORT"));
    }

    @Test
    void shouldValidateChannelsNamingTheVariable()
    {
        final PlanConstraints constraints = PlanConstraints.parse(null, null, null, "2", "8", null, null);
        assertEquals(2, constraints.minChannels());
        assertEquals(8, constraints.maxChannels());
        assertEquals(4, PlanConstraints.parse(null, null, null, "4", null, null, null).minChannels());
        assertTrue(error(() -> PlanConstraints.parse(null, null, null, "0", null, null, null))
            .contains("JCCL_MIN_NCHANNELS"));
        assertTrue(error(() -> PlanConstraints.parse(null, null, null, null, "33", null, null))
            .contains("JCCL_MAX_NCHANNELS"));
        assertTrue(error(() -> PlanConstraints.parse(null, null, null, null, "many", null, null))
            .contains("JCCL_MAX_NCHANNELS='many' is not an integer"));
        final String order = error(() -> PlanConstraints.parse(null, null, null, "8", "4", null, null));
        assertTrue(order.contains("JCCL_MIN_NCHANNELS=8") && order.contains("JCCL_MAX_NCHANNELS=4"), order);
    }

    @Test
    void shouldValidateThreadsNamingTheVariable()
    {
        assertEquals(256, PlanConstraints.parse(null, null, null, null, null, "256", null).threads());
        for (final String bad : new String[] {"100", "0", "704", "16", "x"})
        {
            final String message = error(() -> PlanConstraints.parse(null, null, null, null, null, bad, null));
            assertTrue(message.contains("JCCL_NTHREADS") && message.contains("32..640"), message);
        }
    }

    @Test
    void shouldParseChunkSizesWithSuffixes()
    {
        assertEquals(131072, PlanConstraints.parseChunkBytes("JCCL_CHUNK_SIZE", "128K"));
        assertEquals(131072, PlanConstraints.parseChunkBytes("JCCL_CHUNK_SIZE", " 128k "));
        assertEquals(1 << 20, PlanConstraints.parseChunkBytes("JCCL_CHUNK_SIZE", "1M"));
        assertEquals(4096, PlanConstraints.parseChunkBytes("JCCL_CHUNK_SIZE", "4096"));
        assertEquals(65536, PlanConstraints.parse(null, null, null, null, null, null, "64K").chunkBytes());
        // every size in jccl reads the same way (io.jccl.Settings.parseBytes): fractions too
        assertEquals(1_572_864, PlanConstraints.parseChunkBytes("JCCL_CHUNK_SIZE", "1.5M"));
        for (final String bad : new String[] {"0", "-1", "12G", "K", "4096M", "99999999999"})
        {
            final String message = error(() -> PlanConstraints.parse(null, null, null, null, null, null, bad));
            assertTrue(message.contains("JCCL_CHUNK_SIZE='" + bad + "'") && message.contains("K, M or G"), message);
        }
    }

    @Test
    void shouldCompareAlgorithmsByWhatRunsWhenATreeCannotRun()
    {
        final PlanConstraints treeOnly = algo("tree");
        assertTrue(treeOnly.allows(Collective.ALL_GATHER, plan(Algorithm.RING, Protocol.SIMPLE)));
        assertTrue(treeOnly.allows(Collective.ALL_TO_ALL, plan(Algorithm.RING, Protocol.SIMPLE)));
        assertFalse(treeOnly.allows(Collective.ALL_REDUCE, plan(Algorithm.RING, Protocol.SIMPLE)));

        final PlanConstraints ringForAllGather = algo("allgather:ring;allreduce:ring");
        assertTrue(ringForAllGather.allows(Collective.ALL_GATHER, plan(Algorithm.TREE, Protocol.SIMPLE)));
        assertFalse(ringForAllGather.allows(Collective.ALL_REDUCE, plan(Algorithm.TREE, Protocol.SIMPLE)));
    }

    @Test
    void shouldAllowOnlyPlansInsideEveryPin()
    {
        final PlanConstraints constraints = PlanConstraints.parse(null, null, "p2p", "2", "8", "512", "1M");
        final Plan simple = new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 4, 512,
            KnobSpace.SIMPLE_SLOT_PAYLOAD);
        assertTrue(constraints.allows(Collective.ALL_REDUCE, simple));
        assertTrue(constraints.allows(Collective.ALL_REDUCE, new Plan(Algorithm.RING, Protocol.LL,
            TransportKind.P2P, 8, 512, KnobSpace.LL_SLOT_PAYLOAD)));
        assertFalse(constraints.allows(Collective.ALL_REDUCE, simple.withChunkBytes(1 << 20)));
        assertFalse(constraints.allows(Collective.ALL_REDUCE, simple.withChannels(1)));
        assertFalse(constraints.allows(Collective.ALL_REDUCE, simple.withChannels(9)));
        assertFalse(constraints.allows(Collective.ALL_REDUCE, new Plan(Algorithm.RING, Protocol.SIMPLE,
            TransportKind.SHM, 4, 512, KnobSpace.SIMPLE_SLOT_PAYLOAD)));
        assertEquals("JCCL_NTHREADS=512", constraints.rejection(Collective.ALL_REDUCE, new Plan(Algorithm.RING,
            Protocol.SIMPLE, TransportKind.P2P, 4, 256, KnobSpace.SIMPLE_SLOT_PAYLOAD)));
        assertEquals("JCCL_CHUNK_SIZE=1M", constraints.rejection(Collective.ALL_REDUCE,
            simple.withChunkBytes(1 << 20)));
        assertNull(constraints.rejection(Collective.ALL_REDUCE, simple));
    }

    @Test
    void shouldPrintCanonicalEnvSyntaxThatParsesBackWhenRestricted()
    {
        final PlanConstraints constraints = PlanConstraints.parse("allgather:ring;allreduce:tree", "^LL128", "p2p",
            "2", "8", "256", "131072");
        assertEquals("JCCL_ALGO=allreduce:tree;allgather:ring JCCL_PROTO=simple,ll JCCL_TRANSPORT=p2p " +
            "JCCL_MIN_NCHANNELS=2 JCCL_MAX_NCHANNELS=8 JCCL_NTHREADS=256 JCCL_CHUNK_SIZE=128K",
            constraints.toString());
        assertEquals(constraints, PlanConstraints.parse(constraints.algoSpec(), constraints.protoSpec(), "p2p", "2",
            "8", "256", "128K"));
        assertEquals("tree,direct", algo("^ring").algoSpec());
        assertEquals("allreduce:simple;alltoall:ll", proto("allreduce:simple;alltoall:ll").protoSpec());
    }

    @Test
    void shouldHashEqualSettingsEquallyWhateverTheirSpelling()
    {
        assertEquals(algo("^tree,direct").stableHash(), algo("RING").stableHash());
        assertEquals(proto("ll128;allreduce:^simple,ll;allgather:ll128").stableHash(),
            proto("LL128").stableHash());
        assertNotEquals(algo("ring").stableHash(), algo("tree").stableHash());
        assertNotEquals(PlanConstraints.none().stableHash(), PlanConstraints.none().withThreads(64).stableHash());
        // FNV-1a 64 of the UTF-16 units of "none": the same in every JVM, pinned here so a change is noticed
        assertEquals(fnv("none"), PlanConstraints.none().stableHash());
        assertEquals(0x7b5b210f39f1d8afL, PlanConstraints.none().stableHash());
    }

    @Test
    void shouldBuildTheSameConstraintsProgrammaticallyAsByParsing()
    {
        final PlanConstraints built = PlanConstraints.none()
            .withAlgorithms(Collective.ALL_REDUCE, EnumSet.of(Algorithm.TREE))
            .withProtocols(EnumSet.of(Protocol.SIMPLE, Protocol.LL))
            .withTransport(TransportKind.SHM)
            .withChannels(2, 4)
            .withThreads(128)
            .withChunkBytes(64 << 10);
        assertEquals(PlanConstraints.parse("allreduce:tree", "^ll128", "shm", "2", "4", "128", "64K"), built);
        assertEquals(built.hashCode(),
            PlanConstraints.parse("allreduce:tree", "^ll128", "shm", "2", "4", "128", "64K").hashCode());
        assertTrue(error(() -> PlanConstraints.none().withAlgorithms(EnumSet.noneOf(Algorithm.class)))
            .contains("JCCL_ALGO"));
        assertTrue(error(() -> PlanConstraints.none().withProtocols(Collective.REDUCE, Set.of()))
            .contains("JCCL_PROTO"));
        assertTrue(error(() -> PlanConstraints.none().withChunkBytes(-1)).contains("JCCL_CHUNK_SIZE"));
        assertEquals(PlanConstraints.none(), built.withAlgorithms(EnumSet.allOf(Algorithm.class))
            .withProtocols(EnumSet.allOf(Protocol.class)).withTransport(null).withChannels(1, 32).withThreads(0)
            .withChunkBytes(0));
    }

    private static long fnv(final String text)
    {
        long hash = 0xcbf29ce484222325L;
        for (final char c : text.toCharArray())
        {
            hash = (hash ^ (c & 0xff)) * 0x100000001b3L;
            hash = (hash ^ (c >>> 8)) * 0x100000001b3L;
        }
        return hash;
    }
}
