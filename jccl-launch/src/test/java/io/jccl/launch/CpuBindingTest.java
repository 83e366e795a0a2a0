package io.jccl.launch;

import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuBindingTest
{
    private static final String TASKSET = "/usr/bin/taskset";

    @Test
    void shouldGiveEachChildTheNextAllowedCpuWhenNoMoreChildrenThanCpus()
    {
        final CpuBinding binding = CpuBinding.resolve(null, 2, List.of(4, 6, 7), TASKSET);
        assertTrue(binding.bound());
        assertEquals(List.of(TASKSET, "-c", "4"), binding.prefix(0));
        assertEquals(List.of(TASKSET, "-c", "6"), binding.prefix(1));
        assertEquals("bound to a CPU each (--bind-to core): rank 0 on CPU 4, rank 1 on CPU 6", binding.describe());
        assertTrue(CpuBinding.resolve("core", 3, List.of(4, 6, 7), TASKSET).bound());
    }

    @Test
    void shouldNotBindByDefaultWhenMoreChildrenThanCpusOrNoTaskset()
    {
        final CpuBinding crowded = CpuBinding.resolve(null, 4, List.of(0, 1), TASKSET);
        assertFalse(crowded.bound());
        assertEquals(List.of(), crowded.prefix(3));
        assertEquals("not bound (4 processes on 2 CPUs)", crowded.describe());
        assertEquals("not bound (no taskset on the PATH)", CpuBinding.resolve(null, 2, List.of(0, 1), null)
            .describe());
        assertEquals("not bound (--bind-to none)", CpuBinding.resolve("none", 2, List.of(0, 1), TASKSET).describe());
    }

    @Test
    void shouldRefuseCoreWhenItCannotBeDoneAndWordsItDoesNotKnow()
    {
        assertEquals("--bind-to core cannot bind: 3 processes on 2 CPUs", assertThrows(IllegalArgumentException.class,
            () -> CpuBinding.resolve("core", 3, List.of(0, 1), TASKSET)).getMessage());
        assertEquals("--bind-to core cannot bind: no taskset on the PATH", assertThrows(
            IllegalArgumentException.class, () -> CpuBinding.resolve("core", 1, List.of(0, 1), null)).getMessage());
        assertEquals("--bind-to 'socket' is neither core nor none", assertThrows(IllegalArgumentException.class,
            () -> CpuBinding.resolve("socket", 1, List.of(0, 1), TASKSET)).getMessage());
    }

    @Test
    void shouldFindTasksetOnlyWhereThePathHasAnExecutableOne() throws Exception
    {
        final Path dir = Files.createTempDirectory("jccl-taskset");
        try
        {
            assertNull(CpuBinding.findTaskset(Map.of("PATH", dir.toString())));
            final Path taskset = Files.writeString(dir.resolve("taskset"), "#!/bin/sh\n");
            assertNull(CpuBinding.findTaskset(Map.of("PATH", dir.toString())));
            assertTrue(taskset.toFile().setExecutable(true));
            assertEquals(taskset.toString(), CpuBinding.findTaskset(Map.of("PATH", "/nonexistent:" + dir)));
            assertNull(CpuBinding.findTaskset(Map.of()));
        }
        finally
        {
            Files.deleteIfExists(dir.resolve("taskset"));
            Files.delete(dir);
        }
    }

    @Test
    void shouldStartEachBoundChildUnderTasksetOnItsCpu()
    {
        final ChildCommand command = new ChildCommand(List.of("java", "-Xmx1g", "Main"),
            ChildCommand.World.oneHost(2, UniqueId.create("127.0.0.1", 40_124)),
            CpuBinding.resolve(null, 2, List.of(2, 3), TASKSET));
        assertEquals(List.of("java", "-Xmx1g", "Main"), command.command(-1));
        assertEquals(List.of(TASKSET, "-c", "3", "java", "-Xmx1g", "Main"), command.processBuilder(1).command());
        assertThrows(IllegalArgumentException.class, () -> command.processBuilder(2));
    }
}
