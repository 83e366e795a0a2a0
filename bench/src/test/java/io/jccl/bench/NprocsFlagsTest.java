package io.jccl.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NprocsFlagsTest
{
    @Test
    void shouldTakeTheCountOutWhenNprocsIsBeforeOrAfterTheTool()
    {
        final NprocsFlags.Split before = NprocsFlags.split(new String[] {"--nprocs", "2", "all_reduce_perf",
            "-b", "8"});
        assertEquals(2, before.nprocs());
        assertEquals(List.of("all_reduce_perf", "-b", "8"), before.rest());
        final NprocsFlags.Split after = NprocsFlags.split(new String[] {"all_gather_perf", "-b", "8",
            "--nprocs=3"});
        assertEquals(3, after.nprocs());
        assertEquals(List.of("all_gather_perf", "-b", "8"), after.rest());
        assertEquals(0, NprocsFlags.split(new String[] {"all_reduce_perf"}).nprocs());
        assertTrue(NprocsFlags.given(new String[] {"x", "--nprocs=4"}));
        assertFalse(NprocsFlags.given(new String[] {"x", "--nprocsx"}));
    }

    @Test
    void shouldRefuseTheFlagWhenItsCountIsMissingBadOrRepeated()
    {
        assertMessage("--nprocs needs a process count", "all_reduce_perf", "--nprocs");
        assertMessage("--nprocs 0 must be at least 1", "--nprocs", "0", "all_reduce_perf");
        assertMessage("--nprocs 'two' is not a process count", "--nprocs", "two", "all_reduce_perf");
        assertMessage("--nprocs is given twice", "--nprocs", "2", "all_reduce_perf", "--nprocs=2");
    }

    @Test
    void shouldTakeBindToOutOfTheArgumentsOnlyBesideNprocs()
    {
        final NprocsFlags.Split split = NprocsFlags.split(new String[] {"--bind-to", "none", "all_reduce_perf",
            "-b", "8", "--nprocs=2"});
        assertEquals(2, split.nprocs());
        assertEquals("none", split.bindTo());
        assertEquals(List.of("all_reduce_perf", "-b", "8"), split.rest());
        assertEquals("core", NprocsFlags.split(new String[] {"--nprocs", "2", "x", "--bind-to=core"}).bindTo());
        assertNull(NprocsFlags.split(new String[] {"--nprocs", "2", "x"}).bindTo());
        assertEquals("--bind-to needs core or none", assertThrows(IllegalArgumentException.class,
            () -> NprocsFlags.split(new String[] {"--nprocs", "2", "x", "--bind-to"})).getMessage());
        assertEquals("--bind-to is given twice", assertThrows(IllegalArgumentException.class,
            () -> NprocsFlags.split(new String[] {"--nprocs", "2", "--bind-to=none", "x", "--bind-to", "core"}))
            .getMessage());
        assertEquals("--bind-to binds the processes of --nprocs, which is not given", assertThrows(
            IllegalArgumentException.class, () -> NprocsFlags.split(new String[] {"x", "--bind-to", "core"}))
            .getMessage());
    }

    private static void assertMessage(final String message, final String... args)
    {
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> NprocsFlags.split(args))
            .getMessage());
    }
}
