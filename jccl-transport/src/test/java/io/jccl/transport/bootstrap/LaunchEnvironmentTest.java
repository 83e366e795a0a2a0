package io.jccl.transport.bootstrap;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LaunchEnvironmentTest
{
    private static final String SECRET_HEX = "00112233445566778899aabbccddeeff";

    @Test
    void shouldTakeRankAndSizeFromTheFirstLauncherPresent()
    {
        final Map<String, String> env = address(new HashMap<>());
        env.put("SLURM_PROCID", "5");
        env.put("SLURM_NTASKS", "16");
        env.put("SLURM_LOCALID", "1");
        env.put("PMI_RANK", "4");
        env.put("PMI_SIZE", "15");
        env.put("OMPI_COMM_WORLD_RANK", "3");
        env.put("OMPI_COMM_WORLD_SIZE", "14");
        env.put("OMPI_COMM_WORLD_LOCAL_RANK", "2");
        env.put("OMPI_COMM_WORLD_LOCAL_SIZE", "7");
        env.put("RANK", "2");
        env.put("WORLD_SIZE", "13");
        env.put("LOCAL_RANK", "1");
        env.put("LOCAL_WORLD_SIZE", "4");
        env.put("JCCL_RANK", "1");
        env.put("JCCL_WORLD_SIZE", "12");

        final LaunchEnvironment explicit = LaunchEnvironment.resolve(env, 6, 11);
        assertEquals(List.of(6, 11, LaunchEnvironment.UNKNOWN, LaunchEnvironment.UNKNOWN), ranks(explicit));
        assertTrue(explicit.source().startsWith("rank and size from explicit arguments"), explicit.source());

        expect(env, List.of(1, 12, LaunchEnvironment.UNKNOWN, LaunchEnvironment.UNKNOWN), "JCCL (JCCL_RANK");
        env.remove("JCCL_RANK");
        env.remove("JCCL_WORLD_SIZE");
        expect(env, List.of(2, 13, 1, 4), "torchrun (RANK");
        env.remove("RANK");
        env.remove("WORLD_SIZE");
        expect(env, List.of(3, 14, 2, 7), "Open MPI (OMPI_COMM_WORLD_RANK");
        env.remove("OMPI_COMM_WORLD_RANK");
        env.remove("OMPI_COMM_WORLD_SIZE");
        expect(env, List.of(4, 15, LaunchEnvironment.UNKNOWN, LaunchEnvironment.UNKNOWN), "PMI (PMI_RANK");
        env.remove("PMI_RANK");
        env.remove("PMI_SIZE");
        expect(env, List.of(5, 16, 1, LaunchEnvironment.UNKNOWN), "Slurm (SLURM_PROCID");
    }

    @Test
    void shouldTakeLocalRanksFromJcclWhenGiven()
    {
        final Map<String, String> env = address(new HashMap<>());
        env.put("JCCL_RANK", "3");
        env.put("JCCL_WORLD_SIZE", "4");
        env.put("JCCL_LOCAL_RANK", "1");
        env.put("JCCL_LOCAL_WORLD_SIZE", "2");
        expect(env, List.of(3, 4, 1, 2), "JCCL");
    }

    @Test
    void shouldTakeTheWholeIdFromJcclCommIdFirst()
    {
        final Map<String, String> env = ranks(new HashMap<>());
        env.put("JCCL_COMM_ID", "10.0.0.1:29500/" + SECRET_HEX);
        env.put("MASTER_ADDR", "10.0.0.2");
        env.put("MASTER_PORT", "29501");
        env.put("JCCL_MASTER_ADDR", "10.0.0.3");
        env.put("JCCL_PORT", "29502");
        env.put("SLURM_JOB_ID", "77");
        final LaunchEnvironment launch = LaunchEnvironment.resolve(env);
        assertEquals(UniqueId.parse("10.0.0.1:29500/" + SECRET_HEX), launch.uniqueId());
        assertTrue(launch.source().contains("rendezvous and secret from JCCL_COMM_ID"), launch.source());
        assertFalse(launch.source().contains(SECRET_HEX), launch.source());

        env.remove("JCCL_COMM_ID");
        final UniqueId master = LaunchEnvironment.resolve(env).uniqueId();
        assertEquals("10.0.0.2", master.host());
        assertEquals(29501, master.port());
        assertTrue(LaunchEnvironment.resolve(env).source().contains("MASTER_ADDR/MASTER_PORT"));

        env.remove("MASTER_ADDR");
        env.remove("MASTER_PORT");
        final UniqueId jccl = LaunchEnvironment.resolve(env).uniqueId();
        assertEquals("10.0.0.3", jccl.host());
        assertEquals(29502, jccl.port());
        assertTrue(LaunchEnvironment.resolve(env).source().contains("JCCL_MASTER_ADDR/JCCL_PORT"));

        env.remove("JCCL_MASTER_ADDR");
        assertEquals(LaunchEnvironment.DEFAULT_HOST, LaunchEnvironment.resolve(env).uniqueId().host());
    }

    @Test
    void shouldRequireAHostWhenTheRanksSpanSeveralHosts()
    {
        final Map<String, String> env = new HashMap<>();
        env.put("RANK", "0");
        env.put("WORLD_SIZE", "4");
        env.put("LOCAL_RANK", "0");
        env.put("LOCAL_WORLD_SIZE", "2");
        env.put("JCCL_PORT", "29500");
        env.put("JCCL_SECRET", "s");
        assertNames(env, "JCCL_MASTER_ADDR");
        env.put("LOCAL_WORLD_SIZE", "4");
        assertEquals(LaunchEnvironment.DEFAULT_HOST, LaunchEnvironment.resolve(env).uniqueId().host());
    }

    @Test
    void shouldDeriveTheSecretFromTheJobIdAndJcclSecret() throws Exception
    {
        final Map<String, String> env = ranks(new HashMap<>());
        env.put("MASTER_ADDR", "node0");
        env.put("MASTER_PORT", "29500");
        env.put("SLURM_JOB_ID", "1234");
        final byte[] slurm = LaunchEnvironment.resolve(env).uniqueId().secret();
        assertArrayEquals(sha256First16("1234/"), slurm);
        assertArrayEquals(slurm, LaunchEnvironment.resolve(new HashMap<>(env)).uniqueId().secret());
        assertTrue(LaunchEnvironment.resolve(env).source().contains("secret derived from SLURM_JOB_ID (weak"));

        env.put("SLURM_JOB_ID", "1235");
        assertFalse(Arrays.equals(slurm, LaunchEnvironment.resolve(env).uniqueId().secret()));

        env.put("TORCHELASTIC_RUN_ID", "run-9");
        assertArrayEquals(sha256First16("run-9/"), LaunchEnvironment.resolve(env).uniqueId().secret());

        env.put("JCCL_SECRET", "hush");
        assertArrayEquals(sha256First16("run-9/hush"), LaunchEnvironment.resolve(env).uniqueId().secret());
        assertTrue(LaunchEnvironment.resolve(env).source().contains("TORCHELASTIC_RUN_ID and JCCL_SECRET"));

        env.remove("TORCHELASTIC_RUN_ID");
        env.remove("SLURM_JOB_ID");
        assertArrayEquals(sha256First16("/hush"), LaunchEnvironment.resolve(env).uniqueId().secret());

        env.remove("JCCL_SECRET");
        env.put("OMPI_MCA_ess_base_jobid", "5");
        assertArrayEquals(sha256First16("5/"), LaunchEnvironment.resolve(env).uniqueId().secret());
        env.remove("OMPI_MCA_ess_base_jobid");
        env.put("PMIX_NAMESPACE", "ns");
        assertArrayEquals(sha256First16("ns/"), LaunchEnvironment.resolve(env).uniqueId().secret());
    }

    @Test
    void shouldRefuseAnOpenRendezvousWhenThereIsNoSecret()
    {
        final Map<String, String> env = ranks(new HashMap<>());
        env.put("MASTER_ADDR", "node0");
        env.put("MASTER_PORT", "29500");
        final String message = assertNames(env, "JCCL_SECRET");
        assertTrue(message.contains("anyone"), message);
        for (final String variable : List.of("JCCL_COMM_ID", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID",
            "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE"))
        {
            assertTrue(message.contains(variable), message);
        }
    }

    @Test
    void shouldNameTheVariableWhenAValueIsBad()
    {
        assertNames(with("RANK", "one"), "RANK");
        assertNames(with("WORLD_SIZE", "x"), "WORLD_SIZE");
        assertNames(with("RANK", "4"), "RANK=4");
        assertNames(with("RANK", "-1"), "RANK=-1");
        assertNames(with("WORLD_SIZE", "0"), "WORLD_SIZE=0");
        assertNames(with("LOCAL_RANK", "2"), "LOCAL_RANK=2");
        assertNames(with("LOCAL_WORLD_SIZE", "9"), "LOCAL_WORLD_SIZE=9");
        assertNames(with("MASTER_PORT", "70000"), "MASTER_PORT=70000");
        assertNames(with("MASTER_PORT", "port"), "MASTER_PORT");
        assertNames(with("JCCL_COMM_ID", "nonsense"), "JCCL_COMM_ID");

        final Map<String, String> noSize = with("RANK", "1");
        noSize.remove("WORLD_SIZE");
        assertNames(noSize, "WORLD_SIZE is not");

        final Map<String, String> noPort = with("MASTER_ADDR", "node0");
        noPort.remove("MASTER_PORT");
        assertNames(noPort, "MASTER_PORT");

        final Map<String, String> noAddress = with("RANK", "1");
        noAddress.remove("MASTER_ADDR");
        noAddress.remove("MASTER_PORT");
        final String message = assertNames(noAddress, "JCCL_COMM_ID");
        assertTrue(message.contains("MASTER_ADDR") && message.contains("JCCL_PORT"), message);

        assertTrue(assertThrows(JcclInvalidArgumentException.class, () -> LaunchEnvironment.resolve(Map.of()))
            .getMessage().contains("JCCL_RANK"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> LaunchEnvironment.resolve(with("RANK", "0"), 2, 2)).getMessage().contains("rank=2"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> LaunchEnvironment.resolve(with("RANK", "0"), 0, 0)).getMessage().contains("size=0"));
    }

    /** torchrun's variables for rank 1 of 2, two per host, with an address and a job id; one value replaced. */
    private static Map<String, String> with(final String variable, final String value)
    {
        final Map<String, String> env = new HashMap<>();
        env.put("RANK", "1");
        env.put("WORLD_SIZE", "4");
        env.put("LOCAL_RANK", "1");
        env.put("LOCAL_WORLD_SIZE", "2");
        env.put("MASTER_ADDR", "node0");
        env.put("MASTER_PORT", "29500");
        env.put("TORCHELASTIC_RUN_ID", "run");
        env.put(variable, value);
        return env;
    }

    private static Map<String, String> ranks(final Map<String, String> env)
    {
        env.put("JCCL_RANK", "0");
        env.put("JCCL_WORLD_SIZE", "2");
        return env;
    }

    private static Map<String, String> address(final Map<String, String> env)
    {
        env.put("JCCL_COMM_ID", "127.0.0.1:29500/" + SECRET_HEX);
        return env;
    }

    private static void expect(final Map<String, String> env, final List<Integer> expected, final String source)
    {
        final LaunchEnvironment launch = LaunchEnvironment.resolve(env);
        assertEquals(expected, ranks(launch), launch.source());
        assertTrue(launch.source().startsWith("rank and size from " + source), launch.source());
    }

    private static List<Integer> ranks(final LaunchEnvironment launch)
    {
        return List.of(launch.rank(), launch.size(), launch.localRank(), launch.localSize());
    }

    private static String assertNames(final Map<String, String> env, final String text)
    {
        final JcclInvalidArgumentException ex =
            assertThrows(JcclInvalidArgumentException.class, () -> LaunchEnvironment.resolve(env));
        assertTrue(ex.getMessage().contains(text), ex.getMessage());
        return ex.getMessage();
    }

    private static byte[] sha256First16(final String text) throws Exception
    {
        return Arrays.copyOf(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)), 16);
    }
}
