package io.jccl.bench;

import io.jccl.Collective;
import io.jccl.Protocol;
import io.jccl.autotune.PlanConstraints;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --sweep}: its keys and values, the order of the cartesian product, and the contexts of its passes. */
class SweepTest
{
    private static BenchOptions parse(final String... args)
    {
        final BenchOptions options = new BenchOptions();
        new CommandLine(options).parseArgs(args);
        options.validate();
        return options;
    }

    private static List<String> labels(final Sweep sweep)
    {
        return sweep.combinations().stream().map(SweepCombination::label).toList();
    }

    @Test
    void shouldOrderProductByKeyThenGivenValuesWhenKeysGivenInAnyOrder()
    {
        final Sweep sweep = Sweep.parse(List.of("chunk=32K,8K", "nchannels=1,2", "proto=simple,ll"));
        assertEquals(List.of(SweepKey.PROTO, SweepKey.NCHANNELS, SweepKey.CHUNK), List.copyOf(sweep.values().keySet()));
        assertEquals(List.of(
            "proto=simple nchannels=1 chunk=32K",
            "proto=simple nchannels=1 chunk=8K",
            "proto=simple nchannels=2 chunk=32K",
            "proto=simple nchannels=2 chunk=8K",
            "proto=ll nchannels=1 chunk=32K",
            "proto=ll nchannels=1 chunk=8K",
            "proto=ll nchannels=2 chunk=32K",
            "proto=ll nchannels=2 chunk=8K"), labels(sweep));
        assertEquals("proto=ll,nchannels=2,chunk=8K", sweep.combinations().get(7).compactLabel());
    }

    @Test
    void shouldTakeEveryKeyWhenAllGiven()
    {
        final Sweep sweep = Sweep.parse(List.of("block-threads=64,128", "transport=p2p,shm", "algo=ring,^ring",
            "chunk=4K", "nchannels=3", "proto=^ll128"));
        assertEquals(List.of(SweepKey.values()), List.copyOf(sweep.values().keySet()));
        assertEquals(8, sweep.combinations().size());
        assertEquals("algo=ring proto=^ll128 transport=p2p nchannels=3 chunk=4K block-threads=64",
            sweep.combinations().get(0).label());
        assertEquals("algo=^ring proto=^ll128 transport=shm nchannels=3 chunk=4K block-threads=128",
            sweep.combinations().get(7).label());
    }

    @Test
    void shouldReadSweepWhenGivenAsOneOptionOrSeveral()
    {
        final List<String> expected = List.of("proto=simple nchannels=1", "proto=simple nchannels=4",
            "proto=ll nchannels=1", "proto=ll nchannels=4");
        assertEquals(expected, labels(parse("--sweep", "proto=simple,ll", "nchannels=1,4", "-g", "2").sweep()));
        assertEquals(expected, labels(parse("--sweep", "proto=simple,ll", "-g", "2", "--sweep", "nchannels=1,4")
            .sweep()));
        assertEquals(expected, labels(parse("--sweep=nchannels=1,4", "--sweep=proto=simple,ll").sweep()));
        assertNull(parse("-g", "2").sweep());
    }

    @Test
    void shouldNameKeyWhenSweepArgumentBad()
    {
        assertRejected("--sweep key 'threads' is not one of [algo, proto, transport, nchannels, chunk, " +
            "block-threads]", "threads=64");
        assertRejected("--sweep 'proto' is not key=v1,v2,...", "proto");
        assertRejected("--sweep proto='simple,,ll' has an empty value", "proto=simple,,ll");
        assertRejected("--sweep proto='' has an empty value", "proto=");
        assertRejected("--sweep proto lists 'll' twice", "proto=ll,simple,ll");
        assertRejected("--sweep key proto is given twice", "proto=ll", "proto=simple");
        assertRejected("--sweep proto=ll256: JCCL_PROTO", "proto=simple,ll256");
        assertRejected("--sweep algo=hypercube: JCCL_ALGO", "algo=hypercube");
        assertRejected("--sweep transport=net: ", "transport=net");
        assertRejected("--sweep nchannels=0: ", "nchannels=1,0");
        assertRejected("--sweep nchannels=64: JCCL_", "nchannels=64");
        assertRejected("--sweep chunk=lots: ", "chunk=lots");
        assertRejected("--sweep block-threads=48: JCCL_NTHREADS", "block-threads=48");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Sweep.parse(List.of())).getMessage()
            .startsWith("--sweep needs at least one key=v1,v2,..."));
    }

    @Test
    void shouldRejectSweepWhenSameKnobGivenAsFlagOrForever()
    {
        assertOptionsRejected("--sweep proto and --proto together", "--sweep", "proto=ll", "--proto", "simple");
        assertOptionsRejected("--sweep nchannels and --nchannels together", "--sweep", "nchannels=1,2", "--channels",
            "2");
        assertOptionsRejected("--sweep nchannels and --min-nchannels/--max-nchannels together", "--sweep",
            "nchannels=1,2", "--max-nchannels", "4");
        assertOptionsRejected("--sweep with -N/--run_cycles 0", "--sweep", "nchannels=1,2", "-N", "0");
    }

    @Test
    void shouldPinCombinationOverFlagsWhenContextBuilt()
    {
        final BenchOptions options = parse("--sweep", "proto=ll,simple", "nchannels=2", "--chunk", "16K");
        final List<SweepCombination> combinations = options.sweep().combinations();
        final PlanConstraints first = JcclCommunicatorFactory.context(options, combinations.get(0)).constraints();
        assertEquals(Set.of(Protocol.LL), first.protocols(Collective.ALL_REDUCE));
        assertEquals(2, first.minChannels());
        assertEquals(2, first.maxChannels());
        assertEquals(16384, first.chunkBytes());
        final PlanConstraints second = JcclCommunicatorFactory.context(options, combinations.get(1)).constraints();
        assertEquals(Set.of(Protocol.SIMPLE), second.protocols(Collective.ALL_REDUCE));
        final PlanConstraints unpinned = JcclCommunicatorFactory.context(options, SweepCombination.DEFAULT)
            .constraints();
        assertEquals(Set.of(Protocol.values()), Set.copyOf(unpinned.protocols(Collective.ALL_REDUCE)));
        assertEquals(1, unpinned.minChannels());
        assertEquals(16384, unpinned.chunkBytes());
        assertEquals("default", SweepCombination.DEFAULT.label());
        assertEquals(Map.of(), SweepCombination.DEFAULT.pins());
    }

    private static void assertRejected(final String expectedStart, final String... arguments)
    {
        final String message = assertThrows(IllegalArgumentException.class, () -> Sweep.parse(List.of(arguments)))
            .getMessage();
        assertTrue(message.startsWith(expectedStart), "expected '" + expectedStart + "...', got: " + message);
    }

    private static void assertOptionsRejected(final String expectedStart, final String... args)
    {
        final String message = assertThrows(IllegalArgumentException.class, () -> parse(args)).getMessage();
        assertTrue(message.startsWith(expectedStart), "expected '" + expectedStart + "...', got: " + message);
    }
}
