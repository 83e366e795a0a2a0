package io.jccl.bench;

import org.junit.jupiter.api.Test;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class YoungCollectionTest
{
    @Test
    void shouldBringAboutACollectionByAllocatingWhenCollectorsCount()
    {
        final List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
        final long before = YoungCollection.collections(collectors);
        assertTrue(before >= 0, "this JVM's collectors count their collections: " + collectors);
        final long fullBefore = fullCollections(collectors);
        assertTrue(YoungCollection.run(), "a collection came from the allocation, not from System.gc()");
        assertTrue(YoungCollection.collections(collectors) > before);
        // no full collection (the heap stays as it grew); G1's old generation counts only full ones
        assertEquals(fullBefore, fullCollections(collectors));
    }

    @Test
    void shouldNotCountWhenOneCollectorDoesNot()
    {
        assertEquals(12, YoungCollection.collections(List.of(collector(5), collector(7))));
        assertEquals(-1, YoungCollection.collections(List.of(collector(5), collector(-1))));
        assertEquals(-1, YoungCollection.collections(List.of()), "no collector: System.gc() instead of allocating");
    }

    private static long fullCollections(final List<GarbageCollectorMXBean> collectors)
    {
        return collectors.stream().filter(c -> c.getName().contains("Old") || c.getName().contains("MarkSweep"))
            .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
    }

    private static GarbageCollectorMXBean collector(final long count)
    {
        return (GarbageCollectorMXBean)Proxy.newProxyInstance(YoungCollectionTest.class.getClassLoader(),
            new Class<?>[] {GarbageCollectorMXBean.class},
            (proxy, method, args) -> "getCollectionCount".equals(method.getName()) ? count : null);
    }
}
