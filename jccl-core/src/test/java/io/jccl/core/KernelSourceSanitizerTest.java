package io.jccl.core;

import io.jccl.kernels.cuda.HostBuiltInterpreter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The interpreter kernel's own source under AddressSanitizer: built with {@code -fsanitize=address}, its runtime
 * preloaded into 3 JVMs that run {@link MultiProcessChild}'s grid on the device double, FIFOs mapped between them.
 * A read or write by the kernel or its launcher outside an allocation of the double's memory (whose allocations come
 * from malloc, so they carry the sanitizer's red zones), or of memory already freed, aborts that child with the
 * sanitizer's report, and the test fails showing it. Skipped, with the reason, where g++ or its sanitizer runtime is
 * absent. Built without optimisation: g++ takes 6 s so, 35 s at -O1, and the grid's run is short either way.
 */
class KernelSourceSanitizerTest
{
    /** The JVM raises and handles its own SIGSEGVs (null checks, safepoints): the sanitizer must leave them. */
    private static final String ASAN_OPTIONS = "detect_leaks=0:handle_segv=0:allow_user_segv_handler=1";

    @Test
    @Timeout(300)
    void shouldRunTheGridInThreeProcessesWithoutAnAddressSanitizerReport() throws Exception
    {
        final Path runtime = asanRuntime();
        assumeTrue(runtime != null, "g++ has no AddressSanitizer runtime (libasan.so)");
        final Path library;
        try
        {
            library = HostBuiltInterpreter.compile(Path.of("..", "cuda-src"), Path.of("target", "kernel-source"),
                "libjccl_interp_host_asan.so", List.of("-fsanitize=address", "-fno-omit-frame-pointer", "-g", "-O0"));
        }
        catch (final IOException ex)
        {
            assumeTrue(false, "g++ could not start (" + ex.getMessage() + ")");
            return;
        }
        MultiProcessTest.runCudaGrid(3, Map.of("LD_PRELOAD", runtime.toString(), "ASAN_OPTIONS", ASAN_OPTIONS,
            MultiProcessChild.KERNEL_SOURCE_ENV, library.toString()));
    }

    /** @return g++'s AddressSanitizer runtime, or null where g++ or the runtime is absent. */
    private static Path asanRuntime() throws InterruptedException
    {
        try
        {
            final Process g = new ProcessBuilder("g++", "-print-file-name=libasan.so").redirectErrorStream(true)
                .start();
            final String out = new String(g.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!g.waitFor(30, TimeUnit.SECONDS) || g.exitValue() != 0)
            {
                return null;
            }
            final Path path = Path.of(out);
            return path.isAbsolute() && Files.isRegularFile(path) ? path : null;
        }
        catch (final IOException ex)
        {
            return null;
        }
    }
}
