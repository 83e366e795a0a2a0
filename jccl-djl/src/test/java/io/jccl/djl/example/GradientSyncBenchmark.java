package io.jccl.djl.example;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.metric.Metric;
import ai.djl.metric.Metrics;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.Batch;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.translate.Batchifier;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import io.jccl.djl.JcclGradientSync;

import java.util.Arrays;
import java.util.List;

/**
 * Per training step of an MLP, on the ranks {@code bin/jccl-run} started: the time of forward and backward, of the
 * gradient sync (pack, AllReduce, unpack) and of {@code step()}, medians over the measured steps; then the bare
 * AllReduce (AVG, float) of the same bytes in one buffer of {@code Jccl.allocate}, on the same communicator. The
 * backward pass runs in a {@code noSync} scope, then the ranks line up (a one-element AllReduce) and the sync runs
 * alone, so that it measures packing and communication, not the peer's longer backward pass. Every rank prints its
 * own figures. Arguments: hidden width, layers, bucket bytes, steps, and {@code copy} to turn
 * {@link JcclGradientSync#gradientAsBucketView(boolean)} off.
 */
public final class GradientSyncBenchmark
{
    private static final int FEATURES = 1000;
    private static final int ROWS = 16;
    private static final int WARMUP = 2;

    private GradientSyncBenchmark()
    {
    }

    /**
     * @param args hidden width, hidden layers, bucket bytes, measured steps, optionally {@code copy}.
     */
    public static void main(final String[] args)
    {
        final int hidden = Integer.parseInt(args[0]);
        final int layers = Integer.parseInt(args[1]);
        final long bucketLength = Long.parseLong(args[2]);
        final int steps = Integer.parseInt(args[3]);
        final boolean views = args.length < 5 || !"copy".equals(args[4]);
        try (Communicator communicator = Jccl.connect(new Context());
            Model model = Model.newInstance("bench", Device.cpu(), "PyTorch"))
        {
            final SequentialBlock block = new SequentialBlock();
            for (int l = 0; l < layers; l++)
            {
                block.add(Linear.builder().setUnits(hidden).build()).add(Activation.reluBlock());
            }
            model.setBlock(block.add(Linear.builder().setUnits(1).build()));
            final JcclGradientSync sync = JcclGradientSync.of(communicator).bucketLength(bucketLength)
                .gradientAsBucketView(views);
            final DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.l2Loss())
                .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(1e-4f)).build())
                .optDevices(new Device[] {Device.cpu()}).addTrainingListeners(sync);
            try (Trainer trainer = model.newTrainer(config))
            {
                final Metrics metrics = new Metrics();
                trainer.setMetrics(metrics);
                trainer.initialize(new Shape(1, FEATURES));
                final long parameters = model.getBlock().getParameters().stream()
                    .mapToLong(p -> p.getValue().getArray().size()).sum();
                final long bytes = parameters * Float.BYTES;
                final long[] backwardNs = new long[steps];
                final long[] stepNs = new long[steps];
                final long[] bareBetweenNs = new long[steps];
                final HostBuffer bare = Jccl.allocate(bytes);
                try (NDManager manager = trainer.getManager().newSubManager())
                {
                    final Batch batch = new Batch(manager, new NDList(manager.randomNormal(new Shape(ROWS, FEATURES))),
                        new NDList(manager.randomNormal(new Shape(ROWS, 1))), ROWS, Batchifier.STACK,
                        Batchifier.STACK, 0, 1);
                    for (int s = 0; s < WARMUP + steps; s++)
                    {
                        final long t0 = System.nanoTime();
                        try (JcclGradientSync.NoSync local = sync.noSync())
                        {
                            sync.trainBatch(trainer, batch);
                        }
                        final long t1 = System.nanoTime();
                        // line the ranks up, so that the sync measures communication and not the peer's backward
                        sync.averageAcrossRanks(0);
                        sync.onTrainingBatch(trainer, null);
                        final long t2 = System.nanoTime();
                        trainer.step();
                        final long t3 = System.nanoTime();
                        // the same bytes in a buffer of their own, after the same forward, backward and step
                        sync.averageAcrossRanks(0);
                        final long t4 = System.nanoTime();
                        communicator.allReduce(bare, bare, parameters, DataType.FLOAT32, ReduceOp.AVG);
                        final long t5 = System.nanoTime();
                        if (s >= WARMUP)
                        {
                            backwardNs[s - WARMUP] = t1 - t0;
                            stepNs[s - WARMUP] = t3 - t2;
                            bareBetweenNs[s - WARMUP] = t5 - t4;
                        }
                    }
                }
                final long[] syncNs = last(metrics, JcclGradientSync.SYNC_METRIC, steps);
                final long bareNs = backToBack(communicator, bare, steps);
                Jccl.free(bare);
                final long syncMedian = median(syncNs);
                final long between = median(bareBetweenNs);
                System.out.printf("%d ranks, %d parameters (%.1f MB), %d buckets of %d bytes, gradients %s%n",
                    communicator.size(), parameters, bytes / 1e6, sync.bucketCount(), bucketLength,
                    sync.gradientAsBucketView() ? "as bucket views" : "copied");
                System.out.printf("median per step: forward+backward %.1f ms, sync %.1f ms, step() %.1f ms%n",
                    median(backwardNs) / 1e6, syncMedian / 1e6, median(stepNs) / 1e6);
                System.out.printf("bare AllReduce of the same bytes: between steps %.1f ms (sync/bare %.2f), " +
                    "back to back %.1f ms (sync/bare %.2f)%n", between / 1e6, syncMedian / (double)between, bareNs / 1e6,
                    syncMedian / (double)bareNs);
                System.out.printf("sync parts: pack %.1f ms, wait after packing %.1f ms, unpack %.1f ms%n",
                    median(last(metrics, JcclGradientSync.PACK_METRIC, steps)) / 1e6,
                    median(last(metrics, JcclGradientSync.WAIT_METRIC, steps)) / 1e6,
                    median(last(metrics, JcclGradientSync.UNPACK_METRIC, steps)) / 1e6);
            }
        }
        System.exit(0);
    }

    /** @return the median time of AllReduces of the buffer, one after another as all_reduce_perf times them. */
    private static long backToBack(final Communicator communicator, final HostBuffer buffer, final int iterations)
    {
        final long[] ns = new long[iterations];
        for (int i = 0; i < WARMUP + iterations; i++)
        {
            final long t0 = System.nanoTime();
            communicator.allReduce(buffer, buffer, buffer.length() / Float.BYTES, DataType.FLOAT32, ReduceOp.AVG);
            if (i >= WARMUP)
            {
                ns[i - WARMUP] = System.nanoTime() - t0;
            }
        }
        return median(ns);
    }

    private static long[] last(final Metrics metrics, final String name, final int count)
    {
        final List<Metric> all = metrics.getMetric(name);
        return all.subList(all.size() - count, all.size()).stream().mapToLong(m -> m.getValue().longValue()).toArray();
    }

    private static long median(final long[] values)
    {
        final long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
