package io.jccl.spark;

import org.apache.spark.Partitioner;

/**
 * Sends every record keyed by its task's partition id back to that partition: the shuffle behind
 * {@link JcclSpark#mapPartitions} that keeps each task's output where it was and makes the barrier stage a
 * shuffle-map stage, the kind Spark re-runs as a whole after a failure (a failed barrier result stage aborts the
 * job instead). Immutable.
 */
final class SamePartitioner extends Partitioner
{
    private static final long serialVersionUID = 1L;

    private final int partitions;

    SamePartitioner(final int partitions)
    {
        this.partitions = partitions;
    }

    @Override
    public int numPartitions()
    {
        return partitions;
    }

    @Override
    public int getPartition(final Object key)
    {
        return (Integer)key;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof SamePartitioner same && same.partitions == partitions;
    }

    @Override
    public int hashCode()
    {
        return partitions;
    }
}
