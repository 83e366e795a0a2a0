package io.jccl.spark.example;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Spark on this machine for the tests and examples of jccl-spark: {@code local[N]} (tasks as threads of this JVM)
 * or {@code local-cluster[N,cores,MB]} (N executor JVMs, the realistic path), bound to 127.0.0.1, no web UI,
 * scratch space under {@code target/}, and a barrier stage that lacks slots failing after 2 checks 1 s apart
 * instead of Spark's 40 checks 15 s apart.
 * <p>
 * {@code local-cluster} starts executors the way a standalone worker does, from {@code $SPARK_HOME/jars}: this
 * class fills that folder with links to the jars of this JVM's class path, puts its class folders on the executors'
 * {@code spark.executor.extraClassPath}, and gives them jccl's JVM flag. {@code SPARK_HOME} must be set before the
 * JVM starts (the build sets it to {@code target/spark-home}; so does the README's command). Threads: call from one
 * thread.
 */
public final class LocalSpark
{
    /** The JVM flag jccl needs in the driver and in every executor. */
    public static final String JCCL_JVM_FLAG = "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED";

    private static final Pattern LOCAL_CLUSTER = Pattern.compile("local-cluster\\[(\\d+),\\d+,\\d+]");

    private LocalSpark()
    {
    }

    /** @return the scratch directory under {@code target/} (the build passes it as {@code jccl.spark.test.tmp}). */
    public static Path scratch()
    {
        return Path.of(System.getProperty("jccl.spark.test.tmp", "jccl-spark/target/tmp")).toAbsolutePath();
    }

    /**
     * @param master {@code local[2]}, {@code local-cluster[2,1,1024]}, ...
     * @return the executors a master starts: N for {@code local-cluster[N,...]}, 0 for {@code local[...]}.
     */
    public static int executors(final String master)
    {
        final Matcher cluster = LOCAL_CLUSTER.matcher(master);
        return cluster.matches() ? Integer.parseInt(cluster.group(1)) : 0;
    }

    /**
     * @return why {@code local-cluster} cannot start executors here, or null if it can be tried.
     */
    public static String whyNoLocalCluster()
    {
        final String home = System.getenv("SPARK_HOME");
        if (home == null || home.isBlank())
        {
            return "SPARK_HOME is not set: a standalone worker starts executors from $SPARK_HOME/jars (the build " +
                "sets it to target/spark-home)";
        }
        return null;
    }

    /**
     * @param master {@code local[2]}, {@code local-cluster[2,1,1024]}, ...
     * @return the configuration: loopback, no UI, scratch under {@code target/}; for {@code local-cluster} also
     *         the executors' class path and flags, with {@code $SPARK_HOME/jars} filled.
     */
    public static SparkConf conf(final String master)
    {
        try
        {
            Files.createDirectories(scratch());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot make " + scratch(), ex);
        }
        final SparkConf conf = new SparkConf()
            .setMaster(master)
            .setAppName("jccl-spark")
            .set("spark.driver.host", "127.0.0.1")
            .set("spark.driver.bindAddress", "127.0.0.1")
            .set("spark.ui.enabled", "false")
            .set("spark.ui.showConsoleProgress", "false")
            .set("spark.local.dir", scratch().resolve("spark-local").toString())
            .set("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "1s")
            .set("spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures", "2");
        if (executors(master) > 0)
        {
            conf.set("spark.executor.extraClassPath", String.join(File.pathSeparator, classFolders()))
                .set("spark.executor.extraJavaOptions", JCCL_JVM_FLAG + " -Djava.io.tmpdir=" + scratch());
            linkJars(Path.of(System.getenv("SPARK_HOME")).resolve("jars"));
        }
        return conf;
    }

    /**
     * Starts Spark and, for {@code local-cluster}, waits until its executors have registered (a barrier stage
     * submitted before then fails for lack of slots).
     *
     * @param master   the master.
     * @param waitMs   how long to wait for the executors.
     * @return the context, or null if the executors did not all register in time (the context is stopped then).
     * @throws InterruptedException if interrupted while waiting.
     */
    public static JavaSparkContext start(final String master, final long waitMs) throws InterruptedException
    {
        final JavaSparkContext spark = new JavaSparkContext(conf(master));
        final int executors = executors(master);
        final long deadline = System.nanoTime() + waitMs * 1_000_000L;
        // the driver's own block manager counts as one
        while (spark.sc().getExecutorMemoryStatus().size() - 1 < executors)
        {
            if (System.nanoTime() > deadline)
            {
                spark.stop();
                return null;
            }
            Thread.sleep(200);
        }
        return spark;
    }

    /**
     * {@link #start(String, long)} for the examples' mains, which cannot go on without their executors.
     *
     * @param master the master.
     * @return the context, its executors registered within 120 s.
     * @throws InterruptedException  if interrupted while waiting.
     * @throws IllegalStateException if the executors did not register in time.
     */
    public static JavaSparkContext startOrFail(final String master) throws InterruptedException
    {
        final JavaSparkContext spark = start(master, 120_000);
        if (spark == null)
        {
            throw new IllegalStateException("the executors of " + master + " did not register in 120 s");
        }
        return spark;
    }

    /**
     * @param spark  the running context.
     * @param master its master.
     * @return one partition per executor of {@code local-cluster}, else the context's default parallelism.
     */
    public static int partitions(final JavaSparkContext spark, final String master)
    {
        return executors(master) > 0 ? executors(master) : spark.defaultParallelism();
    }

    private static List<String> classFolders()
    {
        final List<String> folders = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            if (Files.isDirectory(Path.of(entry)))
            {
                folders.add(Path.of(entry).toAbsolutePath().toString());
            }
        }
        return folders;
    }

    private static void linkJars(final Path jars)
    {
        try
        {
            Files.createDirectories(jars);
            for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
            {
                final Path jar = Path.of(entry).toAbsolutePath();
                final Path link = jars.resolve(jar.getFileName().toString());
                if (entry.endsWith(".jar") && Files.isRegularFile(jar) && !Files.exists(link))
                {
                    Files.createSymbolicLink(link, jar);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot fill " + jars + " with the class path's jars", ex);
        }
    }
}
