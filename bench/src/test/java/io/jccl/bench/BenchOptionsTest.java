package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.core.Context;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchOptionsTest
{
    private static BenchOptions parse(final String... args)
    {
        final BenchOptions options = new BenchOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }

    @Test
    void shouldUseNcclTestsDefaultsWhenNoFlags()
    {
        final BenchOptions options = parse();
        options.validate();
        assertEquals(1, options.nThreads());
        assertEquals(1, options.nGpus());
        assertEquals(32L << 20, options.minBytes());
        assertEquals(32L << 20, options.maxBytes());
        assertEquals(1L << 20, options.stepBytes());
        assertEquals(1, options.stepFactor());
        assertEquals(20, options.iters());
        assertEquals(1, options.aggIters());
        assertEquals(5, options.warmupIters());
        assertEquals(1, options.check());
        assertEquals(List.of(DataType.FLOAT32), options.types());
        assertEquals(List.of("sum"), options.opNames());
        assertEquals(0, options.root());
        assertFalse(options.blocking());
        assertEquals(ThreadSync.AVG, options.average());
        assertEquals(1, options.runCycles());
        assertNull(options.timeoutMs());
        assertNull(options.algo());
    }

    @Test
    void shouldReadShortFlagsWhenGivenAsNcclTests()
    {
        final BenchOptions options = parse("-t", "2", "-g", "4", "-b", "8", "-e", "128M", "-i", "1K", "-f", "2",
            "-n", "50", "-m", "3", "-w", "10", "-N", "2", "-c", "0", "-o", "max", "-d", "half", "-r", "3", "-z", "1",
            "-y", "1", "-a", "3", "-C", "1");
        options.validate();
        assertEquals(2, options.nThreads());
        assertEquals(4, options.nGpus());
        assertEquals(8, options.nRanks());
        assertEquals(8, options.minBytes());
        assertEquals(128L << 20, options.maxBytes());
        assertEquals(1024, options.stepBytes());
        assertEquals(2, options.stepFactor());
        assertEquals(50, options.iters());
        assertEquals(3, options.aggIters());
        assertEquals(10, options.warmupIters());
        assertEquals(2, options.runCycles());
        assertEquals(0, options.check());
        assertEquals(List.of("max"), options.opNames());
        assertEquals(List.of(DataType.FLOAT16), options.types());
        assertEquals(List.of(3), options.roots(BenchTool.BROADCAST));
        assertTrue(options.blocking());
        assertTrue(options.streamNull());
        assertEquals(ThreadSync.MAX, options.average());
        assertTrue(options.reportCputime());
    }

    @Test
    void shouldReadLongAndAttachedFormsWhenGiven()
    {
        final BenchOptions options = parse("--minbytes=1K", "--maxbytes", "1M", "--stepfactor", "4", "-g2",
            "--datatype", "bfloat16", "--op", "mulsum", "--iters", "0x10", "--warmup_iters=1", "--check", "2",
            "--blocking", "0", "--average", "0", "--root", "1");
        options.validate();
        assertEquals(1024, options.minBytes());
        assertEquals(1 << 20, options.maxBytes());
        assertEquals(4, options.stepFactor());
        assertEquals(2, options.nGpus());
        assertEquals(List.of(DataType.BFLOAT16), options.types());
        assertEquals(List.of("mulsum"), options.opNames());
        assertEquals(16, options.iters());
        assertEquals(1, options.warmupIters());
        assertEquals(2, options.check());
        assertEquals(ThreadSync.RANK0, options.average());
        assertEquals(List.of(1024L, 4096L, 16384L, 65536L, 262144L, 1048576L), options.sizes());
    }

    @Test
    void shouldRunEveryRootWhenRootIsMinusOne()
    {
        final BenchOptions options = parse("-g", "3", "-r", "-1");
        options.validate();
        assertEquals(List.of(0, 1, 2), options.roots(BenchTool.REDUCE));
        assertEquals(List.of(BenchTool.NO_ROOT), options.roots(BenchTool.ALL_REDUCE));
    }

    @Test
    void shouldRunEveryTypeAndOpWhenAll()
    {
        final BenchOptions options = parse("-d", "all", "-o", "all");
        options.validate();
        assertEquals(List.of(DataType.INT8, DataType.UINT8, DataType.INT32, DataType.UINT32, DataType.INT64,
            DataType.UINT64, DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64, DataType.BFLOAT16,
            DataType.FLOAT8_E4M3, DataType.FLOAT8_E5M2), options.types());
        assertEquals(List.of("sum", "prod", "max", "min", "avg", "mulsum"), options.opNames());
        assertEquals(List.of("int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
            "bfloat16", "f8e4m3", "f8e5m2"), options.types().stream().map(DataType::ncclTestsName).toList());
    }

    @Test
    void shouldMakeMulsumPreMulSumByOneOverRanksWhenOpNamed()
    {
        final ReduceOp mulsum = BenchOptions.op("mulsum", 4);
        assertEquals(ReduceOp.Kind.PREMULSUM, mulsum.kind());
        assertEquals(0.25, mulsum.scalar());
        assertEquals("mulsum", mulsum.ncclTestsName());
        assertEquals(ReduceOp.AVG, BenchOptions.op("avg", 4));
    }

    @Test
    void shouldRejectValueWhenOutOfRange()
    {
        assertThrows(IllegalArgumentException.class, () -> parse("-b", "1M", "-e", "1K").validate());
        assertThrows(IllegalArgumentException.class, () -> parse("-d", "float32x").validate());
        assertThrows(IllegalArgumentException.class, () -> parse("-o", "xor").validate());
        assertThrows(IllegalArgumentException.class, () -> parse("-a", "4").validate());
        assertThrows(IllegalArgumentException.class, () -> parse("-g", "2", "-r", "2").validate());
        assertThrows(IllegalArgumentException.class, () -> parse("-t", "0").validate());
        assertThrows(IllegalArgumentException.class, () -> parse("-n", "0").validate());
        assertThrows(IllegalArgumentException.class, () -> parse("--algo", "ring2").validate());
        assertThrows(IllegalArgumentException.class, () -> parse("-b", "0", "-e", "8", "-f", "2").validate());
        assertThrows(CommandLine.ParameterException.class, () -> parse("-b", "eight"));
        assertThrows(CommandLine.ParameterException.class, () -> parse("--no-such-flag"));
    }

    @Test
    void shouldSetContextWhenJcclFlagsGiven()
    {
        final BenchOptions options = parse("--timeout-ms", "1500", "--algo", "tree", "--channels", "4",
            "--chunk-bytes", "64K");
        options.validate();
        final Context context = JcclCommunicatorFactory.context(options);
        assertEquals(1500, context.timeoutMs());
        assertEquals(java.util.Set.of(Algorithm.TREE), context.constraints().algorithms(io.jccl.Collective.ALL_REDUCE));
        assertEquals(4, context.constraints().minChannels());
        assertEquals(4, context.constraints().maxChannels());
        assertEquals(65536, context.chunkBytes());
    }

    @Test
    void shouldTakeTimeoutFromSecondsWhenOnlyNcclTestsFlag()
    {
        assertEquals(30_000L, parse("-T", "30").timeoutMs());
        assertEquals(700L, parse("-T", "30", "--timeout-ms", "700").timeoutMs());
    }

    @Test
    void shouldAcceptCompatibilityFlagsWhenMeaningless()
    {
        final BenchOptions options = parse("-p", "1", "-G", "10", "-R", "1");
        options.validate();
        assertEquals(1, options.parallelInit());
        assertEquals(10, options.cudaGraph());
        assertEquals(1, options.localRegister());
    }

    @Test
    void shouldAllocateSharedMemoryUnlessPlainMemoryIsAsked()
    {
        assertFalse(parse().plainMemory(), "jccl's shared allocator by default, as nccl-tests' ncclMemAlloc");
        final BenchOptions plain = parse("--plain-memory", "-R", "1");
        plain.validate();
        assertTrue(plain.plainMemory());
        assertEquals(1, plain.localRegister(), "-R keeps its meaning beside it");
    }

    @Test
    void shouldReadResultFileProgressAndWarmupFlagsWhenGiven()
    {
        final BenchOptions none = parse();
        none.validate();
        assertNull(none.csvFile());
        assertNull(none.jsonFile());
        assertNull(none.progress());
        // the bench's tests set the property that overrides the default of 500
        assertEquals(Long.getLong(BenchOptions.JIT_WARMUP_MS_PROP_NAME, BenchOptions.JIT_WARMUP_MS_DEFAULT),
            none.jitWarmupMs());

        for (final String jsonFlag : List.of("-J", "--output_file", "--json"))
        {
            final BenchOptions options = parse(jsonFlag, "out.json", "--csv", "out.csv", "--progress",
                "--jit-warmup-ms", "0");
            options.validate();
            assertEquals(Path.of("out.json"), options.jsonFile());
            assertEquals(Path.of("out.csv"), options.csvFile());
            assertEquals(Boolean.TRUE, options.progress());
            assertEquals(0, options.jitWarmupMs());
        }
        assertEquals(Boolean.FALSE, parse("--no-progress").progress());
        final IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
            () -> parse("--jit-warmup-ms", "-1").validate());
        assertEquals("--jit-warmup-ms -1 must not be negative", negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parse("--csv", "a", "-J", "./a").validate());
    }

    @Test
    void shouldCountEveryProcesssRankWhenOneOfSeveralProcesses()
    {
        final BenchOptions options = parse("-r", "-1").processes(2, 4);
        options.validate();
        assertEquals(4, options.nRanks());
        assertEquals(1, options.localRanks());
        assertEquals(2, options.processRank());
        assertEquals(4, options.processCount());
        assertEquals(List.of(0, 1, 2, 3), options.roots(BenchTool.BROADCAST));
        parse("-r", "3").processes(0, 4).validate();
        assertThrows(IllegalArgumentException.class, () -> parse("-r", "4").processes(0, 4).validate());
    }

    @Test
    void shouldNameTheFlagsWhenAProcessOfSeveralAsksForMoreThanOneRank()
    {
        final IllegalArgumentException threads = assertThrows(IllegalArgumentException.class,
            () -> parse("-t", "2").processes(0, 2).validate());
        assertTrue(threads.getMessage().startsWith("-t/--nthreads 2 -g/--ngpus 1 with 2 processes: each process " +
            "of a multi-process run drives one rank; give -t 1 -g 1"), threads.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parse("-g", "2").processes(1, 2).validate());
        parse("--sweep", "proto=ll,simple").processes(1, 2).validate();
        parse("-g", "2", "-t", "2").processes(0, 1).validate();
        assertThrows(IllegalArgumentException.class, () -> parse().processes(2, 2));
    }
}
