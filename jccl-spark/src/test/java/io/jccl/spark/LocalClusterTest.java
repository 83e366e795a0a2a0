package io.jccl.spark;

import io.jccl.Algorithm;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.core.Context;
import io.jccl.spark.example.LocalSpark;
import io.jccl.testkit.ReferenceCollectives;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The realistic path: {@code local-cluster[2,1,1024]} runs each task of the barrier stage in an executor JVM of
 * its own, so the two ranks meet through a TCP rendezvous and talk through shared-memory files, as two executors
 * of one host do on a cluster. One AllReduce of random floats, checked bit for bit against the testkit's oracle.
 * Skipped, saying why, where the machine cannot start the executors. Threads: JUnit's.
 */
class LocalClusterTest
{
    private static final int COUNT = 65_537;
    private static final long EXECUTOR_WAIT_MS = 60_000;

    @Test
    @Timeout(150)
    void shouldAllReduceAcrossTwoExecutorJvmsAsTheDriverComputes() throws InterruptedException
    {
        final String why = LocalSpark.whyNoLocalCluster();
        assumeTrue(why == null, why);
        final JavaSparkContext spark = LocalSpark.start("local-cluster[2,1,1024]", EXECUTOR_WAIT_MS);
        assumeTrue(spark != null, "the two executors of local-cluster[2,1,1024] did not register within " +
            EXECUTOR_WAIT_MS + " ms (see target/spark-home/work for their logs)");
        try
        {
            final float[][] inputs = {Floats.random(COUNT, 71), Floats.random(COUNT, 72)};
            final List<float[]> outputs = JcclSpark.mapPartitions(
                spark.parallelize(new ArrayList<>(Arrays.asList(inputs)), 2),
                () -> new Context().algorithm(Algorithm.RING).timeoutMs(60_000),
                (Communicator comm, java.util.Iterator<float[]> partition) ->
                {
                    final HostBuffer buffer = Floats.buffer(partition.next());
                    comm.allReduce(buffer, buffer, COUNT, DataType.FLOAT32, ReduceOp.SUM);
                    final float pid = ProcessHandle.current().pid();
                    return List.of(Floats.array(buffer), new float[] {pid}).iterator();
                }).collect();

            final float[] expected = Floats.array(ReferenceCollectives.allReduce(Algorithm.RING,
                new ByteBuffer[] {Floats.bytes(inputs[0]), Floats.bytes(inputs[1])}, COUNT, DataType.FLOAT32,
                ReduceOp.SUM));
            assertEquals(4, outputs.size());
            assertArrayEquals(expected, outputs.get(0), "rank 0");
            assertArrayEquals(expected, outputs.get(2), "rank 1");
            assertNotEquals(outputs.get(1)[0], outputs.get(3)[0], "the two ranks ran in two JVMs");
        }
        finally
        {
            spark.stop();
        }
    }
}
