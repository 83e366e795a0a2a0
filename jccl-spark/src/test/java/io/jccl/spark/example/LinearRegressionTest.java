package io.jccl.spark.example;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's example on {@code local[2]}, small: both ways of training end at the weights that plain gradient
 * descent on the driver reaches from the same blocks, and those are near the weights the data was made with (so
 * the check cannot pass on weights that never moved). Threads: JUnit's, and Spark's task threads.
 */
class LinearRegressionTest
{
    private static final int PARTITIONS = 2;
    private static final int ROWS = 512;
    private static final int FEATURES = 64;
    private static final int ITERATIONS = 20;

    @Test
    @Timeout(120)
    void shouldEndAtTheDriversWeightsBothWaysWhenTrainedForTwentyIterations() throws InterruptedException
    {
        final float[] expected = onTheDriver();
        final JavaSparkContext spark = LocalSpark.start("local[" + PARTITIONS + "]", 0);
        try
        {
            final JavaRDD<Samples> data = LinearRegression.data(spark, PARTITIONS, ROWS, FEATURES);
            final float[] aggregated = LinearRegression.withTreeAggregate(spark, data, ITERATIONS, FEATURES).weights();
            final float[] reduced = LinearRegression.withAllReduce(data, ITERATIONS, FEATURES).weights();

            assertArrayEquals(expected, aggregated, 1e-5f, "treeAggregate");
            assertArrayEquals(expected, reduced, 1e-5f, "jccl AllReduce");
            final double error = LinearRegression.maxDifference(expected, Samples.trueWeights(FEATURES));
            assertTrue(error < 0.05, "20 steps come near w*: max |w - w*| = " + error);
        }
        finally
        {
            spark.stop();
        }
    }

    /** @return the weights of plain gradient descent over the same blocks, summed in partition order. */
    private static float[] onTheDriver()
    {
        final Samples[] blocks = new Samples[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++)
        {
            blocks[p] = Samples.synthetic(p, ROWS, FEATURES);
        }
        final float[] w = new float[FEATURES];
        for (int it = 0; it < ITERATIONS; it++)
        {
            final float[] gradient = new float[FEATURES];
            for (final Samples block : blocks)
            {
                final float[] part = block.addGradient(w, new float[FEATURES]);
                for (int j = 0; j < FEATURES; j++)
                {
                    gradient[j] += part[j];
                }
            }
            LinearRegression.step(w, gradient, (long)PARTITIONS * ROWS);
        }
        return w;
    }
}
