package io.jccl.djl;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.Batch;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.translate.Batchifier;
import ai.djl.util.Pair;
import io.jccl.Communicator;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntConsumer;
import java.util.function.UnaryOperator;

/**
 * One rank's data-parallel training of a small model on synthetic data, or (without a communicator) the
 * one-process full-batch run it must equal: every step draws one global batch of {@link #SAMPLES} rows, and rank r
 * of n trains on rows {@code [r * SAMPLES / n, (r + 1) * SAMPLES / n)}. The L2 loss is a mean over the batch, so the
 * average of the ranks' gradients is the full batch's gradient, and plain SGD then gives the same weights up to
 * float rounding.
 */
final class TrainingRun
{
    /** Input features. */
    static final int FEATURES = 4;
    /** Rows of one global batch: divisible by 1, 2, 3 and 4. */
    static final int SAMPLES = 12;
    /** SGD's learning rate. */
    static final float LEARNING_RATE = 0.1f;

    private TrainingRun()
    {
    }

    /**
     * @param kind   {@code linear} or {@code mlp} (two linear layers with a tanh between them).
     * @param hidden the MLP's hidden width.
     * @return the block.
     */
    static Block block(final String kind, final int hidden)
    {
        if ("linear".equals(kind))
        {
            return Linear.builder().setUnits(1).build();
        }
        return new SequentialBlock()
            .add(Linear.builder().setUnits(hidden).build())
            .add(Activation.tanhBlock())
            .add(Linear.builder().setUnits(1).build());
    }

    /**
     * Trains and returns the final weights.
     *
     * @param communicator the ranks, or null for the one-process full-batch run.
     * @param kind         see {@link #block}.
     * @param hidden       the MLP's hidden width.
     * @param initSeed     seeds this rank's initial weights.
     * @param steps        batches to train.
     * @param options      sets the sync's options.
     * @return the weights in {@code block.getParameters()} order, then the initial weights (for "it trained").
     */
    static Result train(final Communicator communicator, final String kind, final int hidden, final long initSeed,
        final int steps, final UnaryOperator<JcclGradientSync> options)
    {
        return train(communicator, kind, hidden, initSeed, steps, 1, options, step -> { });
    }

    /**
     * Trains with each rank's rows of a step split into micro-batches, all but the last trained inside
     * {@link JcclGradientSync#noSync()}, and the learning rate divided by their count (the gradients add up).
     *
     * @param communicator the ranks (not null).
     * @param kind         see {@link #block}.
     * @param hidden       the MLP's hidden width.
     * @param initSeed     seeds this rank's initial weights.
     * @param steps        optimizer steps.
     * @param micro        micro-batches per step; divides the rank's rows.
     * @param options      sets the sync's options.
     * @param beforeStep   called with each step's number before it trains.
     * @return the weights.
     */
    static Result train(final Communicator communicator, final String kind, final int hidden, final long initSeed,
        final int steps, final int micro, final UnaryOperator<JcclGradientSync> options, final IntConsumer beforeStep)
    {
        final int rank = communicator == null ? 0 : communicator.rank();
        final int size = communicator == null ? 1 : communicator.size();
        try (Model model = Model.newInstance("dp-" + kind + "-" + rank, Device.cpu(), "PyTorch"))
        {
            model.setBlock(block(kind, hidden));
            final JcclGradientSync sync = communicator == null ? null :
                options.apply(JcclGradientSync.of(communicator));
            final DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.l2Loss())
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(LEARNING_RATE / micro)).build())
                .optDevices(new Device[] {Device.cpu()});
            if (sync != null)
            {
                config.addTrainingListeners(sync);
            }
            try (Trainer trainer = model.newTrainer(config))
            {
                trainer.initialize(new Shape(1, FEATURES));
                final float[][] initial = setRandomWeights(model, initSeed);
                final int rows = SAMPLES / size / micro;
                for (int step = 0; step < steps; step++)
                {
                    beforeStep.accept(step);
                    try (NDManager manager = trainer.getManager().newSubManager())
                    {
                        final float[][] data = globalBatch(step);
                        for (int m = 0; m < micro; m++)
                        {
                            final int first = (rank * micro + m) * rows;
                            final NDArray x = manager.create(slice(data[0], first * FEATURES, rows * FEATURES),
                                new Shape(rows, FEATURES));
                            final NDArray y = manager.create(slice(data[1], first, rows), new Shape(rows, 1));
                            final Batch batch = new Batch(manager, new NDList(x), new NDList(y), rows,
                                Batchifier.STACK, Batchifier.STACK, step, steps);
                            if (sync == null)
                            {
                                EasyTrain.trainBatch(trainer, batch);
                            }
                            else if (m < micro - 1)
                            {
                                try (JcclGradientSync.NoSync scope = sync.noSync())
                                {
                                    sync.trainBatch(trainer, batch);
                                }
                            }
                            else
                            {
                                sync.trainBatch(trainer, batch);
                            }
                        }
                        trainer.step();
                    }
                }
                return new Result(weights(model), initial, sync == null ? 0 : sync.bucketCount(),
                    sync == null ? 0 : sync.syncCount(), sync == null ? 0 : sync.gradientsInBuckets());
            }
        }
    }

    /**
     * Final and initial weights of one run.
     *
     * @param weights     the trained weights, in parameter order.
     * @param initial     the weights before training.
     * @param bucketCount the buckets one sync used (0 without a sync).
     * @param syncCount   the batches whose gradients were averaged (0 without a sync).
     * @param inBuckets   the gradients that lived in the buckets at the end (0 without a sync).
     */
    record Result(float[][] weights, float[][] initial, int bucketCount, long syncCount, int inBuckets)
    {
    }

    /**
     * @param step the step.
     * @return the step's global batch: inputs (SAMPLES x FEATURES, row-major) and targets (SAMPLES).
     */
    static float[][] globalBatch(final int step)
    {
        final Random random = new Random(1000 + step);
        final float[] x = new float[SAMPLES * FEATURES];
        final float[] y = new float[SAMPLES];
        for (int i = 0; i < SAMPLES; i++)
        {
            double target = 0.3;
            for (int j = 0; j < FEATURES; j++)
            {
                x[i * FEATURES + j] = (float)random.nextGaussian();
                target += (j + 1) * 0.5 * x[i * FEATURES + j];
            }
            y[i] = (float)(Math.sin(target) + 0.1 * random.nextGaussian());
        }
        return new float[][] {x, y};
    }

    /**
     * @param model a model with initialized parameters.
     * @param seed  the seed.
     * @return the weights set: every parameter drawn from one seeded generator, in parameter order.
     */
    static float[][] setRandomWeights(final Model model, final long seed)
    {
        final Random random = new Random(seed);
        final List<float[]> all = new ArrayList<>();
        for (final Pair<String, Parameter> entry : model.getBlock().getParameters())
        {
            final NDArray array = entry.getValue().getArray();
            final float[] values = new float[(int)array.size()];
            for (int i = 0; i < values.length; i++)
            {
                values[i] = (float)(0.5 * random.nextGaussian());
            }
            array.set(values);
            all.add(values);
        }
        return all.toArray(new float[0][]);
    }

    /**
     * @param model the model.
     * @return its weights in parameter order.
     */
    static float[][] weights(final Model model)
    {
        final List<float[]> all = new ArrayList<>();
        for (final Pair<String, Parameter> entry : model.getBlock().getParameters())
        {
            all.add(entry.getValue().getArray().toFloatArray());
        }
        return all.toArray(new float[0][]);
    }

    /**
     * @param actual    weights.
     * @param reference the weights they should equal.
     * @return the largest, over parameters, of max |actual - reference| / max |reference| of that parameter.
     */
    static double maxRelativeDifference(final float[][] actual, final float[][] reference)
    {
        if (actual.length != reference.length)
        {
            throw new AssertionError(actual.length + " parameters, expected " + reference.length);
        }
        double worst = 0;
        for (int p = 0; p < reference.length; p++)
        {
            if (actual[p].length != reference[p].length)
            {
                throw new AssertionError("parameter " + p + " has " + actual[p].length + " values, expected " +
                    reference[p].length);
            }
            double scale = 0;
            double diff = 0;
            for (int i = 0; i < reference[p].length; i++)
            {
                scale = Math.max(scale, Math.abs(reference[p][i]));
                diff = Math.max(diff, Math.abs((double)actual[p][i] - reference[p][i]));
            }
            worst = Math.max(worst, diff / Math.max(scale, Float.MIN_NORMAL));
        }
        return worst;
    }

    private static float[] slice(final float[] values, final int from, final int count)
    {
        final float[] out = new float[count];
        System.arraycopy(values, from, out, 0, count);
        return out;
    }
}
