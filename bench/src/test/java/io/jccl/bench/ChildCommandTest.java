package io.jccl.bench;

import io.jccl.UniqueId;
import io.jccl.transport.bootstrap.LaunchEnvironment;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ChildCommandTest
{
    private static final UniqueId ID = UniqueId.create("127.0.0.1", 40_123);

    @Test
    void shouldRunTheSameClassPathAndToolWithTheScriptsJvmOptionsWhenGivenClassPathEntry()
    {
        final ChildCommand command = new ChildCommand("/jdk/bin/java",
            ChildCommand.jvmOptions(Map.of("JCCL_BENCH_JAVA_OPTS", "  -Xmx2g  -XX:+UseSerialGC ")),
            ChildCommand.classpathEntry("a.jar:b/classes", JcclBench.class.getName()),
            List.of("all_reduce_perf", "-b", "8", "-e", "1M"), 2, ID);
        assertEquals(List.of("/jdk/bin/java", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx2g",
            "-XX:+UseSerialGC", "-cp", "a.jar:b/classes", "io.jccl.bench.JcclBench", "all_reduce_perf", "-b", "8",
            "-e", "1M"), command.command());
    }

    @Test
    void shouldCompileInTheAskingThreadWhenBoundToACpuUnlessTheJavaOptionsSayOtherwise()
    {
        final CpuBinding bound = CpuBinding.resolve(CpuBinding.CORE, 2, List.of(0, 1), "/usr/bin/taskset");
        final ChildCommand command = new ChildCommand("java",
            ChildCommand.jvmOptions(Map.of("JCCL_BENCH_JAVA_OPTS", "-XX:+BackgroundCompilation")),
            ChildCommand.jarEntry(Path.of("/x/jccl-bench.jar")), List.of("all_reduce_perf"), 2, ID, bound);
        assertEquals(List.of("/usr/bin/taskset", "-c", "1", "java", "-Xbatch", "--add-exports",
            "java.base/jdk.internal.misc=ALL-UNNAMED", "-XX:+BackgroundCompilation", "-jar", "/x/jccl-bench.jar",
            "all_reduce_perf"), command.command(1), "the option first, so that the user's come after it");
        final ChildCommand unbound = new ChildCommand("java", ChildCommand.jvmOptions(Map.of()),
            ChildCommand.jarEntry(Path.of("/x/jccl-bench.jar")), List.of("all_reduce_perf"), 2, ID,
            CpuBinding.resolve(CpuBinding.NONE, 2, List.of(0, 1), "/usr/bin/taskset"));
        assertEquals(List.of("java", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-jar",
            "/x/jccl-bench.jar", "all_reduce_perf"), unbound.command(1), "children that float compile in the background");
    }

    @Test
    void shouldRunTheJarWhenGivenJarEntry()
    {
        final ChildCommand command = new ChildCommand("java", ChildCommand.jvmOptions(Map.of()),
            ChildCommand.jarEntry(Path.of("/x/jccl-bench.jar")), List.of("all_gather_perf"), 3, ID);
        assertEquals(List.of("java", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-jar",
            "/x/jccl-bench.jar", "all_gather_perf"), command.command());
    }

    @Test
    void shouldRunThisJvmsJavaAndClassPathWhenEntryIsCurrent()
    {
        assertEquals(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            ChildCommand.javaExecutable());
        // the tests run from classes directories, not from the shaded jar
        assertEquals(List.of("-cp", System.getProperty("java.class.path"), JcclBench.class.getName()),
            ChildCommand.currentEntry());
    }

    @Test
    void shouldGiveEachChildItsRankAndTheSharedRendezvousWhenBuildingItsEnvironment()
    {
        final ChildCommand command = new ChildCommand("java", List.of(), ChildCommand.jarEntry(Path.of("b.jar")),
            List.of("all_reduce_perf"), 3, ID);
        for (int rank = 0; rank < 3; rank++)
        {
            final Map<String, String> env = command.environment(rank);
            assertEquals(Map.of("JCCL_RANK", Integer.toString(rank), "JCCL_WORLD_SIZE", "3", "JCCL_LOCAL_RANK",
                Integer.toString(rank), "JCCL_LOCAL_WORLD_SIZE", "3", "JCCL_COMM_ID", ID.toString()), env);
            // what the child reads back, through jccl's own resolution
            final LaunchEnvironment launch = RankEnvironment.detect(env);
            assertEquals(rank, launch.rank());
            assertEquals(3, launch.size());
            assertEquals(ID, launch.uniqueId());

            final ProcessBuilder builder = command.processBuilder(rank);
            assertEquals(command.command(), builder.command());
            assertEquals(Integer.toString(rank), builder.environment().get("JCCL_RANK"));
            assertEquals(System.getenv("PATH"), builder.environment().get("PATH"));
        }
        assertThrows(IllegalArgumentException.class, () -> command.environment(3));
    }

    @Test
    void shouldWinOverAnotherLaunchersVariablesWhenTheLauncherRunsInsideOne()
    {
        final ChildCommand command = new ChildCommand("java", List.of(), ChildCommand.jarEntry(Path.of("b.jar")),
            List.of("all_reduce_perf"), 2, ID);
        final Map<String, String> env = new java.util.HashMap<>(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "8",
            "MASTER_ADDR", "10.0.0.1", "MASTER_PORT", "29500"));
        env.putAll(command.environment(1));
        final LaunchEnvironment launch = RankEnvironment.detect(env);
        assertEquals(1, launch.rank());
        assertEquals(2, launch.size());
        assertEquals(ID, launch.uniqueId());
    }
}
