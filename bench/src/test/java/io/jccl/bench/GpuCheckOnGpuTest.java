package io.jccl.bench;

import io.jccl.kernels.cuda.CudaProbe;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GPU grid as a test, for a machine with a GPU and Maven ({@code -Djccl.test.excludedGroups=none -Dgroups=gpu}):
 * every collective x type x op x 1/2/4 ranks sharing the GPU x ring/tree x SIMPLE/LL on CUDA, bit for bit against
 * the host backend ({@link GpuCheckCommand}). The GPU machine itself has no JDK or Maven and runs the same check
 * through {@code bench/gpu-check.sh}; elsewhere this test is skipped with the probe's reason.
 */
@Tag("gpu")
class GpuCheckOnGpuTest
{
    @Test
    @Timeout(600)
    void shouldMatchTheHostBackendBitForBitOnTheGpu()
    {
        Assumptions.assumeTrue(CudaProbe.availability().available(),
            () -> "no GPU: " + CudaProbe.availability().reason());
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status = JcclBench.run(new String[] {"gpu-check"}, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        final String report = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, report);
        assertTrue(report.contains("RESULT grid_wrong_cases 0\n"), report);
    }
}
