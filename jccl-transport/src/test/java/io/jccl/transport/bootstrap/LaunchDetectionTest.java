package io.jccl.transport.bootstrap;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LaunchDetectionTest
{
    private static final UniqueId ID = UniqueId.create("127.0.0.1", 29_511);

    @Test
    void shouldRunInOneProcessWhenNoLauncherNamesARank()
    {
        assertNull(LaunchEnvironment.detect(Map.of()));
        assertNull(LaunchEnvironment.detect(Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29500")));
        assertEquals(-1, LaunchEnvironment.rankOf(Map.of()));
    }

    @Test
    void shouldRunInOneProcessWhenTheWorldIsOneRank()
    {
        assertNull(LaunchEnvironment.detect(Map.of("JCCL_RANK", "0", "JCCL_WORLD_SIZE", "1")));
        assertNull(LaunchEnvironment.detect(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", " 1 ")));
        assertNull(LaunchEnvironment.detect(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "1")));
        assertEquals(-1, LaunchEnvironment.rankOf(Map.of("PMI_RANK", "0", "PMI_SIZE", "1")));
    }

    @Test
    void shouldTakeRankSizeAndRendezvousWhenJcclLauncherVariablesSet()
    {
        final LaunchEnvironment launch = LaunchEnvironment.detect(Map.of("JCCL_RANK", "2", "JCCL_WORLD_SIZE", "3",
            "JCCL_LOCAL_RANK", "2", "JCCL_LOCAL_WORLD_SIZE", "3", "JCCL_COMM_ID", ID.toString()));
        assertNotNull(launch);
        assertEquals(2, launch.rank());
        assertEquals(3, launch.size());
        assertEquals(2, launch.localRank());
        assertEquals(ID, launch.uniqueId());
    }

    @Test
    void shouldTakeOpenMpiRankWhenMasterAddressAndSecretExported()
    {
        final Map<String, String> env = Map.of("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2",
            "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29500", "JCCL_SECRET", "s3cret");
        final LaunchEnvironment launch = LaunchEnvironment.detect(env);
        assertNotNull(launch);
        assertEquals(1, launch.rank());
        assertEquals(2, launch.size());
        assertEquals(29_500, launch.uniqueId().port());
        assertEquals(1, LaunchEnvironment.rankOf(env));
    }

    @Test
    void shouldTakeTorchrunPmiAndSlurmRanksWhenEachIsAlone()
    {
        final Map<String, String> address = Map.of("MASTER_PORT", "29500", "JCCL_SECRET", "s");
        assertEquals(3, LaunchEnvironment.detect(with(address, "RANK", "3", "WORLD_SIZE", "4")).rank());
        assertEquals(1, LaunchEnvironment.detect(with(address, "PMI_RANK", "1", "PMI_SIZE", "2")).rank());
        final LaunchEnvironment slurm = LaunchEnvironment.detect(with(address, "SLURM_PROCID", "1", "SLURM_NTASKS", "5"));
        assertEquals(1, slurm.rank());
        assertEquals(5, slurm.size());
    }

    @Test
    void shouldIgnoreRankWithoutWorldSizeWhenNoOtherLauncherIsPresent()
    {
        assertNull(LaunchEnvironment.detect(Map.of("RANK", "1")));
        assertEquals(-1, LaunchEnvironment.rankOf(Map.of("RANK", "1")));
    }

    @Test
    void shouldNameTheLauncherAndTheMissingAddressWhenMpiGaveNoRendezvous()
    {
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> LaunchEnvironment.detect(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2")));
        assertTrue(ex.getMessage().contains("OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 (Open MPI)"),
            ex.getMessage());
        assertTrue(ex.getMessage().contains("MASTER_ADDR and MASTER_PORT"), ex.getMessage());
    }

    @Test
    void shouldNameTheVariableWhenTheSizeIsNotANumber()
    {
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> LaunchEnvironment.detect(Map.of("JCCL_RANK", "0", "JCCL_WORLD_SIZE", "two",
            "JCCL_COMM_ID", ID.toString())));
        assertTrue(ex.getMessage().contains("JCCL_WORLD_SIZE='two'"), ex.getMessage());
    }

    @Test
    void shouldReadBackWhatALauncherGivesEachChildWhenOneHostMakesTheRendezvous()
    {
        for (int rank = 0; rank < 3; rank++)
        {
            final Map<String, String> env = LaunchEnvironment.variables(rank, 3, rank, 3, "127.0.0.1", 29_511, ID);
            assertEquals(Map.of("RANK", Integer.toString(rank), "WORLD_SIZE", "3", "LOCAL_RANK",
                Integer.toString(rank), "LOCAL_WORLD_SIZE", "3", "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29511",
                "JCCL_COMM_ID", ID.toString()), env);
            final LaunchEnvironment launch = LaunchEnvironment.detect(env);
            assertEquals(rank, launch.rank());
            assertEquals(3, launch.size());
            assertEquals(rank, launch.localRank());
            assertEquals(3, launch.localSize());
            assertEquals(ID, launch.uniqueId(), "the whole id, random secret included");
            assertEquals(rank, LaunchEnvironment.rankOf(env));
            assertTrue(LaunchEnvironment.launcherVariables().containsAll(env.keySet()), env::toString);
        }
    }

    @Test
    void shouldDeriveTheSameSecretOnEveryHostWhenSeveralHostsMeetWithoutACommId()
    {
        final Map<String, String> first = with(LaunchEnvironment.variables(1, 4, 1, 2, "node0", 29_500, null),
            "JCCL_SECRET", "s3cret");
        final Map<String, String> last = with(LaunchEnvironment.variables(3, 4, 1, 2, "node0", 29_500, null),
            "JCCL_SECRET", "s3cret");
        assertEquals(LaunchEnvironment.detect(first).uniqueId(), LaunchEnvironment.detect(last).uniqueId());
        assertEquals("node0", LaunchEnvironment.detect(last).uniqueId().host());
        assertEquals(3, LaunchEnvironment.detect(last).rank());
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> LaunchEnvironment.detect(LaunchEnvironment.variables(1, 4, 1, 2, "node0", 29_500, null)));
        assertTrue(ex.getMessage().contains("RANK=1 WORLD_SIZE=4 (torchrun)") &&
            ex.getMessage().contains("JCCL_SECRET"), ex.getMessage());
    }

    private static Map<String, String> with(final Map<String, String> base, final String... pairs)
    {
        final Map<String, String> env = new HashMap<>(base);
        for (int i = 0; i < pairs.length; i += 2)
        {
            env.put(pairs[i], pairs[i + 1]);
        }
        return env;
    }
}
