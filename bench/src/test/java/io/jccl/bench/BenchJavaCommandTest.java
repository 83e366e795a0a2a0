package io.jccl.bench;

import io.jccl.launch.CpuBinding;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchJavaCommandTest
{
    @Test
    void shouldRunTheSameClassPathAndToolWithTheScriptsJvmOptionsWhenGivenClassPathEntry()
    {
        assertEquals(List.of("jdk/bin/java", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx2g",
            "-XX:+UseSerialGC", "-cp", "a.jar:b/classes", "io.jccl.bench.JcclBench", "all_reduce_perf", "-b", "8",
            "-e", "1M"), BenchJavaCommand.command("jdk/bin/java", CpuBinding.UNBOUND,
            BenchJavaCommand.jvmOptions(Map.of("JCCL_BENCH_JAVA_OPTS", "  -Xmx2g  -XX:+UseSerialGC ")),
            BenchJavaCommand.classpathEntry("a.jar:b/classes", JcclBench.class.getName()),
            List.of("all_reduce_perf", "-b", "8", "-e", "1M")));
    }

    @Test
    void shouldCompileInTheAskingThreadWhenBoundToACpuUnlessTheJavaOptionsSayOtherwise()
    {
        final CpuBinding bound = CpuBinding.resolve(CpuBinding.CORE, 2, List.of(0, 1), "/usr/bin/taskset");
        assertEquals(List.of("java", "-Xbatch", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-XX:+BackgroundCompilation", "-jar", "target/jccl-bench.jar", "all_reduce_perf"),
            BenchJavaCommand.command("java", bound,
            BenchJavaCommand.jvmOptions(Map.of("JCCL_BENCH_JAVA_OPTS", "-XX:+BackgroundCompilation")),
            BenchJavaCommand.jarEntry(Path.of("target/jccl-bench.jar")), List.of("all_reduce_perf")),
            "the option first, so that the user's come after it");
        assertEquals(List.of("java", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-jar",
            "target/jccl-bench.jar", "all_reduce_perf"), BenchJavaCommand.command("java",
            CpuBinding.resolve(CpuBinding.NONE, 2, List.of(0, 1), "/usr/bin/taskset"),
            BenchJavaCommand.jvmOptions(Map.of()), BenchJavaCommand.jarEntry(Path.of("target/jccl-bench.jar")),
            List.of("all_reduce_perf")), "children that float compile in the background");
    }

    @Test
    void shouldRunThisJvmsJavaAndClassPathWhenEntryIsCurrent()
    {
        assertEquals(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            BenchJavaCommand.javaExecutable());
        // the tests run from classes directories, not from the shaded jar
        assertEquals(List.of("-cp", System.getProperty("java.class.path"), JcclBench.class.getName()),
            BenchJavaCommand.currentEntry());
    }

    @Test
    void shouldNoteCrowdingOnlyWhenChildrenOutnumberTheCpus()
    {
        final String note = JcclBench.crowdingNote(4, 2);
        assertTrue(note.startsWith("note: 4 processes share 2 CPUs"), note);
        assertTrue(note.contains("-n 20000"), note);
        assertNull(JcclBench.crowdingNote(2, 2));
        assertNull(JcclBench.crowdingNote(1, 2));
        assertNull(JcclBench.crowdingNote(4, 0));
    }
}
