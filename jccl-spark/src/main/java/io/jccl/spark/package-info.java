/**
 * jccl inside Apache Spark: the tasks of one barrier stage form a communicator ({@link io.jccl.spark.JcclBarrier})
 * and run any jccl collective among themselves; {@link io.jccl.spark.JcclSpark#mapPartitions} runs a function of
 * (communicator, partition) as such a stage from Java and makes a failed stage retry as a whole.
 * <p>
 * Threads: a communicator belongs to the task that made it and is used from that task's thread; Spark's task-failure
 * and task-completion listeners abort and close it from whichever thread Spark runs them on, and one daemon thread
 * per JVM ({@code jccl-spark-kill-watch}) aborts the communicator of a task Spark has killed. In {@code local[N]}
 * the tasks of a stage are threads of one JVM, each with its own rank; on a cluster each task runs in its executor.
 */
package io.jccl.spark;
