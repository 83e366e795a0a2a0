package io.jccl.transport;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostCpusTest
{
    @Test
    void shouldReadKernelCpuListsWithRangesAndSingles()
    {
        assertEquals(List.of(0, 1), HostCpus.parse("0-1\n"));
        assertEquals(List.of(0, 1, 2, 3, 8, 10, 11), HostCpus.parse(" 0-3,8,10-11"));
        assertEquals(List.of(), HostCpus.parse(""));
        assertEquals("'0-x' is not a CPU list",
            assertThrows(IllegalArgumentException.class, () -> HostCpus.parse("0-x")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> HostCpus.parse("3-1"));
    }

    @Test
    void shouldCountAtLeastTheCpusThisProcessMayRunOn()
    {
        // a process bound to fewer CPUs still sees the host's: online counts them all
        assertTrue(HostCpus.online() >= Runtime.getRuntime().availableProcessors(),
            HostCpus.online() + " online, " + Runtime.getRuntime().availableProcessors() + " available");
    }

    @Test
    void shouldReadThisProcesssAffinityAmongTheOnlineCpus()
    {
        final List<Integer> allowed = HostCpus.allowed();
        assertTrue(!allowed.isEmpty() && allowed.size() <= HostCpus.online(), allowed + " of " + HostCpus.online());
        assertTrue(allowed.size() >= Runtime.getRuntime().availableProcessors(), "the JVM counts at most these");
    }

    @Test
    void shouldCountTheHostsCpusForABoundProcessAndTheJvmsOtherwise()
    {
        assertEquals(2, HostCpus.sharedByRanks(1, 2, 1), "mpirun --bind-to core: the peers run on the other CPU");
        assertEquals(8, HostCpus.sharedByRanks(2, 8, 2), "bound to 2 of 8");
        assertEquals(2, HostCpus.sharedByRanks(64, 64, 2), "a container's quota of 2 CPUs on a 64-CPU host");
        assertEquals(4, HostCpus.sharedByRanks(4, 4, 4));
        assertEquals(4, HostCpus.sharedByRanks(0, 16, 4), "affinity unknown: the JVM's count");
    }
}
