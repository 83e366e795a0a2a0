package io.jccl.djl;

import ai.djl.Model;
import ai.djl.metric.Metrics;
import ai.djl.nn.Parameter;
import ai.djl.nn.ParameterList;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.Batch;
import ai.djl.training.listener.TrainingListener;
import ai.djl.util.Pair;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.ReduceOp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;

/**
 * Data-parallel training for a DJL {@link Trainer}: after each batch's backward pass, before {@link Trainer#step()},
 * every trainable parameter's gradient is replaced by its average over the ranks of a jccl {@link Communicator}
 * (as PyTorch's DistributedDataParallel does), and before the first batch every rank takes one rank's weights.
 * <pre>{@code
 * Communicator comm = Jccl.connect(new Context());          // one rank per process, from the launcher's environment
 * JcclGradientSync sync = JcclGradientSync.of(comm);
 * try (Trainer trainer = model.newTrainer(config.addTrainingListeners(sync)))
 * {
 *     trainer.initialize(inputShape);
 *     for (Batch batch : trainer.iterateDataset(myShard))
 *     {
 *         sync.trainBatch(trainer, batch);                  // EasyTrain.trainBatch, made safe for ranks in one JVM
 *         trainer.step();
 *         batch.close();
 *     }
 * }
 * }</pre>
 * <b>How gradients travel.</b> The gradients are packed in {@code block.getParameters()} order (the same on every
 * rank; DJL's parameter store walks its parameters in an order that differs per process) into buckets of at most
 * {@link #bucketLength()} bytes of one host buffer from {@code Jccl.allocate}, made at the first batch and reused
 * for every later one. Each bucket's AllReduce (AVG, in the parameters' element type or the narrower
 * {@link #compression(DataType)}) starts as soon as it is packed, so packing the next bucket overlaps it; the
 * averages are written back into the gradient arrays before {@code step()}. Written back the first time, the
 * gradients stay in the buckets as their storage ({@link #gradientAsBucketView(boolean)}, on by default where they
 * travel in their own type), so from the second batch on backward writes them there and a sync copies nothing.
 * Gradients on a GPU device are copied to host memory and back: DJL's {@code NDArray} hands out no device address
 * ({@code toByteBuffer} copies to the host, and the PyTorch engine's handle is the tensor object, not its data), so
 * there is nothing for jccl's CUDA path to take in place.
 * <p>
 * <b>Starting in agreement.</b> {@link #broadcastParameters(Model, int)} first compares every rank's parameter
 * names, shapes and types (a mismatch fails on every rank, naming the first differing parameter on each), then
 * copies the root's values to every rank. {@link #trainBatch(Trainer, Batch)} does so before its first forward pass
 * unless {@link #broadcastOnFirstBatch(boolean)} turned it off. A first batch trained another way (DJL's
 * {@code EasyTrain}) without a broadcast before it is checked instead: if some rank's values differ from the
 * root's, every rank fails, since gradients of different weights must not be averaged.
 * <p>
 * <b>Ranks in one JVM</b> ({@code Jccl.initAll}, one thread and one trainer per rank): DJL's PyTorch engine allows
 * one gradient collector per JVM, so {@link #trainBatch(Trainer, Batch)} runs the forward and backward passes under
 * one JVM-wide lock and the gradient AllReduce after releasing it. Train through it, not {@code EasyTrain}, there.
 * <p>
 * One instance serves one rank's trainer, from that rank's thread. It owns its buffer and frees it when the trainer
 * closes ({@link #onTrainingEnd(Trainer)}) or on {@link #close()}; the communicator stays the caller's.
 */
public final class JcclGradientSync implements TrainingListener, AutoCloseable
{
    /** The default of {@link #bucketLength()}: 25 MiB, as DistributedDataParallel's {@code bucket_cap_mb}. */
    public static final long BUCKET_LENGTH_DEFAULT = 25L << 20;

    /** The trainer's metric of each sync's nanoseconds (pack, AllReduce, unpack), where the trainer has metrics. */
    public static final String SYNC_METRIC = "jccl_gradient_sync";
    /** The trainer's metric of the nanoseconds a sync spent packing gradients and starting AllReduces. */
    public static final String PACK_METRIC = "jccl_gradient_pack";
    /** The trainer's metric of the nanoseconds a sync waited for its AllReduces once everything was packed. */
    public static final String WAIT_METRIC = "jccl_gradient_wait";
    /** The trainer's metric of the nanoseconds a sync spent writing the averages back. */
    public static final String UNPACK_METRIC = "jccl_gradient_unpack";

    /** DJL's PyTorch engine: one gradient collector per JVM. Released by whichever thread's batch reaches sync. */
    private static final Semaphore COLLECTOR = new Semaphore(1);
    private static final ThreadLocal<boolean[]> HOLDS_COLLECTOR = ThreadLocal.withInitial(() -> new boolean[1]);

    private final Communicator communicator;
    private long bucketLength = BUCKET_LENGTH_DEFAULT;
    private boolean broadcastOnFirstBatch = true;
    private DataType compression;
    private boolean gradientAsBucketView = true;
    private int root;
    private boolean inAgreement;
    private boolean registered;
    private GradientBuckets buckets;
    private long syncs;
    private HostBuffer scalar;
    private boolean skipping;

    private JcclGradientSync(final Communicator communicator)
    {
        this.communicator = communicator;
    }

    /**
     * @param communicator the ranks that train together, one trainer each; stays the caller's to close.
     * @return a gradient sync with the defaults, to add to the training config's listeners.
     * @throws JcclInvalidArgumentException if the communicator is null.
     */
    public static JcclGradientSync of(final Communicator communicator)
    {
        if (communicator == null)
        {
            throw new JcclInvalidArgumentException("communicator is null");
        }
        return new JcclGradientSync(communicator);
    }

    /** @return the most bytes of gradients one AllReduce carries. */
    public long bucketLength()
    {
        return bucketLength;
    }

    /**
     * @param length the most bytes of gradients one AllReduce carries while gradients are copied into the buckets,
     *               rounded down to whole elements (at least one element); smaller buckets start communicating
     *               sooner, larger ones cost fewer calls. Once every gradient lives in the buckets
     *               ({@link #gradientAsBucketView(boolean)}) there is nothing to pack and a sync is one AllReduce.
     * @return this.
     * @throws JcclInvalidArgumentException if the length is below 1.
     * @throws JcclInvalidUsageException    after the first batch has been synchronised.
     */
    public JcclGradientSync bucketLength(final long length)
    {
        if (length < 1)
        {
            throw new JcclInvalidArgumentException("bucketLength=" + length + " must be at least 1");
        }
        requireNotStarted("bucketLength");
        this.bucketLength = length;
        return this;
    }

    /** @return the type gradients travel in; null for their own type (the default). */
    public DataType compression()
    {
        return compression;
    }

    /**
     * Gradients travel in a narrower type (as DistributedDataParallel's fp16 and bf16 compression hooks): converted
     * from float32 while packed (round to nearest even), averaged in that type (jccl computes each step in float and
     * rounds back), and widened back to float32. Half the bytes, at the cost of 16-bit precision in the averages.
     *
     * @param type {@code FLOAT16} or {@code BFLOAT16} for float32 gradients; null to send gradients in their own type.
     * @return this.
     * @throws JcclInvalidArgumentException if the type is another one (checked against the gradients' type at the
     *                                      first batch).
     * @throws JcclInvalidUsageException    after the first batch has been synchronised.
     */
    public JcclGradientSync compression(final DataType type)
    {
        if (type != null && type != DataType.FLOAT16 && type != DataType.BFLOAT16)
        {
            throw new JcclInvalidArgumentException("compression=" + type + ": gradients travel as FLOAT16, BFLOAT16 " +
                "or (null) their own type");
        }
        requireNotStarted("compression");
        this.compression = type;
        return this;
    }

    /** @return whether gradients become views of the buckets (the default), where they travel in their own type. */
    public boolean gradientAsBucketView()
    {
        return gradientAsBucketView;
    }

    /**
     * As DistributedDataParallel's {@code gradient_as_bucket_view}: at the first sync every gradient array takes its
     * range of the buckets as storage, so later backward passes accumulate into the buckets and a sync is the
     * AllReduces alone, with no copy in or out (and one copy of the gradients in memory, not two). Each sync checks
     * per parameter that the gradient still lives there and copies any that does not (an engine whose
     * {@code NDArray.set} copies, a GPU array, a gradient the engine replaced). Closing this sync gives the gradients
     * private memory again. Off with {@link #compression(DataType)}, where the buckets hold another type.
     *
     * @param view false to copy gradients into the buckets and back at every sync.
     * @return this.
     * @throws JcclInvalidUsageException after the first batch has been synchronised.
     */
    public JcclGradientSync gradientAsBucketView(final boolean view)
    {
        requireNotStarted("gradientAsBucketView");
        this.gradientAsBucketView = view;
        return this;
    }

    /** @return whether {@link #trainBatch(Trainer, Batch)} broadcasts the root's parameters before the first batch. */
    public boolean broadcastOnFirstBatch()
    {
        return broadcastOnFirstBatch;
    }

    /**
     * @param broadcast false when the ranks start in agreement another way (weights loaded from one file, an explicit
     *                  {@link #broadcastParameters(Model, int)}); the first batch is then neither broadcast nor
     *                  checked.
     * @return this.
     * @throws JcclInvalidUsageException after the first batch has been synchronised.
     */
    public JcclGradientSync broadcastOnFirstBatch(final boolean broadcast)
    {
        requireNotStarted("broadcastOnFirstBatch");
        this.broadcastOnFirstBatch = broadcast;
        return this;
    }

    /** @return the rank whose parameters the first-batch broadcast copies to the others. */
    public int root()
    {
        return root;
    }

    /**
     * @param rank the rank whose parameters the first-batch broadcast copies to the others.
     * @return this.
     * @throws JcclInvalidArgumentException if the rank is outside the communicator.
     * @throws JcclInvalidUsageException    after the first batch has been synchronised.
     */
    public JcclGradientSync root(final int rank)
    {
        checkRank(rank);
        requireNotStarted("root");
        this.root = rank;
        return this;
    }

    /** @return the communicator the gradients are averaged over. */
    public Communicator communicator()
    {
        return communicator;
    }

    /** @return how many batches' gradients were averaged so far. */
    public long syncCount()
    {
        return syncs;
    }

    /** @return the buckets one sync uses; 0 before the first sync. */
    public int bucketCount()
    {
        return buckets == null ? 0 : buckets.bucketCount();
    }

    /**
     * @return how many trainable parameters' gradients live in the buckets ({@link #gradientAsBucketView(boolean)}),
     *         as of the last sync; 0 before the first sync and after {@link #close()}.
     */
    public int gradientsInBuckets()
    {
        return buckets == null ? 0 : buckets.viewCount();
    }

    /**
     * Makes every rank's parameters equal to the root's. Every rank calls it, with the same root, after
     * {@code trainer.initialize(...)}. The parameter lists are compared first.
     *
     * @param model this rank's model (its block initialized).
     * @param rank  the rank whose values are copied.
     * @throws JcclInvalidUsageException    on every rank, naming the first parameter that differs on each, when the
     *                                      ranks' parameter names, shapes or types differ; or when a parameter is
     *                                      not initialized.
     * @throws JcclInvalidArgumentException if the rank is outside the communicator or the model is null.
     * @throws io.jccl.JcclException        if a collective fails (a peer died, the deadline passed).
     */
    public void broadcastParameters(final Model model, final int rank)
    {
        if (model == null)
        {
            throw new JcclInvalidArgumentException("model is null");
        }
        checkRank(rank);
        final ParameterList parameters = model.getBlock().getParameters();
        ParameterAgreement.checkSameParameters(communicator, parameters);
        ParameterAgreement.broadcast(communicator, parameters, rank);
        inAgreement = true;
    }

    /**
     * Gradient accumulation without communication (DistributedDataParallel's {@code no_sync}): batches trained
     * inside the scope keep their gradients local, where DJL adds them up (it zeroes them only in {@code step()}),
     * and the first batch trained after it averages the sum across ranks. For k micro-batches per step: train k - 1
     * inside the scope, the k-th after it, then {@code step()}. The gradients are then the sum of the k batches'
     * gradients: scale the learning rate or the loss by 1/k for the mean. Every rank must use the same scopes.
     * <pre>{@code
     * try (JcclGradientSync.NoSync scope = sync.noSync())
     * {
     *     sync.trainBatch(trainer, micro[0]);
     *     sync.trainBatch(trainer, micro[1]);
     * }
     * sync.trainBatch(trainer, micro[2]);                 // averages the three batches' gradients
     * trainer.step();
     * }</pre>
     *
     * @return the scope; closing it makes later batches synchronise again.
     * @throws JcclInvalidUsageException if a scope of this sync is open already.
     */
    public NoSync noSync()
    {
        if (skipping)
        {
            throw new JcclInvalidUsageException("a noSync scope of this JcclGradientSync is open already");
        }
        skipping = true;
        return new NoSync(this);
    }

    /** A {@link #noSync()} scope: while it is open, batches keep their gradients local. */
    public static final class NoSync implements AutoCloseable
    {
        private JcclGradientSync sync;

        private NoSync(final JcclGradientSync sync)
        {
            this.sync = sync;
        }

        /** Ends the scope: the next batch averages the gradients accumulated so far. Idempotent. */
        @Override
        public void close()
        {
            if (sync != null)
            {
                sync.skipping = false;
                sync = null;
            }
        }
    }

    /**
     * The average of a value over the ranks, for logging the training loss or an evaluator's value as one process
     * would see it (each rank holding the mean over its equal shard). A collective: every rank calls it at the same
     * point of its loop, in the same order as its other calls on this communicator.
     *
     * @param value this rank's value.
     * @return the mean of every rank's value (float64; the same on every rank).
     * @throws io.jccl.JcclException if the AllReduce fails.
     */
    public double averageAcrossRanks(final double value)
    {
        if (scalar == null)
        {
            scalar = HostBuffer.allocate(Double.BYTES);
        }
        scalar.byteBuffer().putDouble(0, value);
        communicator.allReduce(scalar, scalar, 1, DataType.FLOAT64, ReduceOp.AVG);
        return scalar.byteBuffer().getDouble(0);
    }

    /**
     * Trains one batch as {@code EasyTrain.trainBatch} does (forward, loss, backward, then the listeners, this one
     * averaging the gradients), holding the JVM-wide gradient-collector lock during forward and backward only, so
     * ranks of one JVM can train on threads of their own. Before the first batch it broadcasts the root's parameters
     * unless {@link #broadcastOnFirstBatch(boolean)} turned that off. Call {@code trainer.step()} after it.
     *
     * @param trainer this rank's trainer, with this sync among its training listeners.
     * @param batch   this rank's batch.
     * @throws JcclInvalidUsageException if this sync is not among the trainer's listeners.
     * @throws io.jccl.JcclException     if a collective fails.
     */
    public void trainBatch(final Trainer trainer, final Batch batch)
    {
        if (!registered)
        {
            final boolean[] found = new boolean[1];
            trainer.notifyListeners(listener -> found[0] |= listener == this);
            if (!found[0])
            {
                throw new JcclInvalidUsageException("this JcclGradientSync is not a listener of the trainer: add it " +
                    "with DefaultTrainingConfig.addTrainingListeners before creating the trainer");
            }
            registered = true;
        }
        if (!inAgreement && broadcastOnFirstBatch)
        {
            // a collective: before taking the lock, which another rank of this JVM may be waiting for
            broadcastParameters(trainer.getModel(), root);
        }
        final boolean[] holds = HOLDS_COLLECTOR.get();
        COLLECTOR.acquireUninterruptibly();
        holds[0] = true;
        try
        {
            EasyTrain.trainBatch(trainer, batch);
        }
        finally
        {
            releaseCollector();
        }
    }

    /** Nothing to do at an epoch's end. */
    @Override
    public void onEpoch(final Trainer trainer)
    {
    }

    /**
     * Averages every trainable parameter's gradient across the ranks (after the batch's backward pass, before
     * {@code step()}), unless a {@link #noSync()} scope is open; at the first batch, first makes sure the ranks start
     * in agreement (see the class comment).
     *
     * @param trainer   this rank's trainer.
     * @param batchData the batch (unused).
     */
    @Override
    public void onTrainingBatch(final Trainer trainer, final BatchData batchData)
    {
        // the backward pass is over: let the next rank of this JVM start its own while this one communicates
        releaseCollector();
        if (skipping)
        {
            return;
        }
        if (trainer.getDevices().length != 1)
        {
            throw new JcclInvalidUsageException("the trainer has " + trainer.getDevices().length + " devices: " +
                "jccl-djl trains one device per rank (make one rank per device)");
        }
        final ParameterList parameters = trainer.getModel().getBlock().getParameters();
        if (!inAgreement)
        {
            if (broadcastOnFirstBatch)
            {
                ParameterAgreement.checkSameParameters(communicator, parameters);
                ParameterAgreement.checkSameValues(communicator, parameters, root, "call " +
                    "JcclGradientSync.broadcastParameters(model, root) after trainer.initialize, or train through " +
                    "JcclGradientSync.trainBatch, which broadcasts before the first forward pass");
            }
            inAgreement = true;
        }
        if (buckets == null)
        {
            buckets = new GradientBuckets(communicator, trainable(parameters), bucketLength, compression,
                gradientAsBucketView);
        }
        final long startNs = System.nanoTime();
        buckets.averageGradients();
        trainer.addMetric(SYNC_METRIC, startNs);
        final Metrics metrics = trainer.getMetrics();
        if (metrics != null)
        {
            metrics.addMetric(PACK_METRIC, buckets.lastPackNs());
            metrics.addMetric(WAIT_METRIC, buckets.lastWaitNs());
            metrics.addMetric(UNPACK_METRIC, buckets.lastUnpackNs());
        }
        syncs++;
    }

    /** Nothing to do after a validation batch. */
    @Override
    public void onValidationBatch(final Trainer trainer, final BatchData batchData)
    {
    }

    /** Nothing to do when the trainer is made: its parameters are not initialized yet. */
    @Override
    public void onTrainingBegin(final Trainer trainer)
    {
    }

    /** Frees the gradient buffer (the trainer is closing). */
    @Override
    public void onTrainingEnd(final Trainer trainer)
    {
        close();
    }

    /** Frees the gradient buffer; a later batch would allocate it again. Idempotent. */
    @Override
    public void close()
    {
        if (buckets != null)
        {
            buckets.close();
            buckets = null;
        }
    }

    private static List<Parameter> trainable(final ParameterList parameters)
    {
        final List<Parameter> trainable = new ArrayList<>();
        for (final Pair<String, Parameter> entry : parameters)
        {
            if (entry.getValue().requiresGradient())
            {
                trainable.add(entry.getValue());
            }
        }
        return trainable;
    }

    private static void releaseCollector()
    {
        final boolean[] holds = HOLDS_COLLECTOR.get();
        if (holds[0])
        {
            holds[0] = false;
            COLLECTOR.release();
        }
    }

    private void checkRank(final int rank)
    {
        if (rank < 0 || rank >= communicator.size())
        {
            throw new JcclInvalidArgumentException("root=" + rank + " is outside 0.." + (communicator.size() - 1));
        }
    }

    private void requireNotStarted(final String option)
    {
        if (buckets != null || syncs > 0)
        {
            throw new JcclInvalidUsageException(option + " cannot change after the first batch was synchronised");
        }
    }
}
