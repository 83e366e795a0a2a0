package io.jccl.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

import java.nio.file.Path;

/**
 * The Spark contexts of this module's tests: bound to 127.0.0.1, no web UI, scratch space under {@code target/}
 * (the build passes its path as {@code jccl.spark.test.tmp}), and a barrier stage that lacks slots failing after 2
 * checks 1 s apart instead of Spark's 40 checks 15 s apart. Threads: call from the test's thread.
 */
final class SparkTestContexts
{
    private SparkTestContexts()
    {
    }

    /** @return the build's scratch directory for Spark, under {@code target/}. */
    static Path scratch()
    {
        return Path.of(System.getProperty("jccl.spark.test.tmp", "target/tmp"));
    }

    /**
     * @param master {@code local[2]}, {@code local-cluster[2,1,1024]}, ...
     * @return the configuration the tests share.
     */
    static SparkConf conf(final String master)
    {
        return new SparkConf()
            .setMaster(master)
            .setAppName("jccl-spark-test")
            .set("spark.driver.host", "127.0.0.1")
            .set("spark.driver.bindAddress", "127.0.0.1")
            .set("spark.ui.enabled", "false")
            .set("spark.ui.showConsoleProgress", "false")
            .set("spark.local.dir", scratch().resolve("spark-local").toAbsolutePath().toString())
            .set("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", "1s")
            .set("spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures", "2");
    }

    /**
     * @param master a local master.
     * @return a started context; stop it when done.
     */
    static JavaSparkContext start(final String master)
    {
        return new JavaSparkContext(conf(master));
    }
}
