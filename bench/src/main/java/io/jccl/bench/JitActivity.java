package io.jccl.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Whether this JVM's JIT compiled lately, from the total compilation time the JVM reports
 * ({@link CompilationMXBean#getTotalCompilationTime()}, milliseconds summed over the compiler threads). The bench's
 * JIT warm-up runs on while it did, so that no compilation takes a rank's CPU during the table. A JVM that does not
 * report it never counts as compiling.
 */
final class JitActivity
{
    private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
    private final boolean monitored = compiler != null && compiler.isCompilationTimeMonitoringSupported();
    private long lastTotalMs = -1;
    private long lastChangeNs;

    /**
     * @param nowNs   {@code System.nanoTime()} now.
     * @param quietMs how long without compiling counts as quiet.
     * @return true when the total compilation time grew within the last {@code quietMs} (as far as earlier calls
     *         saw: the first call counts as a change).
     */
    boolean compiledWithin(final long nowNs, final long quietMs)
    {
        if (!monitored)
        {
            return false;
        }
        final long totalMs = compiler.getTotalCompilationTime();
        if (totalMs != lastTotalMs)
        {
            lastTotalMs = totalMs;
            lastChangeNs = nowNs;
        }
        return nowNs - lastChangeNs < quietMs * 1_000_000L;
    }
}
