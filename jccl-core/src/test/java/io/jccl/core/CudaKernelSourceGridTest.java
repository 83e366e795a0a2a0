package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.Protocol;
import io.jccl.core.CollectiveGrid.GridCase;
import io.jccl.kernels.cuda.EmulatedCuda;
import io.jccl.kernels.cuda.HostBuiltInterpreter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The covering-array grid of {@link CudaEmulatedGridTest}, through the interpreter kernel's own source: the double's
 * launches run {@code cuda-src/interpreter.cu} compiled for the CPU ({@link HostBuiltInterpreter}), every block's
 * threads as host threads at once, instead of the Java model of the kernel. Every case runs with SIMPLE and with LL.
 * A change to the kernel that breaks a collective fails here though the model still passes. Skipped, with the
 * reason, where g++ or the JDK's JNI headers are absent.
 */
class CudaKernelSourceGridTest
{
    /** Host threads per block: a few, so that a 2-core machine runs 4 ranks' launches; the kernel covers any count. */
    private static final int THREADS = 4;
    private static final Map<String, Communicator[]> COMMUNICATORS = new HashMap<>();
    private static EmulatedCuda cuda;
    private static HostBuiltInterpreter interpreter;
    private static String skipReason;

    /**
     * @return the kernel source's library, built once per JVM; null where it cannot be built here
     *         ({@link #skipReason()} says why).
     * @throws Exception if g++ fails on the source, or is interrupted.
     */
    static synchronized Path library() throws Exception
    {
        if (interpreter == null && skipReason == null)
        {
            build();
        }
        return interpreter == null ? null : interpreter.library();
    }

    /** @return why the kernel source cannot be built here, or null. */
    static synchronized String skipReason()
    {
        return skipReason;
    }

    @BeforeAll
    static void buildKernel() throws Exception
    {
        library();
    }

    private static void build() throws Exception
    {
        try
        {
            interpreter = HostBuiltInterpreter.build(Path.of("..", "cuda-src"), Path.of("target", "kernel-source"));
        }
        catch (final IOException ex)
        {
            skipReason = "g++ could not start (" + ex.getMessage() + "): the host build of interpreter.cu needs it";
        }
        catch (final IllegalStateException ex)
        {
            if (!ex.getMessage().contains(" is absent"))
            {
                throw ex;
            }
            skipReason = ex.getMessage();
        }
    }

    static java.util.stream.Stream<Object[]> cases()
    {
        final List<GridCase> all = CollectiveGrid.ciCases();
        return all.stream().flatMap(c -> java.util.stream.Stream.of(new Object[] {c, Protocol.SIMPLE},
            new Object[] {c, Protocol.LL}));
    }

    @ParameterizedTest(name = "{index}: {0} {1}")
    @MethodSource("cases")
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldMatchReferenceThroughTheKernelsOwnSource(final GridCase gridCase, final Protocol protocol)
    {
        assumeTrue(interpreter != null, CudaKernelSourceGridTest::skipReason);
        synchronized (COMMUNICATORS)
        {
            if (cuda == null)
            {
                cuda = new EmulatedCuda().runKernelSource(interpreter, THREADS);
            }
        }
        CudaEmulatedGridTest.runCase(cuda, COMMUNICATORS, gridCase, protocol);
    }

    @AfterAll
    static void closeCommunicators()
    {
        CudaEmulatedGridTest.closeAll(COMMUNICATORS);
    }
}
