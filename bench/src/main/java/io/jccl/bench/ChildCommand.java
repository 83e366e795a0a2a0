package io.jccl.bench;

import io.jccl.UniqueId;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line and environment of each child JVM that {@code jccl-bench --nprocs N} starts
 * ({@link ProcessLauncher}): the java of this JVM ({@code java.home}), the JVM options of the {@code jccl-bench}
 * script ({@value #ADD_EXPORTS} {@value #ADD_EXPORTS_VALUE}, then {@code $JCCL_BENCH_JAVA_OPTS}), the same jar
 * ({@code -jar}) or class path and main class ({@code -cp}), and the tool with its flags; each child gets
 * {@code JCCL_RANK}, {@code JCCL_WORLD_SIZE}, {@code JCCL_LOCAL_RANK}, {@code JCCL_LOCAL_WORLD_SIZE} and
 * {@code JCCL_COMM_ID} on top of the launcher's environment, which jccl's launcher variables read first.
 */
public final class ChildCommand
{
    /** The flag that lets jccl reach {@code jdk.internal.misc}, as the script passes it. */
    public static final String ADD_EXPORTS = "--add-exports";
    /** Its value. */
    public static final String ADD_EXPORTS_VALUE = "java.base/jdk.internal.misc=ALL-UNNAMED";
    /**
     * A child bound to one CPU compiles in the thread that asks for a compilation instead of a compiler thread on
     * the same CPU: a compilation in the background took the rank's CPU during the table (the bench's formatting
     * code still compiled 30-90 times a second 6-7 s into a run, and the first row of
     * {@code --nprocs 2 all_reduce_perf -b 8 -n 2000} read 1.3-3.8 us out of place against 0.65-0.9 in place).
     * {@value #JAVA_OPTS_ENV_NAME} comes after it, so {@code -XX:+BackgroundCompilation} there undoes it.
     */
    public static final String BOUND_JVM_OPTION = "-Xbatch";
    /** Extra JVM options, words split at white space, as the script reads them. */
    public static final String JAVA_OPTS_ENV_NAME = "JCCL_BENCH_JAVA_OPTS";

    private final String java;
    private final List<String> jvmOptions;
    private final List<String> entry;
    private final List<String> toolArgs;
    private final int nprocs;
    private final UniqueId commId;
    private final CpuBinding binding;

    /**
     * @param java       the java executable.
     * @param jvmOptions options before the entry ({@link #jvmOptions(Map)}).
     * @param entry      {@link #jarEntry(Path)} or {@link #classpathEntry(String, String)}.
     * @param toolArgs   the tool name and its flags, without {@code --nprocs}.
     * @param nprocs     the children, at least 1.
     * @param commId     where the children meet: rank 0's address and the secret.
     */
    public ChildCommand(final String java, final List<String> jvmOptions, final List<String> entry,
        final List<String> toolArgs, final int nprocs, final UniqueId commId)
    {
        this(java, jvmOptions, entry, toolArgs, nprocs, commId, CpuBinding.UNBOUND);
    }

    /**
     * @param java       the java executable.
     * @param jvmOptions options before the entry ({@link #jvmOptions(Map)}).
     * @param entry      {@link #jarEntry(Path)} or {@link #classpathEntry(String, String)}.
     * @param toolArgs   the tool name and its flags, without {@code --nprocs}.
     * @param nprocs     the children, at least 1.
     * @param commId     where the children meet: rank 0's address and the secret.
     * @param binding    whether each child runs on a CPU of its own ({@code --bind-to}).
     */
    public ChildCommand(final String java, final List<String> jvmOptions, final List<String> entry,
        final List<String> toolArgs, final int nprocs, final UniqueId commId, final CpuBinding binding)
    {
        if (nprocs < 1)
        {
            throw new IllegalArgumentException(ProcessLauncher.NPROCS_FLAG + " " + nprocs + " must be at least 1");
        }
        this.java = java;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.entry = List.copyOf(entry);
        this.toolArgs = List.copyOf(toolArgs);
        this.nprocs = nprocs;
        this.commId = commId;
        this.binding = binding;
    }

    /** @return the java executable of this JVM: {@code ${java.home}/bin/java}. */
    public static String javaExecutable()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * @param env the launcher's environment.
     * @return {@value #ADD_EXPORTS} {@value #ADD_EXPORTS_VALUE}, then the words of {@value #JAVA_OPTS_ENV_NAME}.
     */
    public static List<String> jvmOptions(final Map<String, String> env)
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
    public static List<String> jarEntry(final Path jar)
    {
        return List.of("-jar", jar.toString());
    }

    /**
     * @param classpath the class path, entries joined with the platform's separator.
     * @param mainClass the class whose {@code main} runs the tool, e.g. {@link JcclBench}.
     * @return {@code -cp classpath mainClass}.
     */
    public static List<String> classpathEntry(final String classpath, final String mainClass)
    {
        return List.of("-cp", classpath, mainClass);
    }

    /**
     * @return how this JVM runs the bench: {@code -jar} when its class path is one jar (the script's
     *         {@code java -jar jccl-bench.jar}), else its class path and {@link JcclBench} (an IDE, tests).
     */
    public static List<String> currentEntry()
    {
        final String classpath = System.getProperty("java.class.path");
        if (!classpath.contains(File.pathSeparator) && classpath.endsWith(".jar"))
        {
            return jarEntry(Path.of(classpath));
        }
        return classpathEntry(classpath, JcclBench.class.getName());
    }

    /** @return the number of children. */
    public int nprocs()
    {
        return nprocs;
    }

    /** @return the rendezvous the children meet at. */
    public UniqueId commId()
    {
        return commId;
    }

    /** @return whether and where the children are bound to CPUs. */
    public CpuBinding binding()
    {
        return binding;
    }

    /** @return every child's command line, unbound: java, JVM options, entry, tool and flags. */
    public List<String> command()
    {
        return command(-1);
    }

    /**
     * @param rank the child, or -1 for the line without its CPU binding.
     * @return the child's command line: {@code taskset -c CPU} and {@value #BOUND_JVM_OPTION} when bound, java, JVM
     *         options, entry, tool and flags.
     */
    public List<String> command(final int rank)
    {
        final List<String> command = new ArrayList<>(rank < 0 ? List.of() : binding.prefix(rank));
        command.add(java);
        if (rank >= 0 && binding.bound())
        {
            command.add(BOUND_JVM_OPTION);
        }
        command.addAll(jvmOptions);
        command.addAll(entry);
        command.addAll(toolArgs);
        return command;
    }

    /**
     * @param rank the child's rank, 0..nprocs-1.
     * @return the variables the child gets on top of the launcher's environment.
     */
    public Map<String, String> environment(final int rank)
    {
        if (rank < 0 || rank >= nprocs)
        {
            throw new IllegalArgumentException("rank " + rank + " is outside 0.." + (nprocs - 1));
        }
        final Map<String, String> env = new LinkedHashMap<>();
        env.put("JCCL_RANK", Integer.toString(rank));
        env.put("JCCL_WORLD_SIZE", Integer.toString(nprocs));
        env.put("JCCL_LOCAL_RANK", Integer.toString(rank));
        env.put("JCCL_LOCAL_WORLD_SIZE", Integer.toString(nprocs));
        env.put("JCCL_COMM_ID", commId.toString());
        return env;
    }

    /**
     * @param rank the child's rank.
     * @return a builder of the child: {@link #command(int)}, the launcher's environment with
     *         {@link #environment(int)} over it; streams are the caller's to set.
     */
    public ProcessBuilder processBuilder(final int rank)
    {
        final Map<String, String> env = environment(rank);
        final ProcessBuilder builder = new ProcessBuilder(command(rank));
        builder.environment().putAll(env);
        return builder;
    }
}
