package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclSystemException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TableTunerTest
{
    /** What the fallback answers for everything: distinct from every table line in each knob. */
    private static final Plan FALLBACK = new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 3, 256,
        96 << 10);
    private static final Tuner FALLBACK_TUNER = request -> FALLBACK;

    private static Path resource(final String name)
    {
        try
        {
            return Path.of(TableTunerTest.class.getResource("/tuner/" + name).toURI());
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static TableTuner example()
    {
        return TableTuner.load(resource("nccl-example.csv"), FALLBACK_TUNER);
    }

    private static PlanRequest request(final Collective collective, final long bytes, final int ranks,
        final int nodes, final int pipeOps, final boolean registered)
    {
        return new PlanRequest(collective, DataType.FLOAT32, bytes, ranks, nodes, pipeOps, registered);
    }

    private static TableTuner table(final String... lines)
    {
        return TableTuner.parse("test.csv", List.of(lines), FALLBACK_TUNER);
    }

    @Test
    void shouldLoadAFileInNcclsFormatSkippingAlgorithmsJcclLacks()
    {
        final TableTuner tuner = example();
        assertEquals(9, tuner.rows().size());
        final String source = resource("nccl-example.csv").toString();
        assertEquals(source, tuner.sourceName());
        assertEquals(source + ":12", tuner.rows().get(0).location());
        assertEquals(source + ":18", tuner.rows().get(1).location());
        assertEquals(2, tuner.warnings().size(), tuner.warnings().toString());
        assertTrue(tuner.warnings().get(0).startsWith(source + ":15: algorithm 'nvls'"), tuner.warnings().get(0));
        assertTrue(tuner.warnings().get(1).startsWith(source + ":37: channels 64"), tuner.warnings().get(1));
    }

    @Test
    void shouldMatchTheExpectedRowsOfTheExample()
    {
        final TableTuner tuner = example();
        final String source = resource("nccl-example.csv").toString();
        // registered, one node: line 12 (tree, 2 channels)
        assertEquals(source + ":12", tuner.match(request(Collective.ALL_REDUCE, 1024, 8, 1, 1, true)).location());
        assertEquals(new Plan(Algorithm.TREE, Protocol.SIMPLE, TransportKind.P2P, 2, 256, 96 << 10),
            tuner.choose(request(Collective.ALL_REDUCE, 1024, 8, 1, 1, true)));
        // unregistered: line 12 does not match, the nvls line is gone, line 18 (ring/ll, channels kept)
        assertEquals(new Plan(Algorithm.RING, Protocol.LL, TransportKind.P2P, 3, 256, 32 << 10),
            tuner.choose(request(Collective.ALL_REDUCE, 1024, 8, 1, 1, false)));
        // line 21 wants 4 nodes and 32 ranks, one pipelined op, unregistered
        assertEquals(source + ":21",
            tuner.match(request(Collective.ALL_REDUCE, 65537, 32, 4, 1, false)).location());
        assertNull(tuner.match(request(Collective.ALL_REDUCE, 65537, 32, 4, 2, false)));
        assertNull(tuner.match(request(Collective.ALL_REDUCE, 65537, 16, 4, 1, false)));
        // line 24 wants 4 pipelined ops, any buffers
        assertEquals(new Plan(Algorithm.RING, Protocol.LL128, TransportKind.P2P, 3, 256, 96 << 10),
            tuner.choose(request(Collective.ALL_REDUCE, 1 << 30, 2, 1, 4, true)));
        // line 31: allgather on 2 nodes only
        assertEquals(4, tuner.choose(request(Collective.ALL_GATHER, 4096, 4, 2, 1, false)).channels());
        assertSame(FALLBACK, tuner.choose(request(Collective.ALL_GATHER, 4096, 4, 1, 1, false)));
        // line 34: NCCL's example asks reducescatter for a tree; it runs as a ring
        assertEquals(new Plan(Algorithm.RING, Protocol.SIMPLE, TransportKind.P2P, 2, 256, 96 << 10),
            tuner.choose(request(Collective.REDUCE_SCATTER, 4096, 4, 1, 1, true)));
        // no line for alltoall: the fallback decides
        assertNull(tuner.lookup(request(Collective.ALL_TO_ALL, 4096, 4, 1, 1, true)));
        assertSame(FALLBACK, tuner.choose(request(Collective.ALL_TO_ALL, 4096, 4, 1, 1, true)));
    }

    @Test
    void shouldApplyTheJcclCommentExtras()
    {
        final Plan plan = example().choose(request(Collective.REDUCE, 12345, 6, 2, 3, false));
        assertEquals(new Plan(Algorithm.TREE, Protocol.LL128, TransportKind.SHM, 32, 512, 64 << 10), plan);
        final Plan capped = table("broadcast,0,100,ring,ll,-1,-1,-1 # jccl: chunk=1M transport=NET")
            .choose(request(Collective.BROADCAST, 100, 2, 1, 1, false));
        assertEquals(new Plan(Algorithm.RING, Protocol.LL, TransportKind.NET, 3, 256, 32 << 10), capped);
        final Plan plainComment = table("broadcast,0,100,ring,ll,-1,-1,-1 # tuned on 2024-01-01 for chunk=1M")
            .choose(request(Collective.BROADCAST, 100, 2, 1, 1, false));
        assertEquals(new Plan(Algorithm.RING, Protocol.LL, TransportKind.P2P, 3, 256, 32 << 10), plainComment);
    }

    @Test
    void shouldMatchBothBoundsInclusively()
    {
        final TableTuner tuner = table("allreduce,100,200,tree,ll,1,-1,-1");
        assertNull(tuner.lookup(request(Collective.ALL_REDUCE, 99, 2, 1, 1, false)));
        assertEquals(Algorithm.TREE, tuner.choose(request(Collective.ALL_REDUCE, 100, 2, 1, 1, false)).algorithm());
        assertEquals(Algorithm.TREE, tuner.choose(request(Collective.ALL_REDUCE, 200, 2, 1, 1, false)).algorithm());
        assertSame(FALLBACK, tuner.choose(request(Collective.ALL_REDUCE, 201, 2, 1, 1, false)));
        assertSame(FALLBACK, tuner.choose(request(Collective.BROADCAST, 150, 2, 1, 1, false)));
    }

    @Test
    void shouldReadMaxBytesMinusOneAsNoUpperBoundWhenAFileHasItAsNcclsPluginDoes()
    {
        final TableTuner tuner = TableTuner.load(resource("unbounded-max.csv"), FALLBACK_TUNER);
        assertTrue(tuner.warnings().isEmpty(), tuner.warnings()::toString);
        assertEquals(Algorithm.TREE, tuner.choose(request(Collective.ALL_REDUCE, 65_536, 2, 1, 1, false)).algorithm());
        assertEquals(Algorithm.RING, tuner.choose(request(Collective.ALL_REDUCE, 65_537, 2, 1, 1, false)).algorithm());
        assertEquals(Algorithm.RING, tuner.choose(request(Collective.ALL_REDUCE, 1L << 40, 2, 1, 1, false))
            .algorithm(), "no upper bound");
        assertEquals(Long.MAX_VALUE, tuner.match(request(Collective.ALL_REDUCE, 1L << 40, 2, 1, 1, false))
            .maxBytes());
    }

    @Test
    void shouldLetTheFirstMatchingLineWin()
    {
        final TableTuner tuner = table(
            "",
            "   # indented comment",
            "allreduce,0,1000,ring,ll128,2,-1,4",
            "allreduce,0,1000,tree,ll,5,-1,-1",
            "allreduce,500,1000,ring,simple,7,-1,-1");
        assertEquals(3, tuner.rows().size());
        assertEquals(new Plan(Algorithm.RING, Protocol.LL128, TransportKind.P2P, 2, 256, 96 << 10),
            tuner.choose(request(Collective.ALL_REDUCE, 700, 4, 1, 1, false)));
        assertEquals(new Plan(Algorithm.TREE, Protocol.LL, TransportKind.P2P, 5, 256, 32 << 10),
            tuner.choose(request(Collective.ALL_REDUCE, 700, 8, 1, 1, false)));
        assertEquals("test.csv:4", tuner.match(request(Collective.ALL_REDUCE, 0, 8, 1, 1, false)).location());
    }

    @Test
    void shouldStartFromADefaultPlanWhenThereIsNoFallback()
    {
        final TableTuner tuner = TableTuner.parse("t", List.of("allgather,0,10,ring,ll128,-1,-1,-1"), null);
        assertEquals(new Plan(Algorithm.RING, Protocol.LL128, TransportKind.P2P, 1, PinnedTuner.HOST_THREADS,
            KnobSpace.DEFAULT_CHUNK_BYTES), tuner.choose(request(Collective.ALL_GATHER, 10, 2, 1, 1, false)));
        assertNull(tuner.choose(request(Collective.ALL_GATHER, 11, 2, 1, 1, false)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "too-few-fields     | 3 | too few fields: 7, expected 8 to 10",
        "too-many-fields    | 3 | too many fields: 11, expected 8 to 10",
        "min-above-max      | 3 | min_bytes 200 is above max_bytes 100",
        "unknown-collective | 3 | unknown collective_type 'allscatter'; valid values: broadcast, reduce",
        "unknown-algorithm  | 3 | unknown algorithm 'butterfly'; valid values: tree, ring, direct",
        "unknown-protocol   | 3 | unknown protocol 'll256'; valid values: ll, ll128, simple",
        "non-numeric-bytes  | 3 | min_bytes '1k' is not a non-negative integer",
        "negative-bytes     | 3 | max_bytes '-2' is not a non-negative integer",
        "non-numeric-ranks  | 3 | nRanks 'four' is not an integer",
        "negative-channels  | 3 | channels -2 is invalid; valid values: -1 (keep the fallback's) or 1..32",
        "zero-nodes         | 3 | nNodes 0 is invalid; valid values: -1 (any) or a positive count",
        "bad-regbuff        | 3 | regBuff 2 is invalid; valid values: -1 (any), 0, 1",
        "bad-jccl-key       | 3 | unknown jccl comment key 'chunks'; valid keys: transport, chunk, threads",
        "bad-jccl-value     | 3 | jccl comment: transport='rdma' is not a transport; valid values: p2p, shm, net",
        "bad-jccl-pair      | 3 | jccl comment entry 'chunk' is not key=value",
    })
    void shouldNameTheFileAndLineWhenALineIsMalformed(final String name, final int line, final String reason)
    {
        final Path file = resource("malformed/" + name + ".csv");
        final TunerConfigException ex = assertThrows(TunerConfigException.class,
            () -> TableTuner.load(file, FALLBACK_TUNER));
        assertEquals(1, ex.errors().size(), ex.getMessage());
        assertTrue(ex.getMessage().startsWith(file + ":" + line + ": " + reason), ex.getMessage());
    }

    @Test
    void shouldReportEveryMalformedLineAtOnce()
    {
        final Path file = resource("malformed/several-errors.csv");
        final TunerConfigException ex = assertThrows(TunerConfigException.class,
            () -> TableTuner.load(file, FALLBACK_TUNER));
        assertEquals(2, ex.errors().size());
        assertTrue(ex.errors().get(0).startsWith(file + ":3: too few fields"), ex.errors().get(0));
        assertTrue(ex.errors().get(1).startsWith(file + ":5: min_bytes 9 is above max_bytes 1"), ex.errors().get(1));
        assertTrue(ex.getMessage().startsWith(file + " had 2 errors:"), ex.getMessage());
    }

    @Test
    void shouldFailWithTheFileNameWhenTheFileCannotBeRead()
    {
        final Path missing = resource("nccl-example.csv").resolveSibling("missing.csv");
        final JcclSystemException ex = assertThrows(JcclSystemException.class,
            () -> TableTuner.load(missing, FALLBACK_TUNER));
        assertTrue(ex.getMessage().contains(missing.toString()), ex.getMessage());
    }

    @Test
    void shouldHashTheLinesNotTheirLocation()
    {
        final TableTuner a = TableTuner.parse("a.csv", List.of("allreduce,0,1,ring,ll,-1,-1,-1"), null);
        final TableTuner b = TableTuner.parse("b.csv", List.of("# moved", "ALLREDUCE, 0, 1, RING, LL, -1, -1, -1"),
            null);
        final TableTuner c = TableTuner.parse("a.csv", List.of("allreduce,0,2,ring,ll,-1,-1,-1"), null);
        assertEquals(a.stableHash(), b.stableHash());
        assertNotEquals(a.stableHash(), c.stableHash());
        assertEquals("allreduce,0,1,ring,ll,-1,-1,-1,-1,-1", a.rows().get(0).canonical());
        assertEquals("reduce,0,4294967295,tree,ll128,32,-1,-1,-1,-1 # jccl: transport=shm chunk=64K threads=512",
            example().rows().get(8).canonical());
    }
}
