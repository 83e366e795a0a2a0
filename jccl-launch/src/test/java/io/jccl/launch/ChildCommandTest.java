package io.jccl.launch;

import io.jccl.UniqueId;
import io.jccl.transport.bootstrap.LaunchEnvironment;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ChildCommandTest
{
    private static final UniqueId ID = UniqueId.create("127.0.0.1", 40_123);

    @Test
    void shouldGiveEachChildItsRankAndTheSharedRendezvousWhenOneHostMakesIt()
    {
        final ChildCommand command = new ChildCommand(List.of("java", "Main", "x"), ChildCommand.World.oneHost(3, ID),
            CpuBinding.UNBOUND);
        for (int rank = 0; rank < 3; rank++)
        {
            final ProcessBuilder builder = command.processBuilder(rank);
            assertEquals(List.of("java", "Main", "x"), builder.command());
            final Map<String, String> env = builder.environment();
            assertEquals(Integer.toString(rank), env.get("RANK"));
            assertEquals("3", env.get("WORLD_SIZE"));
            assertEquals(Integer.toString(rank), env.get("LOCAL_RANK"));
            assertEquals("3", env.get("LOCAL_WORLD_SIZE"));
            assertEquals("127.0.0.1", env.get("MASTER_ADDR"));
            assertEquals("40123", env.get("MASTER_PORT"));
            assertEquals(ID.toString(), env.get("JCCL_COMM_ID"));
            assertEquals(System.getenv("PATH"), env.get("PATH"), "the rest is inherited");
            // what the child reads back, through jccl's own resolution
            final LaunchEnvironment launch = LaunchEnvironment.detect(env);
            assertEquals(rank, launch.rank());
            assertEquals(3, launch.size());
            assertEquals(ID, launch.uniqueId());
        }
        assertThrows(IllegalArgumentException.class, () -> command.processBuilder(3));
    }

    @Test
    void shouldNumberRanksByHostAndLeaveTheSecretToEachHostWhenSeveralHostsMeet()
    {
        final ChildCommand.World world = new ChildCommand.World(2, 3, 2, "node0", 29_500, null);
        assertEquals(6, world.size());
        assertEquals(4, world.rank(0));
        assertEquals(5, world.rank(1));
        final Map<String, String> env = world.environment(1);
        assertEquals("5", env.get("RANK"));
        assertEquals("6", env.get("WORLD_SIZE"));
        assertEquals("1", env.get("LOCAL_RANK"));
        assertEquals("2", env.get("LOCAL_WORLD_SIZE"));
        assertEquals("node0", env.get("MASTER_ADDR"));
        assertNull(env.get("JCCL_COMM_ID"), "a random secret made here would differ on every host");
    }

    @Test
    void shouldNameTheFlagWhenTheWorldIsOutOfRange()
    {
        assertEquals("--nprocs 0 must be at least 1", assertThrows(IllegalArgumentException.class,
            () -> new ChildCommand.World(0, 1, 0, "h", 1, null)).getMessage());
        assertEquals("--nnodes 0 must be at least 1", assertThrows(IllegalArgumentException.class,
            () -> new ChildCommand.World(1, 0, 0, "h", 1, null)).getMessage());
        assertEquals("--node-rank 2 is outside 0..1", assertThrows(IllegalArgumentException.class,
            () -> new ChildCommand.World(1, 2, 2, "h", 1, null)).getMessage());
        assertEquals("--master-port 70000 is outside 1..65535", assertThrows(IllegalArgumentException.class,
            () -> new ChildCommand.World(1, 1, 0, "h", 70_000, null)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ChildCommand(List.of(),
            ChildCommand.World.oneHost(1, ID), CpuBinding.UNBOUND));
    }

    @Test
    void shouldGiveEachChildItsShareOfTheCpusAsOpenMpThreadsUnlessTheLauncherWasGivenACount()
    {
        final int cpus = Runtime.getRuntime().availableProcessors();
        for (final int nprocs : new int[] {1, 2, cpus, cpus + 1})
        {
            final ChildCommand command = new ChildCommand(List.of("x"), ChildCommand.World.oneHost(nprocs, ID),
                CpuBinding.UNBOUND);
            final String expected = Integer.toString(Math.max(1, cpus / nprocs));
            assertEquals(expected, command.environment(0, Map.of()).get("OMP_NUM_THREADS"), nprocs + " processes");
            assertEquals("5", command.environment(0, Map.of("OMP_NUM_THREADS", "5")).get("OMP_NUM_THREADS"),
                "the launcher's own count stays");
        }
    }

    @Test
    void shouldWinOverAnotherLaunchersVariablesWhenTheLauncherRunsInsideOne()
    {
        final Map<String, String> outer = new HashMap<>(Map.of("JCCL_RANK", "7", "JCCL_WORLD_SIZE", "8",
            "SLURM_PROCID", "0", "SLURM_NTASKS", "8", "MASTER_ADDR", "10.0.0.1", "MASTER_PORT", "29500",
            "JCCL_COMM_ID", UniqueId.create("10.0.0.1", 1).toString()));
        final ChildCommand command = new ChildCommand(List.of("x"), ChildCommand.World.oneHost(2, ID),
            CpuBinding.UNBOUND);
        final Map<String, String> env = command.environment(1, outer);
        final LaunchEnvironment launch = LaunchEnvironment.detect(env);
        assertEquals(1, launch.rank());
        assertEquals(2, launch.size());
        assertEquals(ID, launch.uniqueId());
        assertNull(env.get("JCCL_RANK"));
        assertNull(env.get("SLURM_PROCID"));
    }
}
