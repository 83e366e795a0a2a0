package io.jccl.spark;

import io.jccl.JcclInvalidArgumentException;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

import java.util.Iterator;

/**
 * The Java-friendly barrier entry: runs a function of (communicator, partition) on every partition of an RDD as one
 * Spark barrier stage, whose tasks form a jccl communicator ({@link JcclBarrier}).
 * <pre>{@code
 * JavaRDD<float[]> sums = JcclSpark.mapPartitions(gradients, () -> new Context().timeoutMs(60_000),
 *     (comm, partition) -> {
 *         HostBuffer g = HostBuffer.allocate(4L * n);          // this partition's gradient, filled from partition
 *         comm.allReduce(g, g, n, DataType.FLOAT32, ReduceOp.SUM);
 *         return List.of(toArray(g)).iterator();
 *     });
 * }</pre>
 * {@code JavaRDD} has no {@code barrier()}, so this goes through the Scala RDD. The barrier stage is followed by a
 * shuffle that keeps every task's output in its partition, in the order the task returned it: that makes the stage
 * a shuffle-map stage, which Spark re-runs as a whole when one of its tasks fails (up to
 * {@code spark.stage.maxConsecutiveAttempts} times), where a failed barrier result stage would abort the job. The
 * outputs pass through Spark's serializer once; return results (weights, statistics), not the data.
 * <p>
 * Spark runs a barrier stage only when it can start all its tasks at once: the RDD may have at most as many
 * partitions as the cluster has task slots, and dynamic allocation must be off. Threads: call from the driver;
 * stateless.
 */
public final class JcclSpark
{
    private JcclSpark()
    {
    }

    /**
     * As {@link #mapPartitions(JavaRDD, ContextFactory, BarrierFunction)} with {@link ContextFactory#DEFAULT}:
     * every setting from each executor's {@code JCCL_*} variables and system properties.
     *
     * @param rdd      the input; one task, and one rank, per partition.
     * @param function what each task runs.
     * @param <T>      the input's element type.
     * @param <U>      the output's element type.
     * @return the outputs, partition i holding what rank i returned; lazy, as every RDD.
     * @throws JcclInvalidArgumentException naming the argument, if one is null.
     */
    public static <T, U> JavaRDD<U> mapPartitions(final JavaRDD<T> rdd, final BarrierFunction<T, U> function)
    {
        return mapPartitions(rdd, ContextFactory.DEFAULT, function);
    }

    /**
     * Runs {@code function} on every partition of {@code rdd} as one barrier stage, each task with its rank of a
     * communicator of the stage's tasks (rank = partition id). Nothing runs until an action needs the result. The
     * settings are checked here, on the driver, by making one context with {@code context} and concluding it.
     *
     * @param rdd      the input; one task, and one rank, per partition.
     * @param context  makes each task's settings (it is serialized with the function).
     * @param function what each task runs.
     * @param <T>      the input's element type.
     * @param <U>      the output's element type.
     * @return the outputs, partition i holding what rank i returned; lazy, as every RDD.
     * @throws JcclInvalidArgumentException naming the argument, if one is null or the settings are out of range.
     */
    public static <T, U> JavaRDD<U> mapPartitions(final JavaRDD<T> rdd, final ContextFactory context,
        final BarrierFunction<T, U> function)
    {
        if (rdd == null)
        {
            throw new JcclInvalidArgumentException("rdd is null");
        }
        if (context == null)
        {
            throw new JcclInvalidArgumentException("context is null");
        }
        if (function == null)
        {
            throw new JcclInvalidArgumentException("function is null");
        }
        if (context.create() == null)
        {
            throw new JcclInvalidArgumentException("context made a null Context");
        }
        context.create().conclude();
        final ClassTag<U> tag = anyTag();
        final RDD<U> stage = rdd.rdd().barrier().mapPartitions(new BarrierTask<>(context, function), false, tag);
        return new JavaRDD<>(stage, tag)
            .mapPartitionsToPair(JcclSpark::keyedByPartition, true)
            .partitionBy(new SamePartitioner(rdd.getNumPartitions()))
            .values();
    }

    private static <U> Iterator<Tuple2<Integer, U>> keyedByPartition(final Iterator<U> output)
    {
        final Integer partition = TaskContext.getPartitionId();
        return new Iterator<>()
        {
            @Override
            public boolean hasNext()
            {
                return output.hasNext();
            }

            @Override
            public Tuple2<Integer, U> next()
            {
                return new Tuple2<>(partition, output.next());
            }
        };
    }

    /** @return the class tag Spark's own Java API uses for an element type it cannot see (erased generics). */
    @SuppressWarnings("unchecked")
    private static <U> ClassTag<U> anyTag()
    {
        return (ClassTag<U>)ClassTag$.MODULE$.AnyRef();
    }
}
