package io.jccl.kernels.cuda;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The wire contract, {@code cuda-src/jccl_wire.def}, is the one source of both sides: the committed
 * {@code jccl_wire.h}, {@code StepWire.java} and {@link DeviceWire} are what {@code tools/WireGen.java} makes of it, a
 * changed number reaches all three, and a generated file edited by hand fails here.
 */
class WireContractTest
{
    private static final Path ROOT = Path.of("..");
    private static final String DEFINITION = "cuda-src/jccl_wire.def";
    private static final List<String> GENERATED = List.of("cuda-src/jccl_wire.h",
        "jccl-schedules/src/main/java/io/jccl/schedules/StepWire.java",
        "jccl-kernels/src/main/java/io/jccl/kernels/cuda/DeviceWire.java");

    @Test
    @Timeout(120)
    void shouldMatchTheDefinitionWhenTheGeneratedFilesAreCommitted() throws Exception
    {
        final Result result = wireGen(ROOT, "--check");
        assertEquals(0, result.status, "run cuda-src/build-ptx.sh (or java tools/WireGen.java .): " + result.output);
        assertEquals(8, DeviceWire.STEP_WIDTH);
    }

    /** The host FIFOs, the CUDA proxy and the model frame LL with LlCodec, the kernel with the contract's period. */
    @Test
    void shouldGiveLlCodecTheContractsFlagPeriod()
    {
        assertEquals(1L << DeviceWire.LL_FLAG_PERIOD_BITS, io.jccl.kernels.LlCodec.LL_FLAG_PERIOD);
        assertEquals(1, io.jccl.kernels.LlCodec.llFlag(io.jccl.kernels.LlCodec.LL_FLAG_PERIOD));
        assertEquals(0x8000_0000, io.jccl.kernels.LlCodec.llFlag(io.jccl.kernels.LlCodec.LL_FLAG_PERIOD - 1));
    }

    @Test
    @Timeout(120)
    void shouldRegenerateBothSidesWhenAnOpcodeNumberChanges(@TempDir final Path root) throws Exception
    {
        final String definition = Files.readString(ROOT.resolve(DEFINITION));
        assertTrue(definition.contains("JCCL_OPCODE(REDUCE, 8, re)"), "the fixture expects REDUCE to be 8");
        copy(root, definition.replace("JCCL_OPCODE(REDUCE, 8, re)", "JCCL_OPCODE(REDUCE, 12, re)"));
        final Result result = wireGen(root);
        assertEquals(0, result.status, result.output);
        assertTrue(Files.readString(root.resolve(GENERATED.get(0))).contains("constexpr int OP_REDUCE = 12;"));
        assertTrue(Files.readString(root.resolve(GENERATED.get(1))).contains("static final int OP_REDUCE = 12;"));
        assertTrue(Files.readString(root.resolve(GENERATED.get(2))).contains("static final int OP_REDUCE = 12;"));
        assertTrue(Files.readString(root.resolve(GENERATED.get(1))).contains("new String[13]"),
            "the MSCCL names are indexed by id");
        assertEquals(0, wireGen(root, "--check").status, "and then they agree");
    }

    @Test
    @Timeout(120)
    void shouldFailNamingTheFileWhenAGeneratedFileIsEditedByHand(@TempDir final Path root) throws Exception
    {
        copy(root, Files.readString(ROOT.resolve(DEFINITION)));
        for (final String file : GENERATED)
        {
            Files.copy(ROOT.resolve(file), root.resolve(file));
        }
        assertEquals(0, wireGen(root, "--check").status);
        final Path deviceWire = root.resolve(GENERATED.get(2));
        Files.writeString(deviceWire, Files.readString(deviceWire).replace("FIFO_DATA = 256", "FIFO_DATA = 512"));
        final Result result = wireGen(root, "--check");
        assertEquals(1, result.status, result.output);
        assertTrue(result.output.contains("differs from what cuda-src/jccl_wire.def generates: " + GENERATED.get(2)),
            result.output);
    }

    /** Lays out a project root holding the definition and the folders of the generated files. */
    private static void copy(final Path root, final String definition) throws IOException
    {
        Files.createDirectories(root.resolve("cuda-src"));
        Files.writeString(root.resolve(DEFINITION), definition);
        for (final String file : GENERATED)
        {
            Files.createDirectories(root.resolve(file).getParent());
        }
    }

    private record Result(int status, String output)
    {
    }

    /** Runs tools/WireGen.java as build-ptx.sh does: a single-file program of this JDK. */
    private static Result wireGen(final Path root, final String... extra) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            ROOT.resolve("tools").resolve("WireGen.java").toString(), root.toString()));
        command.addAll(List.of(extra));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(process.waitFor(), output);
    }
}
