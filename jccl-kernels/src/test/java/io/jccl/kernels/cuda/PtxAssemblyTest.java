package io.jccl.kernels.cuda;

import jcuda.nvptxcompiler.JNvPTXCompiler;
import jcuda.nvptxcompiler.nvPTXCompileResult;
import jcuda.nvptxcompiler.nvPTXCompilerHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A CUDA 12 driver would load every shipped PTX: each declares a PTX ISA {@code .version} of at most 8.0 (nvcc 13
 * writes 9.0, which only CUDA 13 drivers take; build-ptx.sh rewrites it) and assembles for sm_75 (nvcc 13's oldest
 * target), sm_80 and sm_90 with the PTX compiler in JCuda's natives, which is CUDA 12.0's and needs no driver or GPU:
 * it refuses what a CUDA 12.0 driver's JIT would refuse.
 */
class PtxAssemblyTest
{
    private static final String[] ARCHITECTURES = { "sm_75", "sm_80", "sm_90" };

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
        final byte[] ptx = new PtxResources().load(base).getBytes(StandardCharsets.UTF_8);
        final String error = assemble(ptx, architecture);
        if (error != null)
        {
            fail(base + ".ptx does not assemble for " + architecture + " with JCuda's PTX compiler (CUDA " +
                compilerVersion() + "): " + error);
        }
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
        final nvPTXCompilerHandle compiler = new nvPTXCompilerHandle();
        assertEquals(nvPTXCompileResult.NVPTXCOMPILE_SUCCESS,
            JNvPTXCompiler.nvPTXCompilerCreate(compiler, ptx.length, ptx), "nvPTXCompilerCreate");
        try
        {
            final int result = JNvPTXCompiler.nvPTXCompilerCompile(compiler, 1,
                new String[] { "--gpu-name=" + architecture });
            if (result != nvPTXCompileResult.NVPTXCOMPILE_SUCCESS)
            {
                return nvPTXCompileResult.stringFor(result) + "\n" + errorLog(compiler);
            }
            final long[] size = new long[1];
            assertEquals(nvPTXCompileResult.NVPTXCOMPILE_SUCCESS,
                JNvPTXCompiler.nvPTXCompilerGetCompiledProgramSize(compiler, size));
            assertTrue(size[0] > 0, "the compiler produced an empty program");
            return null;
        }
        finally
        {
            JNvPTXCompiler.nvPTXCompilerDestroy(compiler);
        }
    }

    private static String errorLog(final nvPTXCompilerHandle compiler)
    {
        final long[] size = new long[1];
        if (JNvPTXCompiler.nvPTXCompilerGetErrorLogSize(compiler, size) != nvPTXCompileResult.NVPTXCOMPILE_SUCCESS ||
            size[0] <= 0)
        {
            return "(no error log)";
        }
        final byte[] log = new byte[(int)size[0]];
        JNvPTXCompiler.nvPTXCompilerGetErrorLog(compiler, log);
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
