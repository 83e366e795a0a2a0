package io.jccl.djl.example;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.metric.Metrics;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Parameter;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.listener.EvaluatorTrainingListener;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.util.Pair;
import io.jccl.Communicator;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import io.jccl.djl.JcclDatasets;
import io.jccl.djl.JcclGradientSync;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The README's example: an MLP on synthetic data (nothing downloaded) trained data-parallel, one rank per process
 * started by {@code bin/jccl-run}. Each rank trains on its shard ({@link JcclDatasets#shard}), its gradients averaged
 * by {@link JcclGradientSync}; rank 0 prints the loss averaged over the ranks every epoch, then trains the same model
 * in this one process on the whole of every global batch and prints how far the two sets of weights are apart.
 */
public final class DataParallelMlp
{
    private static final int FEATURES = 8;
    private static final int HIDDEN = 64;
    private static final int RECORDS = 1024;
    private static final int GLOBAL_BATCH = 64;
    private static final int EPOCHS = 5;

    private DataParallelMlp()
    {
    }

    /**
     * @param args none.
     * @throws Exception if training fails.
     */
    public static void main(final String[] args) throws Exception
    {
        try (Communicator communicator = Jccl.connect(new Context());
            NDManager manager = NDManager.newBaseManager("PyTorch"))
        {
            final int rank = communicator.rank();
            final int size = communicator.size();
            final RandomAccessDataset all = syntheticData(manager, GLOBAL_BATCH / size);
            final RandomAccessDataset mine = JcclDatasets.shard(all, rank, size);
            final float[][] parallel = train(mine, JcclGradientSync.of(communicator), rank);
            if (rank == 0)
            {
                final float[][] single = train(syntheticData(manager, GLOBAL_BATCH), null, 0);
                System.out.printf("max relative difference of the weights, %d processes vs 1: %.3g%n", size,
                    maxRelativeDifference(parallel, single));
            }
        }
        System.exit(0);
    }

    private static float[][] train(final RandomAccessDataset data, final JcclGradientSync sync, final int rank)
        throws Exception
    {
        try (Model model = Model.newInstance("mlp", Device.cpu(), "PyTorch"))
        {
            model.setBlock(new SequentialBlock()
                .add(Linear.builder().setUnits(HIDDEN).build())
                .add(Activation.reluBlock())
                .add(Linear.builder().setUnits(1).build()));
            final DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.l2Loss())
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(0.05f)).build())
                .optDevices(new Device[] {Device.cpu()})
                .addTrainingListeners(new EvaluatorTrainingListener());
            if (sync != null)
            {
                config.addTrainingListeners(sync);
            }
            try (Trainer trainer = model.newTrainer(config))
            {
                trainer.setMetrics(new Metrics());
                trainer.initialize(new Shape(1, FEATURES));
                // every rank draws its own start: the sync broadcasts rank 0's before the first batch
                final Random seeds = new Random(100 + rank);
                for (final Pair<String, Parameter> p : model.getBlock().getParameters())
                {
                    final float[] values = new float[(int)p.getValue().getArray().size()];
                    for (int i = 0; i < values.length; i++)
                    {
                        values[i] = (float)(seeds.nextGaussian() * 0.2);
                    }
                    p.getValue().getArray().set(values);
                }
                for (int epoch = 0; epoch < EPOCHS; epoch++)
                {
                    for (final Batch batch : trainer.iterateDataset(data))
                    {
                        if (sync != null)
                        {
                            sync.trainBatch(trainer, batch);
                        }
                        else
                        {
                            EasyTrain.trainBatch(trainer, batch);
                        }
                        trainer.step();
                        batch.close();
                    }
                    // this rank's mean loss over the epoch, then the mean over the ranks (every rank calls it)
                    final double mean = trainer.getLoss().getAccumulator(EvaluatorTrainingListener.TRAIN_EPOCH);
                    final double loss = sync == null ? mean : sync.averageAcrossRanks(mean);
                    trainer.notifyListeners(listener -> listener.onEpoch(trainer));
                    if (rank == 0)
                    {
                        System.out.printf("%s epoch %d: loss %.6f%n", sync == null ? "1 process " : "data-parallel",
                            epoch, loss);
                    }
                }
                final List<float[]> weights = new ArrayList<>();
                for (final Pair<String, Parameter> p : model.getBlock().getParameters())
                {
                    weights.add(p.getValue().getArray().toFloatArray());
                }
                return weights.toArray(new float[0][]);
            }
        }
    }

    private static RandomAccessDataset syntheticData(final NDManager manager, final int batchSize)
    {
        final Random random = new Random(42);
        final float[] x = new float[RECORDS * FEATURES];
        final float[] y = new float[RECORDS];
        for (int i = 0; i < RECORDS; i++)
        {
            double target = 0;
            for (int j = 0; j < FEATURES; j++)
            {
                x[i * FEATURES + j] = (float)random.nextGaussian();
                target += Math.sin((j + 1) * x[i * FEATURES + j]);
            }
            y[i] = (float)target;
        }
        final NDArray features = manager.create(x, new Shape(RECORDS, FEATURES));
        final NDArray labels = manager.create(y, new Shape(RECORDS, 1));
        return new ArrayDataset.Builder().setData(features).optLabels(labels).setSampling(batchSize, false).build();
    }

    private static double maxRelativeDifference(final float[][] actual, final float[][] reference)
    {
        double worst = 0;
        for (int p = 0; p < reference.length; p++)
        {
            double scale = 0;
            double diff = 0;
            for (int i = 0; i < reference[p].length; i++)
            {
                scale = Math.max(scale, Math.abs(reference[p][i]));
                diff = Math.max(diff, Math.abs((double)actual[p][i] - reference[p][i]));
            }
            worst = Math.max(worst, diff / scale);
        }
        return worst;
    }
}
