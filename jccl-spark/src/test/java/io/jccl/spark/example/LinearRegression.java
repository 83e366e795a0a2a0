package io.jccl.spark.example;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import io.jccl.spark.JcclSpark;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Linear regression trained by full-batch gradient descent on a synthetic dataset, two ways in one program: the
 * Spark-only way (each iteration a {@code treeAggregate} of the gradient, the weights broadcast) and the jccl way
 * (one barrier stage runs every iteration, each an AllReduce of the gradient). Prints both ways' time for all
 * iterations (the jccl way's includes its barrier stage's start-up) and how far apart their weights end.
 * Arguments: master (default {@code local[2]}), iterations (20), samples per partition (8192), features (512);
 * one partition per task slot. Threads: the driver's; the tasks are Spark's.
 */
public final class LinearRegression
{
    /** Step size: the features are standard normal, so the Hessian of the mean squared error is near I. */
    static final float LEARNING_RATE = 0.5f;

    private LinearRegression()
    {
    }

    /**
     * What one way of training ended with.
     *
     * @param weights the weights after the last iteration.
     * @param millis  the wall time of all iterations.
     */
    public record Result(float[] weights, long millis)
    {
    }

    /**
     * Runs both ways on the master of {@code args[0]}.
     *
     * @param args master, iterations, samples per partition, features.
     * @throws InterruptedException if interrupted while waiting for executors.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final String master = args.length > 0 ? args[0] : "local[2]";
        final int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        final int rows = args.length > 2 ? Integer.parseInt(args[2]) : 8192;
        final int features = args.length > 3 ? Integer.parseInt(args[3]) : 512;
        final JavaSparkContext spark = LocalSpark.startOrFail(master);
        try
        {
            final int partitions = LocalSpark.partitions(spark, master);
            final JavaRDD<Samples> data = data(spark, partitions, rows, features);
            System.out.printf("%d partitions x %d samples x %d features, %d iterations on %s%n", partitions, rows,
                features, iterations, master);
            final Result aggregated = withTreeAggregate(spark, data, iterations, features);
            System.out.printf("treeAggregate: %6d ms%n", aggregated.millis());
            final Result reduced = withAllReduce(data, iterations, features);
            System.out.printf("jccl AllReduce: %6d ms (one barrier stage, its start-up included)%n",
                reduced.millis());
            System.out.printf("max |w_treeAggregate - w_jccl| = %.3g, max |w_jccl - w*| = %.3g%n",
                maxDifference(aggregated.weights(), reduced.weights()),
                maxDifference(reduced.weights(), Samples.trueWeights(features)));
        }
        finally
        {
            spark.stop();
        }
    }

    /**
     * @param spark      the context.
     * @param partitions blocks, one per partition.
     * @param rows       samples per block.
     * @param features   features per sample.
     * @return the dataset, cached and computed.
     */
    public static JavaRDD<Samples> data(final JavaSparkContext spark, final int partitions, final int rows,
        final int features)
    {
        final List<Integer> ids = new ArrayList<>(IntStream.range(0, partitions).boxed().toList());
        final JavaRDD<Samples> data = spark.parallelize(ids, partitions)
            .map(p -> Samples.synthetic(p, rows, features)).cache();
        data.count();
        return data;
    }

    /**
     * The Spark-only way: per iteration the weights go out as a broadcast and the gradient comes back through a
     * {@code treeAggregate} (its zero value empty, so no dense zero vector travels with each task).
     *
     * @param spark      the context.
     * @param data       the dataset.
     * @param iterations gradient steps.
     * @param features   features per sample.
     * @return the weights and the time.
     */
    public static Result withTreeAggregate(final JavaSparkContext spark, final JavaRDD<Samples> data,
        final int iterations, final int features)
    {
        final long samples = data.map(Samples::rows).reduce(Integer::sum);
        final long start = System.nanoTime();
        final float[] w = new float[features];
        for (int it = 0; it < iterations; it++)
        {
            final Broadcast<float[]> weights = spark.broadcast(w.clone());
            final float[] gradient = data.treeAggregate(new float[0],
                (sum, block) -> block.addGradient(weights.value(), sum.length == 0 ? new float[features] : sum),
                LinearRegression::add, 2);
            step(w, gradient, samples);
            weights.destroy();
        }
        return new Result(w, (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * The jccl way: one barrier stage; every task keeps the weights, computes its block's gradient, and an
     * AllReduce (SUM) gives every task the whole gradient, so all take the same step.
     *
     * @param data       the dataset.
     * @param iterations gradient steps.
     * @param features   features per sample.
     * @return rank 0's weights (every rank's are the same) and the time, the stage's start-up included.
     */
    public static Result withAllReduce(final JavaRDD<Samples> data, final int iterations, final int features)
    {
        final long samples = data.map(Samples::rows).reduce(Integer::sum);
        final long start = System.nanoTime();
        final List<float[]> weights = JcclSpark.mapPartitions(data, Context::new,
            (Communicator comm, java.util.Iterator<Samples> partition) ->
            {
                final Samples block = partition.next();
                final float[] w = new float[features];
                final float[] gradient = new float[features];
                // shared memory: the peer on this host reads it in place
                final HostBuffer buffer = Jccl.allocate(4L * features);
                try
                {
                    final FloatBuffer floats = buffer.byteBuffer().asFloatBuffer();
                    for (int it = 0; it < iterations; it++)
                    {
                        java.util.Arrays.fill(gradient, 0f);
                        floats.clear();
                        floats.put(block.addGradient(w, gradient));
                        comm.allReduce(buffer, buffer, features, DataType.FLOAT32, ReduceOp.SUM);
                        floats.clear();
                        floats.get(gradient);
                        step(w, gradient, samples);
                    }
                }
                finally
                {
                    Jccl.free(buffer);
                }
                return List.of(w).iterator();
            }).collect();
        return new Result(weights.get(0), (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * One gradient step on the mean squared error / 2.
     *
     * @param w        the weights, updated.
     * @param gradient the summed gradient of every sample.
     * @param samples  the number of samples.
     */
    static void step(final float[] w, final float[] gradient, final long samples)
    {
        final float scale = LEARNING_RATE / samples;
        for (int j = 0; j < w.length; j++)
        {
            w[j] -= scale * gradient[j];
        }
    }

    /**
     * @param a a vector, updated.
     * @param b a vector of a's length, or empty.
     * @return a + b (in a), or the non-empty one.
     */
    static float[] add(final float[] a, final float[] b)
    {
        if (a.length == 0)
        {
            return b;
        }
        for (int j = 0; j < b.length; j++)
        {
            a[j] += b[j];
        }
        return a;
    }

    /**
     * @param a a vector.
     * @param b a vector of a's length.
     * @return the largest absolute difference of their elements.
     */
    public static double maxDifference(final float[] a, final float[] b)
    {
        double max = 0;
        for (int j = 0; j < a.length; j++)
        {
            max = Math.max(max, Math.abs((double)a[j] - b[j]));
        }
        return max;
    }
}
