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
}
