package io.jccl.bench;

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
    void shouldReadKernelCpuListsWithRangesAndSingles()
    {
        assertEquals(List.of(0, 1), CpuBinding.parseCpuList("0-1\n"));
        assertEquals(List.of(0, 1, 2, 3, 8, 10, 11), CpuBinding.parseCpuList(" 0-3,8,10-11"));
        assertEquals(List.of(), CpuBinding.parseCpuList(""));
        assertEquals("'0-x' is not a CPU list",
            assertThrows(IllegalArgumentException.class, () -> CpuBinding.parseCpuList("0-x")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> CpuBinding.parseCpuList("3-1"));
    }

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
    void shouldNoteCrowdingOnlyWhenChildrenOutnumberTheCpus()
    {
        final String note = CpuBinding.crowdingNote(4, 2);
        assertTrue(note.startsWith("note: 4 processes share 2 CPUs"), note);
        assertTrue(note.contains("-n 20000"), note);
        assertNull(CpuBinding.crowdingNote(2, 2));
        assertNull(CpuBinding.crowdingNote(1, 2));
        assertNull(CpuBinding.crowdingNote(4, 0));
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
    void shouldStartEachBoundChildUnderTasksetOnItsCpuCompilingInTheAskingThread()
    {
        final UniqueId id = UniqueId.create("127.0.0.1", 40_124);
        final ChildCommand command = new ChildCommand("java", List.of("-Xmx1g"),
            ChildCommand.jarEntry(Path.of("b.jar")), List.of("all_reduce_perf"), 2, id,
            CpuBinding.resolve(null, 2, List.of(2, 3), TASKSET));
        assertEquals(List.of("java", "-Xmx1g", "-jar", "b.jar", "all_reduce_perf"), command.command());
        assertEquals(List.of(TASKSET, "-c", "3", "java", ChildCommand.BOUND_JVM_OPTION, "-Xmx1g", "-jar", "b.jar",
            "all_reduce_perf"), command.processBuilder(1).command());
        assertThrows(IllegalArgumentException.class, () -> command.processBuilder(2));
    }

    @Test
    void shouldTakeBindToOutOfTheArgumentsOnlyBesideNprocs()
    {
        final ProcessLauncher.Split split = ProcessLauncher.split(new String[] {"--bind-to", "none", "all_reduce_perf",
            "-b", "8", "--nprocs=2"});
        assertEquals(2, split.nprocs());
        assertEquals("none", split.bindTo());
        assertEquals(List.of("all_reduce_perf", "-b", "8"), split.rest());
        assertEquals("core", ProcessLauncher.split(new String[] {"--nprocs", "2", "x", "--bind-to=core"}).bindTo());
        assertNull(ProcessLauncher.split(new String[] {"--nprocs", "2", "x"}).bindTo());
        assertEquals("--bind-to needs core or none", assertThrows(IllegalArgumentException.class,
            () -> ProcessLauncher.split(new String[] {"--nprocs", "2", "x", "--bind-to"})).getMessage());
        assertEquals("--bind-to is given twice", assertThrows(IllegalArgumentException.class,
            () -> ProcessLauncher.split(new String[] {"--nprocs", "2", "--bind-to=none", "x", "--bind-to", "core"}))
            .getMessage());
        assertEquals("--bind-to binds the processes of --nprocs, which is not given", assertThrows(
            IllegalArgumentException.class, () -> ProcessLauncher.split(new String[] {"x", "--bind-to", "core"}))
            .getMessage());
    }
}
