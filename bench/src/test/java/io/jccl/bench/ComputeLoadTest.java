package io.jccl.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --load matmul:THREADS}: its parsing, its arithmetic, and threads that start and stop with it. */
class ComputeLoadTest
{
    @Test
    @Timeout(60)
    void shouldRunItsThreadsUntilClosedWhenStarted()
    {
        final ComputeLoad load = ComputeLoad.start(ComputeLoad.Spec.parse("matmul:3"));
        try
        {
            assertEquals(3, load.liveThreads());
            assertEquals(3, liveLoadThreads());
        }
        finally
        {
            load.close();
        }
        assertEquals(0, load.liveThreads());
        assertEquals(0, liveLoadThreads());
        final long products = load.products();
        load.close();
        assertEquals(products, load.products(), "closed: no thread multiplies any more");
    }

    @Test
    @Timeout(60)
    void shouldRunTheBodyUnderTheLoadAndStopItAfterwardsWhenDuring()
    {
        assertEquals(2L, ComputeLoad.during(ComputeLoad.Spec.parse("matmul:2"), ComputeLoadTest::liveLoadThreads));
        assertEquals(0, liveLoadThreads());
        assertEquals(0L, ComputeLoad.during(null, ComputeLoadTest::liveLoadThreads), "no load asked for");
        assertThrows(IllegalStateException.class, () -> ComputeLoad.during(ComputeLoad.Spec.parse("matmul:1"), () ->
        {
            throw new IllegalStateException("the body failed");
        }));
        assertEquals(0, liveLoadThreads(), "a failing body stops the load too");
    }

    @Test
    void shouldMultiplyRowMajorMatricesWhenMultiply()
    {
        final float[] a = {1, 2, 3, 4};
        final float[] b = {5, 6, 7, 8};
        final float[] c = {9, 9, 9, 9};
        ComputeLoad.multiply(a, b, c, 2);
        assertArrayEquals(new float[] {19, 22, 43, 50}, c);
    }

    @Test
    void shouldParseThreadsAndRefuseOtherFormsNamingTheFlag()
    {
        final ComputeLoad.Spec spec = ComputeLoad.Spec.parse("matmul:0x4");
        assertEquals(new ComputeLoad.Spec("matmul", 4), spec);
        assertEquals("matmul 256x256 float on 4 daemon threads", spec.describe());
        assertEquals("matmul 256x256 float on 1 daemon thread", ComputeLoad.Spec.parse("MATMUL:1").describe());

        assertEquals("--load 'matmul:0': THREADS 0 is outside 1..1024", rejection("matmul:0"));
        assertEquals("--load matmul:0: THREADS is outside 1..1024",
            assertThrows(IllegalArgumentException.class, () -> new ComputeLoad.Spec("matmul", 0)).getMessage());
        assertEquals("--load 'matmul:-2': THREADS -2 is outside 1..1024", rejection("matmul:-2"));
        assertEquals("--load 'matmul' is not of the form matmul:THREADS", rejection("matmul"));
        assertEquals("--load 'matmul:two': THREADS 'two' is not an integer", rejection("matmul:two"));
        assertEquals("--load kind 'gemm' is not matmul", rejection("gemm:2"));
    }

    private static String rejection(final String text)
    {
        return assertThrows(IllegalArgumentException.class, () -> ComputeLoad.Spec.parse(text)).getMessage();
    }

    /** @return the threads of any load alive in this JVM, by their name. */
    static long liveLoadThreads()
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().startsWith("jccl-bench-load-") && t.isAlive()).count();
    }

    @Test
    void shouldBeDaemonThreadsSoThatTheyNeverHoldTheJvm()
    {
        final ComputeLoad load = ComputeLoad.start(new ComputeLoad.Spec("matmul", 1));
        try
        {
            assertTrue(Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("jccl-bench-load-")).allMatch(Thread::isDaemon));
        }
        finally
        {
            load.close();
        }
    }
}
