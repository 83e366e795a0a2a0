package io.jccl.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * A young collection on purpose, before the table: garbage is allocated until the JVM's collectors report one more
 * collection. {@code System.gc()} did that job before, but as a full collection that also shrank the heap to what was
 * live (G1: 58 MB to 40 MB with 6 MB live), so that the table's first 100 ms, with a young generation a tenth of the
 * warm-up's and the old one past G1's occupancy threshold at once, ran six pauses of 1-12 ms (young, a concurrent
 * cycle's remark and cleanup, mixed) where the warm-up had one every 200-300 ms. A young collection leaves the heap
 * as it grew.
 * <p>
 * Threading: one thread per process (the bench's thread 0) calls it.
 */
final class YoungCollection
{
    /** What is allocated at a time, in bytes. */
    private static final int PIECE_BYTES = 64 * 1024;

    /** The last piece, where the JIT cannot prove it unused and leave it out. */
    @SuppressWarnings("unused")
    private static volatile byte[] sink;

    private YoungCollection()
    {
    }

    /**
     * Allocates until a collection ran, at most the heap's maximum size; falls back to {@code System.gc()} where the
     * collectors do not count their collections, or none ran by then (a collector that never collects the young).
     *
     * @return true when the allocation brought a collection about, false when it fell back.
     */
    static boolean run()
    {
        final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        final long before = collections(collectors);
        if (before >= 0)
        {
            final long maxBytes = Runtime.getRuntime().maxMemory();
            for (long allocated = 0; allocated < maxBytes; allocated += PIECE_BYTES)
            {
                sink = new byte[PIECE_BYTES];
                if (collections(collectors) != before)
                {
                    sink = null;
                    return true;
                }
            }
        }
        sink = null;
        System.gc();
        return false;
    }

    /**
     * @return the collections all collectors ran so far, or -1 when one of them does not count or there is none (a
     *         JVM whose collector never collects, where allocating would only fill the heap).
     */
    static long collections(final List<GarbageCollectorMXBean> collectors)
    {
        long total = collectors.isEmpty() ? -1 : 0;
        for (final GarbageCollectorMXBean collector : collectors)
        {
            final long count = collector.getCollectionCount();
            if (count < 0)
            {
                return -1;
            }
            total += count;
        }
        return total;
    }
}
