package io.jccl.bench;

import io.jccl.Settings;
import io.jccl.launch.CpuBinding;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The command line of each child JVM that {@code jccl-bench --nprocs N} starts through jccl-launch's
 * {@link io.jccl.launch.ProcessLauncher}: the java of this JVM ({@code java.home}), {@value #BOUND_JVM_OPTION} when
 * the children are bound to CPUs, the JVM options of the {@code jccl-bench} script ({@value #ADD_EXPORTS}
 * {@value #ADD_EXPORTS_VALUE}, then {@code $JCCL_BENCH_JAVA_OPTS}), the same jar ({@code -jar}) or class path and
 * main class ({@code -cp}), and the tool with its flags. The launcher adds each child's rank and rendezvous.
 */
final class BenchJavaCommand
{
    /** The flag that lets jccl reach {@code jdk.internal.misc}, as the script passes it. */
    static final String ADD_EXPORTS = "--add-exports";
    /** Its value. */
    static final String ADD_EXPORTS_VALUE = "java.base/jdk.internal.misc=ALL-UNNAMED";
    /**
     * A child bound to one CPU compiles in the thread that asks for a compilation instead of a compiler thread on
     * the same CPU: a compilation in the background took the rank's CPU during the table (the bench's formatting
     * code still compiled 30-90 times a second 6-7 s into a run, and the first row of
     * {@code --nprocs 2 all_reduce_perf -b 8 -n 2000} read 1.3-3.8 us out of place against 0.65-0.9 in place).
     * {@value #JAVA_OPTS_ENV_NAME} comes after it, so {@code -XX:+BackgroundCompilation} there undoes it.
     */
    static final String BOUND_JVM_OPTION = "-Xbatch";
    /** Extra JVM options, words split at white space, as the script reads them. */
    static final String JAVA_OPTS_ENV_NAME = Settings.BENCH_JAVA_OPTS;

    private BenchJavaCommand()
    {
    }

    /**
     * @param java       the java executable.
     * @param binding    whether the children are bound to CPUs.
     * @param jvmOptions options before the entry ({@link #jvmOptions(Map)}).
     * @param entry      {@link #jarEntry(Path)} or {@link #classpathEntry(String, String)}.
     * @param toolArgs   the tool name and its flags, without {@code --nprocs}.
     * @return java, {@value #BOUND_JVM_OPTION} when bound, the JVM options, the entry, the tool and its flags.
     */
    static List<String> command(final String java, final CpuBinding binding, final List<String> jvmOptions,
        final List<String> entry, final List<String> toolArgs)
    {
        final List<String> command = new ArrayList<>();
        command.add(java);
        if (binding.bound())
        {
            command.add(BOUND_JVM_OPTION);
        }
        command.addAll(jvmOptions);
        command.addAll(entry);
        command.addAll(toolArgs);
        return command;
    }

    /** @return the java executable of this JVM: {@code ${java.home}/bin/java}. */
    static String javaExecutable()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * @param env the launcher's environment.
     * @return {@value #ADD_EXPORTS} {@value #ADD_EXPORTS_VALUE}, then the words of {@value #JAVA_OPTS_ENV_NAME}.
     */
    static List<String> jvmOptions(final Map<String, String> env)
    {
        final List<String> options = new ArrayList<>(List.of(ADD_EXPORTS, ADD_EXPORTS_VALUE));
        final String extra = env.get(JAVA_OPTS_ENV_NAME);
        if (extra != null && !extra.isBlank())
        {
            options.addAll(Arrays.asList(extra.trim().split("\\s+")));
        }
        return options;
    }

    /**
     * @param jar the runnable jar.
     * @return {@code -jar jar}.
     */
    static List<String> jarEntry(final Path jar)
    {
        return List.of("-jar", jar.toString());
    }

    /**
     * @param classpath the class path, entries joined with the platform's separator.
     * @param mainClass the class whose {@code main} runs the tool, e.g. {@link JcclBench}.
     * @return {@code -cp classpath mainClass}.
     */
    static List<String> classpathEntry(final String classpath, final String mainClass)
    {
        return List.of("-cp", classpath, mainClass);
    }

    /**
     * @return how this JVM runs the bench: {@code -jar} when its class path is one jar (the script's
     *         {@code java -jar jccl-bench.jar}), else its class path and {@link JcclBench} (an IDE, tests).
     */
    static List<String> currentEntry()
    {
        final String classpath = System.getProperty("java.class.path");
        if (!classpath.contains(File.pathSeparator) && classpath.endsWith(".jar"))
        {
            return jarEntry(Path.of(classpath));
        }
        return classpathEntry(classpath, JcclBench.class.getName());
    }
}
