package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.autotune.PlanConstraints;
import io.jccl.core.Context;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * jccl's knob flags: each sets its {@code JCCL_*} setting on the {@link Context} (seen through
 * {@link Context#constraints()}), a knob not given leaves the setting in force (the environment, simulated here by
 * the system property of the same name, which {@link Context} reads first), and a bad value is rejected before any
 * rank starts, naming its flag.
 */
class KnobFlagsTest
{
    private final List<String> propertiesSet = new ArrayList<>();

    @AfterEach
    void clearProperties()
    {
        propertiesSet.forEach(System::clearProperty);
    }

    /** Sets what {@link Context} reads before the environment variable {@code name}. */
    private void environment(final String name, final String value)
    {
        final String property = name.toLowerCase(Locale.ROOT).replace('_', '.');
        System.setProperty(property, value);
        propertiesSet.add(property);
    }

    private static BenchOptions parse(final String... args)
    {
        final BenchOptions options = new BenchOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }

    private static PlanConstraints constraints(final String... args)
    {
        final BenchOptions options = parse(args);
        options.validate();
        return JcclCommunicatorFactory.context(options).constraints();
    }

    private static String rejection(final String... args)
    {
        return assertThrows(IllegalArgumentException.class, () -> parse(args).validate()).getMessage();
    }

    @Test
    void shouldPinAlgorithmsInNcclSyntaxWhenAlgoGiven()
    {
        final PlanConstraints pins = constraints("--algo", "allreduce:tree;allgather:ring");
        assertEquals(Set.of(Algorithm.TREE), pins.algorithms(Collective.ALL_REDUCE));
        assertEquals(Set.of(Algorithm.RING), pins.algorithms(Collective.ALL_GATHER));
        assertEquals(Set.of(Algorithm.RING, Algorithm.TREE, Algorithm.DIRECT), pins.algorithms(Collective.BROADCAST));
        assertEquals(Set.of(Algorithm.DIRECT), constraints("--algo", "direct").algorithms(Collective.ALL_REDUCE));
    }

    @Test
    void shouldExcludeProtocolWhenProtoGivenWithCaret()
    {
        assertEquals(Set.of(Protocol.SIMPLE, Protocol.LL), constraints("--proto", "^ll128")
            .protocols(Collective.ALL_REDUCE));
        assertEquals(Set.of(Protocol.LL), constraints("--proto", "ll").protocols(Collective.REDUCE));
    }

    @Test
    void shouldPinTransportWhenTransportGiven()
    {
        assertEquals(TransportKind.SHM, constraints("--transport", "shm").transport());
        assertEquals(TransportKind.P2P, constraints("--transport", "p2p").transport());
    }

    @Test
    void shouldPinChannelCountWhenNchannelsOrItsAliasGiven()
    {
        final PlanConstraints pinned = constraints("--nchannels", "3");
        assertEquals(3, pinned.minChannels());
        assertEquals(3, pinned.maxChannels());
        final PlanConstraints alias = constraints("--channels", "0x4");
        assertEquals(4, alias.minChannels());
        assertEquals(4, alias.maxChannels());
    }

    @Test
    void shouldSetChannelRangeWhenMinAndMaxGiven()
    {
        final PlanConstraints range = constraints("--min-nchannels", "2", "--max-nchannels", "6");
        assertEquals(2, range.minChannels());
        assertEquals(6, range.maxChannels());
    }

    @Test
    void shouldKeepOtherChannelBoundFromEnvironmentWhenOnlyOneGiven()
    {
        environment(Context.NCHANNELS_PROP_NAME, "5");
        environment(Context.MIN_NCHANNELS_PROP_NAME, "3");
        final PlanConstraints minOnly = constraints("--min-nchannels", "2");
        assertEquals(2, minOnly.minChannels());
        assertEquals(5, minOnly.maxChannels());
        final PlanConstraints maxOnly = constraints("--max-nchannels", "4");
        assertEquals(3, maxOnly.minChannels());
        assertEquals(4, maxOnly.maxChannels());
    }

    @Test
    void shouldPinThreadsPerBlockWhenBlockThreadsGiven()
    {
        assertEquals(256, constraints("--block-threads", "256").threads());
        assertEquals(0, constraints().threads());
    }

    @Test
    void shouldPinChunkWithSuffixWhenChunkOrItsAliasGiven()
    {
        assertEquals(32768, constraints("--chunk", "32K").chunkBytes());
        assertEquals(1 << 20, constraints("--chunk-bytes", "1M").chunkBytes());
        assertEquals(1000, constraints("--chunk", "1000").chunkBytes());
    }

    @Test
    void shouldReturnGivenKnobFlagsOnlyWhenSomeGiven()
    {
        final BenchOptions options = parse("--proto", "ll", "--block-threads", "64");
        assertEquals(Map.of(SweepKey.PROTO, "ll", SweepKey.BLOCK_THREADS, "64"), options.knobFlags());
        assertEquals(Map.of(), parse().knobFlags());
        assertNull(parse().minChannels());
    }

    @Test
    void shouldLeaveEnvironmentInForceWhenFlagNotGiven()
    {
        environment(Context.PROTO_PROP_NAME, "ll128");
        environment(Context.CHUNK_SIZE_PROP_NAME, "64K");
        final PlanConstraints fromEnvironment = constraints("--nchannels", "2");
        assertEquals(Set.of(Protocol.LL128), fromEnvironment.protocols(Collective.ALL_REDUCE));
        assertEquals(65536, fromEnvironment.chunkBytes());
        assertEquals(2, fromEnvironment.maxChannels());
        final PlanConstraints overridden = constraints("--proto", "simple");
        assertEquals(Set.of(Protocol.SIMPLE), overridden.protocols(Collective.ALL_REDUCE));
        assertEquals(65536, overridden.chunkBytes());
    }

    @Test
    void shouldOverrideInvalidEnvironmentWhenFlagGiven()
    {
        environment(Context.PROTO_PROP_NAME, "bogus");
        assertEquals(Set.of(Protocol.LL), constraints("--proto", "ll").protocols(Collective.ALL_GATHER));
        final String message = rejection("--nchannels", "2");
        assertTrue(message.contains("JCCL_PROTO='bogus'"), message);
    }

    @Test
    void shouldUseTableFileWhenTunerConfigGiven(@TempDir final Path dir) throws IOException
    {
        final Path table = table(dir, "allreduce,0,65536,tree,ll,2,-1,-1");
        final BenchOptions implied = parse("--tuner-config", table.toString());
        implied.validate();
        assertEquals(TunerMode.TABLE, implied.tunerMode());
        assertEquals(table, JcclCommunicatorFactory.context(implied).tunerConfigFile());
        final BenchOptions explicit = parse("--tuner", "table", "--tuner-config", table.toString());
        explicit.validate();
        assertEquals(table, JcclCommunicatorFactory.context(explicit).tunerConfigFile());
    }

    @Test
    void shouldRunTheOnlineTunerWhenTunerAutoGiven()
    {
        final BenchOptions auto = parse("--tuner", "auto");
        auto.validate();
        assertEquals(TunerMode.AUTO, auto.tunerMode());
        assertEquals(Context.TunerMode.AUTO, JcclCommunicatorFactory.context(auto).tunerMode());
    }

    @Test
    void shouldUseNoTableWhenTunerModelGivenEvenIfEnvironmentNamesOne(@TempDir final Path dir) throws IOException
    {
        final Path table = table(dir, "allreduce,0,65536,tree,ll,2,-1,-1");
        environment(Context.TUNER_CONFIG_FILE_PROP_NAME, table.toString());
        final BenchOptions model = parse("--tuner", "model");
        model.validate();
        assertEquals(TunerMode.MODEL, model.tunerMode());
        assertNull(JcclCommunicatorFactory.context(model).tunerConfigFile());
        final BenchOptions none = parse();
        none.validate();
        assertEquals(TunerMode.ENVIRONMENT, none.tunerMode());
        assertEquals(table, JcclCommunicatorFactory.context(none).tunerConfigFile());
    }

    @Test
    void shouldRejectTunerFlagsWhenInconsistentOrTableMalformed(@TempDir final Path dir) throws IOException
    {
        assertTrue(rejection("--tuner", "table").startsWith("--tuner table needs --tuner-config FILE"));
        assertTrue(rejection("--tuner", "nccl").startsWith("--tuner 'nccl' is not one of model, table"));
        final Path good = table(dir, "allreduce,0,65536,tree,ll,2,-1,-1");
        assertTrue(rejection("--tuner", "model", "--tuner-config", good.toString())
            .startsWith("--tuner model and --tuner-config "));
        final Path bad = dir.resolve("bad.csv");
        Files.writeString(bad, "allreduce,0,65536,hypercube,ll,2,-1,-1\n");
        final String message = rejection("--tuner-config", bad.toString());
        assertTrue(message.startsWith("--tuner-config " + bad + ": "), message);
        assertTrue(message.contains("hypercube"), message);
        final String missing = rejection("--tuner-config", dir.resolve("none.csv").toString());
        assertTrue(missing.startsWith("--tuner-config "), missing);
    }

    @Test
    void shouldNameFlagWhenKnobValueBad()
    {
        assertRejected("--algo 'hypercube': JCCL_ALGO", "--algo", "hypercube");
        assertRejected("--proto 'll256': JCCL_PROTO", "--proto", "ll256");
        assertRejected("--transport 'net': ", "--transport", "net");
        assertRejected("--transport 'udp': ", "--transport", "udp");
        assertRejected("--nchannels '0': ", "--nchannels", "0");
        assertRejected("--nchannels '33': JCCL_", "--nchannels", "33");
        assertRejected("--nchannels 'two': ", "--channels", "two");
        assertRejected("--block-threads '100': JCCL_NTHREADS", "--block-threads", "100");
        assertRejected("--block-threads '0': ", "--block-threads", "0");
        assertRejected("--chunk '0': ", "--chunk", "0");
        assertRejected("--chunk '4G': ", "--chunk-bytes", "4G");
        assertRejected("--chunk 'big': ", "--chunk", "big");
        assertRejected("--min-nchannels 0 must be at least 1", "--min-nchannels", "0");
        assertRejected("--max-nchannels 33: JCCL_MAX_NCHANNELS", "--max-nchannels", "33");
        assertRejected("--min-nchannels 8 --max-nchannels 4: JCCL_MIN_NCHANNELS", "--min-nchannels", "8",
            "--max-nchannels", "4");
        assertRejected("--min-nchannels 1 --max-nchannels 40: JCCL_MAX_NCHANNELS", "--min-nchannels", "1",
            "--max-nchannels", "40");
        assertRejected("--nchannels 2 pins the channel count", "--nchannels", "2", "--max-nchannels", "4");
        assertRejected("--nchannels and --channels together", "--nchannels", "2", "--channels", "2");
    }

    @Test
    void shouldNameEnvironmentWhenFlagsClashWithIt()
    {
        environment(Context.NCHANNELS_PROP_NAME, "2");
        assertRejected("jccl settings (flags over the JCCL_* environment): JCCL_MIN_NCHANNELS=4 is above",
            "--min-nchannels", "4");
    }

    @Test
    void shouldRejectAlgoWhenScheduleGiven(@TempDir final Path dir)
    {
        final String file = dir.resolve("ring.xml").toString();
        assertRejected("--schedule and --algo ring together", "--algo", "ring", "--schedule", file);
        assertRejected("--sweep algo and --schedule together", "--sweep", "algo=ring,tree", "--schedule", file);
    }

    @Test
    void shouldExitWithUsageBeforeAnyRankStartsWhenKnobBad()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final CommunicatorFactory neverUsed = FakeCommunicators.factory(FakeCommunicators.Fault.NONE);
        final int status = JcclBench.run(new String[] {"all_gather_perf", "-g", "2", "--proto", "fast"},
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
            neverUsed);
        assertEquals(JcclBench.EXIT_USAGE, status);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        final String stderr = err.toString(StandardCharsets.UTF_8);
        assertTrue(stderr.startsWith("all_gather_perf: --proto 'fast': JCCL_PROTO='fast'"), stderr);
    }

    @Test
    void shouldListKnobsWithTheirVariablesWhenHelp()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, JcclBench.run(new String[] {"all_reduce_perf", "-h"},
            new PrintStream(out, true, StandardCharsets.UTF_8), System.err));
        final String help = out.toString(StandardCharsets.UTF_8);
        final int knobs = help.indexOf("jccl's knobs");
        assertTrue(knobs > help.indexOf("--minbytes"), help);
        final String[] expected = {
            "--algo=<spec>         JCCL_ALGO",
            "--proto=<spec>        JCCL_PROTO",
            "--transport=<p2p|shm> JCCL_TRANSPORT",
            "--nchannels=<n>       JCCL_MIN_NCHANNELS = JCCL_MAX_NCHANNELS",
            "--min-nchannels=<n>   JCCL_MIN_NCHANNELS",
            "--max-nchannels=<n>   JCCL_MAX_NCHANNELS",
            "--block-threads=<n>   JCCL_NTHREADS",
            "--chunk, --chunk-bytes=<bytes>",
            "--tuner=<model|table|auto>",
            "--tuner-config=<file.csv>"};
        for (final String line : expected)
        {
            // the description on the same line, whatever width picocli gives the option column
            final Matcher matcher = Pattern.compile(Pattern.quote(line).replaceAll(" +", "\\\\E +\\\\Q"))
                .matcher(help);
            assertTrue(matcher.find(knobs), line + " in\n" + help);
        }
        assertTrue(help.contains("JCCL_TUNER: model = the cost model alone"), help);
        assertTrue(help.contains("not -t/--nthreads"), help);
        assertTrue(help.contains("no effect on the host backend"), help);
        assertTrue(help.lastIndexOf("--sweep=<key=v1,v2,...>") > help.indexOf("jccl's sweep"), help);
    }

    private static void assertRejected(final String expectedStart, final String... args)
    {
        final String message = rejection(args);
        assertTrue(message.startsWith(expectedStart), "expected '" + expectedStart + "...', got: " + message);
    }

    private static Path table(final Path dir, final String line) throws IOException
    {
        final Path file = dir.resolve("tuner.csv");
        Files.writeString(file, "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks\n" +
            line + "\n");
        return file;
    }
}
