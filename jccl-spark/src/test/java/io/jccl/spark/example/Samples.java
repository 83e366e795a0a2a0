package io.jccl.spark.example;

import java.io.Serializable;
import java.util.Random;

/**
 * One partition's block of a synthetic linear-regression dataset: {@code rows} samples of {@code features} normal
 * features each, and targets {@code y = x . w* + noise} with {@code w*[j] = sin(j + 1)}; a pure function of
 * (partition, rows, features), so the driver can make the same block again as a reference. Immutable after
 * construction; the gradient methods are safe to call from several threads.
 */
public final class Samples implements Serializable
{
    private static final long serialVersionUID = 1L;

    private final int rows;
    private final int features;
    private final float[] x;
    private final float[] y;

    private Samples(final int rows, final int features, final float[] x, final float[] y)
    {
        this.rows = rows;
        this.features = features;
        this.x = x;
        this.y = y;
    }

    /**
     * @param partition which block (its random seed).
     * @param rows      samples in the block.
     * @param features  features per sample.
     * @return the block.
     */
    public static Samples synthetic(final int partition, final int rows, final int features)
    {
        final Random random = new Random(0x5eed_0000L + partition);
        final float[] truth = trueWeights(features);
        final float[] x = new float[rows * features];
        final float[] y = new float[rows];
        for (int i = 0; i < rows; i++)
        {
            float target = 0;
            for (int j = 0; j < features; j++)
            {
                final float value = (float)random.nextGaussian();
                x[i * features + j] = value;
                target += value * truth[j];
            }
            y[i] = target + 0.01f * (float)random.nextGaussian();
        }
        return new Samples(rows, features, x, y);
    }

    /**
     * @param features features per sample.
     * @return the weights the targets were made with.
     */
    public static float[] trueWeights(final int features)
    {
        final float[] truth = new float[features];
        for (int j = 0; j < features; j++)
        {
            truth[j] = (float)Math.sin(j + 1);
        }
        return truth;
    }

    /** @return samples in this block. */
    public int rows()
    {
        return rows;
    }

    /**
     * Adds this block's gradient of the summed squared error / 2 at {@code w}, {@code X^T (X w - y)}, to
     * {@code gradient}.
     *
     * @param w        the weights.
     * @param gradient {@code features} elements, added to.
     * @return gradient.
     */
    public float[] addGradient(final float[] w, final float[] gradient)
    {
        for (int i = 0; i < rows; i++)
        {
            final int row = i * features;
            float residual = -y[i];
            for (int j = 0; j < features; j++)
            {
                residual += x[row + j] * w[j];
            }
            for (int j = 0; j < features; j++)
            {
                gradient[j] += residual * x[row + j];
            }
        }
        return gradient;
    }
}
