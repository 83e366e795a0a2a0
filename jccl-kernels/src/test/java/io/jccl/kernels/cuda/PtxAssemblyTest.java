package io.jccl.kernels.cuda;

import jcuda.nvptxcompiler.JNvPTXCompiler;
import jcuda.nvptxcompiler.nvPTXCompileResult;
import jcuda.nvptxcompiler.nvPTXCompilerHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A CUDA 12 driver would load every shipped PTX: each declares a PTX ISA {@code .version} of at most 8.0 (nvcc 13
 * writes 9.0, which only CUDA 13 drivers take; build-ptx.sh rewrites it) and assembles for sm_75 (nvcc 13's oldest
 * target), sm_80 and sm_90 with the PTX compiler in JCuda's natives, which is CUDA 12.0's and needs no driver or GPU:
 * it refuses what a CUDA 12.0 driver's JIT would refuse. Each kernel's registers, read from the compiler's verbose
 * log, must let a block of its most threads launch (its {@code .maxntid} launch bound, else the driver's 1024):
 * registers per thread (allocated in eights) times threads, in warps, within an SM's 64 Ki registers.
 */
class PtxAssemblyTest
{
    private static final String[] ARCHITECTURES = { "sm_75", "sm_80", "sm_90" };
    /** Registers one block may use on sm_75 to sm_90. */
    private static final int REGISTERS_PER_BLOCK = 64 * 1024;
    private static final Pattern COMPILING = Pattern.compile("Compiling entry function '(\\w+)'");
    private static final Pattern USED = Pattern.compile("Used (\\d+) registers");

    static Stream<Arguments> shippedPtxAndArchitectures()
    {
        return new PtxResources().shipped().stream()
            .flatMap(base -> Stream.of(ARCHITECTURES).map(arch -> Arguments.of(base, arch)));
    }

    static Stream<String> shippedPtx()
    {
        return new PtxResources().shipped().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shippedPtx")
    void shouldDeclareAVersionThatCuda12DriversLoadWhenShipped(final String base)
    {
        final String version = PtxResources.version(new PtxResources().load(base));
        final String[] parts = version.split("\\.");
        final int tenths = Integer.parseInt(parts[0]) * 10 + Integer.parseInt(parts[1]);
        assertTrue(tenths <= 80, base + ".ptx declares .version " + version + ": CUDA 12 drivers load 8.0 at most " +
            "(rebuild it with cuda-src/build-ptx.sh)");
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("shippedPtxAndArchitectures")
    void shouldAssembleWithCuda12PtxCompilerWhenShipped(final String base, final String architecture)
    {
        final String text = new PtxResources().load(base);
        final String[] log = new String[1];
        final String error = assemble(text.getBytes(StandardCharsets.UTF_8), architecture, log);
        if (error != null)
        {
            fail(base + ".ptx does not assemble for " + architecture + " with JCuda's PTX compiler (CUDA " +
                compilerVersion() + "): " + error);
        }
        final Map<String, Integer> registers = registers(log[0]);
        final Map<String, Integer> bounds = PtxResources.launchBounds(text);
        for (final Map.Entry<String, Integer> entry : bounds.entrySet())
        {
            final String name = entry.getKey();
            final int threads = entry.getValue();
            final Integer used = registers.get(name);
            assertTrue(used != null, () -> "no register count for " + name + " in the compiler's log");
            final long perBlock = (used + 7L) / 8 * 8 * ((threads + 31) / 32 * 32);
            assertTrue(perBlock <= REGISTERS_PER_BLOCK, () -> base + ".ptx " + name + " on " + architecture + ": " +
                used + " registers x " + threads + " threads = " + perBlock + " > " + REGISTERS_PER_BLOCK +
                ": a block of its most threads would not launch (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); give it a " +
                "launch bound");
        }
        assertEquals(bounds.keySet(), registers.keySet(), "register counts for every entry, and only those");
    }

    @Test
    void shouldRefusePtxWhenItsVersionIsTooNew()
    {
        // the check above must be able to fail: the compiler refuses the .version nvcc 13 writes
        final String ptx = ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
        final String error = assemble(ptx.getBytes(StandardCharsets.US_ASCII), "sm_75");
        assertTrue(error != null && error.contains("9.0"), () -> "expected a refusal of .version 9.0, got " + error);
    }

    /** @return null when the PTX assembles, else the compiler's result and error log. */
    private static String assemble(final byte[] ptx, final String architecture)
    {
        return assemble(ptx, architecture, new String[1]);
    }

    /**
     * @param info gets the compiler's verbose info log when the PTX assembles.
     * @return null when the PTX assembles, else the compiler's result and error log.
     */
    private static String assemble(final byte[] ptx, final String architecture, final String[] info)
    {
        final nvPTXCompilerHandle compiler = new nvPTXCompilerHandle();
        assertEquals(nvPTXCompileResult.NVPTXCOMPILE_SUCCESS,
            JNvPTXCompiler.nvPTXCompilerCreate(compiler, ptx.length, ptx), "nvPTXCompilerCreate");
        try
        {
            final int result = JNvPTXCompiler.nvPTXCompilerCompile(compiler, 2,
                new String[] { "--gpu-name=" + architecture, "--verbose" });
            if (result != nvPTXCompileResult.NVPTXCOMPILE_SUCCESS)
            {
                return nvPTXCompileResult.stringFor(result) + "\n" + errorLog(compiler);
            }
            final long[] size = new long[1];
            assertEquals(nvPTXCompileResult.NVPTXCOMPILE_SUCCESS,
                JNvPTXCompiler.nvPTXCompilerGetCompiledProgramSize(compiler, size));
            assertTrue(size[0] > 0, "the compiler produced an empty program");
            info[0] = infoLog(compiler);
            return null;
        }
        finally
        {
            JNvPTXCompiler.nvPTXCompilerDestroy(compiler);
        }
    }

    /** @return each entry's registers, from a verbose log: "Compiling entry function 'k'" ... "Used N registers". */
    private static Map<String, Integer> registers(final String log)
    {
        final Map<String, Integer> registers = new HashMap<>();
        String entry = null;
        for (final String line : log.split("\n"))
        {
            final Matcher compiling = COMPILING.matcher(line);
            if (compiling.find())
            {
                entry = compiling.group(1);
                continue;
            }
            final Matcher used = USED.matcher(line);
            if (entry != null && used.find())
            {
                registers.put(entry, Integer.parseInt(used.group(1)));
                entry = null;
            }
        }
        return registers;
    }

    private static String infoLog(final nvPTXCompilerHandle compiler)
    {
        return log(compiler, true, "");
    }

    private static String errorLog(final nvPTXCompilerHandle compiler)
    {
        return log(compiler, false, "(no error log)");
    }

    /** @return the compiler's info or error log, without its trailing zeros; {@code none} when it has none. */
    private static String log(final nvPTXCompilerHandle compiler, final boolean info, final String none)
    {
        final long[] size = new long[1];
        final int sized = info ? JNvPTXCompiler.nvPTXCompilerGetInfoLogSize(compiler, size) :
            JNvPTXCompiler.nvPTXCompilerGetErrorLogSize(compiler, size);
        if (sized != nvPTXCompileResult.NVPTXCOMPILE_SUCCESS || size[0] <= 0)
        {
            return none;
        }
        final byte[] log = new byte[(int)size[0]];
        if (info)
        {
            JNvPTXCompiler.nvPTXCompilerGetInfoLog(compiler, log);
        }
        else
        {
            JNvPTXCompiler.nvPTXCompilerGetErrorLog(compiler, log);
        }
        int length = log.length;
        while (length > 0 && log[length - 1] == 0)
        {
            length--;
        }
        return new String(log, 0, length, StandardCharsets.UTF_8);
    }

    private static String compilerVersion()
    {
        final int[] major = new int[1];
        final int[] minor = new int[1];
        JNvPTXCompiler.nvPTXCompilerGetVersion(major, minor);
        return major[0] + "." + minor[0];
    }
}
