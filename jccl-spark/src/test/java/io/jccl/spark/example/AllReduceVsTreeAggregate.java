package io.jccl.spark.example;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Settings;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import io.jccl.spark.JcclSpark;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * Per iteration, side by side in one run: Spark's {@code treeAggregate} of a dense float vector per partition (the
 * gradient of an iterative trainer, already in memory) against jccl's AllReduce (SUM, out of place, in buffers of
 * {@code Jccl.allocate}) of the same vectors inside one barrier stage per size, after one untimed stage that warms
 * the executors up. Prints, per size, the median and mean
 * milliseconds of both and their ratio. Arguments: master (default {@code local-cluster[2,1,2048]}),
 * {@code treeAggregate} iterations (default 20), AllReduce iterations (default 50, as {@code -n 50}), then sizes in
 * floats (default 1M 4M 16M, jccl's size syntax: {@code K} and {@code M} are 2^10 and
 * 2^20). Threads: the driver's; the tasks are Spark's.
 */
public final class AllReduceVsTreeAggregate
{
    /** Untimed {@code treeAggregate} jobs first. */
    private static final int AGGREGATE_WARMUP = 3;
    /** Untimed AllReduces first, as nccl-tests' and jccl-bench's default {@code -w 5}. */
    private static final int REDUCE_WARMUP = 5;

    private AllReduceVsTreeAggregate()
    {
    }

    /**
     * @param args master, treeAggregate iterations, AllReduce iterations, sizes.
     * @throws InterruptedException if interrupted while waiting for executors.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final String master = args.length > 0 ? args[0] : "local-cluster[2,1,2048]";
        final int aggregations = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        final int reductions = args.length > 2 ? Integer.parseInt(args[2]) : 50;
        final int[] sizes = args.length > 3 ?
            Arrays.stream(args, 3, args.length).mapToInt(AllReduceVsTreeAggregate::floats).toArray() :
            new int[] {1 << 20, 4 << 20, 16 << 20};
        final JavaSparkContext spark = LocalSpark.startOrFail(master);
        try
        {
            final int partitions = LocalSpark.partitions(spark, master);
            System.out.printf("%s, %d partitions; treeAggregate %d iterations after %d warm-up, AllReduce %d after %d;"
                + " milliseconds per iteration%n", master, partitions, aggregations, AGGREGATE_WARMUP, reductions,
                REDUCE_WARMUP);
            System.out.printf("%10s %10s %14s %14s %14s %14s %8s%n", "floats", "bytes", "treeAgg med", "treeAgg mean",
                "jccl med", "jccl mean", "ratio");
            for (final int count : sizes)
            {
                final List<Integer> ids = new ArrayList<>(IntStream.range(0, partitions).boxed().toList());
                final JavaRDD<float[]> vectors = spark.parallelize(ids, partitions)
                    .map(p -> random(count, p)).cache();
                vectors.count();
                final double[] aggregate = treeAggregate(vectors, aggregations);
                if (count == sizes[0])
                {
                    // an untimed stage first: the executors' first AllReduces also load and compile jccl's code
                    allReduce(vectors, count, reductions);
                }
                final double[] reduce = allReduce(vectors, count, reductions);
                System.out.printf("%10d %10d %14.3f %14.3f %14.3f %14.3f %7.1fx%n", count, 4L * count,
                    median(aggregate), mean(aggregate), median(reduce), mean(reduce),
                    median(aggregate) / median(reduce));
                vectors.unpersist(true);
            }
        }
        finally
        {
            spark.stop();
        }
    }

    /**
     * @param vectors one vector per partition, cached.
     * @param iterations timed iterations.
     * @return each iteration's milliseconds: one {@code treeAggregate} job (its zero value empty, so the sums travel
     *         and no dense zero goes out with each task).
     */
    static double[] treeAggregate(final JavaRDD<float[]> vectors, final int iterations)
    {
        final double[] millis = new double[iterations];
        for (int it = -AGGREGATE_WARMUP; it < iterations; it++)
        {
            final long start = System.nanoTime();
            final float[] sum = vectors.treeAggregate(new float[0], LinearRegression::add, LinearRegression::add, 2);
            if (sum.length == 0)
            {
                throw new IllegalStateException("treeAggregate returned nothing");
            }
            if (it >= 0)
            {
                millis[it] = (System.nanoTime() - start) / 1e6;
            }
        }
        return millis;
    }

    /**
     * @param vectors    one vector per partition, cached.
     * @param count      floats per vector.
     * @param iterations timed iterations.
     * @return rank 0's milliseconds per AllReduce inside one barrier stage (the stage's start-up not included).
     */
    static double[] allReduce(final JavaRDD<float[]> vectors, final int count, final int iterations)
    {
        final List<double[]> times = JcclSpark.mapPartitions(vectors, Context::new,
            (Communicator comm, java.util.Iterator<float[]> partition) ->
            {
                final HostBuffer send = Jccl.allocate(4L * count);
                final HostBuffer recv = Jccl.allocate(4L * count);
                try
                {
                    send.byteBuffer().asFloatBuffer().put(partition.next());
                    final double[] millis = new double[iterations];
                    for (int it = -REDUCE_WARMUP; it < iterations; it++)
                    {
                        final long start = System.nanoTime();
                        comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
                        if (it >= 0)
                        {
                            millis[it] = (System.nanoTime() - start) / 1e6;
                        }
                    }
                    return List.of(millis).iterator();
                }
                finally
                {
                    Jccl.free(send);
                    Jccl.free(recv);
                }
            }).collect();
        return times.get(0);
    }

    private static float[] random(final int count, final int seed)
    {
        final Random random = new Random(seed);
        final float[] values = new float[count];
        for (int i = 0; i < count; i++)
        {
            values[i] = random.nextFloat();
        }
        return values;
    }

    private static int floats(final String text)
    {
        // the project's one size syntax (Settings.parseBytes); here it counts floats
        return Math.toIntExact(Settings.parseBytes("size", text));
    }

    private static double median(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double mean(final double[] values)
    {
        return Arrays.stream(values).average().orElse(Double.NaN);
    }
}
