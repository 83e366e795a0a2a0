/**
 * JMH microbenchmarks of jccl's hot pieces, run from the shaded jar:
 * <pre>{@code
 * mvn -B -DskipTests package
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp bench/target/jccl-bench.jar \
 *     org.openjdk.jmh.Main [JMH args, e.g. -f 1 -wi 2 -i 3 -w 1s -r 1s ReduceKernelBenchmark]
 * }</pre>
 * <ul>
 *     <li>{@link io.jccl.bench.jmh.ReduceKernelBenchmark}: the host SUM kernel of every element type against a
 *     plain memory copy, in GB/s;</li>
 *     <li>{@link io.jccl.bench.jmh.FifoSlotBenchmark}: one FIFO slot published and consumed, per protocol, in one
 *     thread and as a ping-pong between two;</li>
 *     <li>{@link io.jccl.bench.jmh.SmallAllReduceBenchmark}: an 8-byte AllReduce among 2 in-process ranks.</li>
 * </ul>
 * The benchmarks run only when asked (never in the test phase). Each forks one JVM with the Agrona flag appended
 * to the host JVM's flags. Machines with 2 vCPUs place their cores apart about one launch in 5 (PERF-NOTES.md):
 * repeat a surprising run before trusting it.
 * <p>
 * Threading: JMH drives the state and benchmark methods; {@code FifoSlotBenchmark.pingPong} runs two threads
 * that spin (then yield) on each other, the others one thread (plus the ranks' progress threads in the AllReduce).
 */
package io.jccl.bench.jmh;
