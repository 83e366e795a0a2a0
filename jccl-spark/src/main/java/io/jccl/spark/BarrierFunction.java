package io.jccl.spark;

import io.jccl.Communicator;

import java.io.Serializable;
import java.util.Iterator;

/**
 * What each task of a barrier stage runs ({@link JcclSpark#mapPartitions}): its partition, and a communicator
 * whose rank is the task's partition id and whose size is the stage's task count. Every task must call the same
 * collectives in the same order, as with any communicator.
 * <p>
 * Threads: called once per task attempt, on the task's thread. The communicator closes when the task completes,
 * after the returned iterator has been consumed, so a lazy iterator may still use it.
 *
 * @param <T> the input's element type.
 * @param <U> the output's element type.
 */
@FunctionalInterface
public interface BarrierFunction<T, U> extends Serializable
{
    /**
     * @param communicator this task's rank of the stage's communicator; do not close it.
     * @param partition    this task's partition.
     * @return this task's output partition.
     * @throws Exception anything; it fails the task, and with it the stage.
     */
    Iterator<U> call(Communicator communicator, Iterator<T> partition) throws Exception;
}
