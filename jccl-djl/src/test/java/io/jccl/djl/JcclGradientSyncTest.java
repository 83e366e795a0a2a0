package io.jccl.djl;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.Batch;
import ai.djl.training.loss.Loss;
import ai.djl.translate.Batchifier;
import io.jccl.Communicator;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.core.Jccl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sync's options and its small collectives. */
class JcclGradientSyncTest
{
    @Test
    @Timeout(60)
    void shouldAverageAValueOverTheRanksWhenEveryRankCalls() throws Exception
    {
        final Communicator[] comms = Jccl.initAll(3);
        final ExecutorService threads = Executors.newFixedThreadPool(3);
        try
        {
            final List<Future<Double>> averages = new ArrayList<>();
            for (final Communicator comm : comms)
            {
                final JcclGradientSync sync = JcclGradientSync.of(comm);
                averages.add(threads.submit(() -> sync.averageAcrossRanks(comm.rank() + 0.5)));
            }
            for (final Future<Double> average : averages)
            {
                assertEquals(1.5, average.get(30, TimeUnit.SECONDS), 1e-15);
            }
        }
        finally
        {
            threads.shutdownNow();
            for (final Communicator comm : comms)
            {
                comm.close();
            }
        }
    }

    @Test
    void shouldRejectOptionsOutOfRangeNamingThem()
    {
        final Communicator[] comms = Jccl.initAll(2);
        try
        {
            final JcclGradientSync sync = JcclGradientSync.of(comms[0]);
            assertEquals(JcclGradientSync.BUCKET_LENGTH_DEFAULT, sync.bucketLength());
            assertEquals(25L * 1024 * 1024, sync.bucketLength());
            assertTrue(sync.broadcastOnFirstBatch());
            assertTrue(assertThrows(JcclInvalidArgumentException.class, () -> sync.bucketLength(0)).getMessage()
                .contains("bucketLength=0"));
            assertTrue(assertThrows(JcclInvalidArgumentException.class, () -> sync.root(2)).getMessage()
                .contains("root=2"));
            assertThrows(JcclInvalidArgumentException.class, () -> JcclGradientSync.of(null));
            assertEquals(1, sync.root(1).root());
        }
        finally
        {
            for (final Communicator comm : comms)
            {
                comm.close();
            }
        }
    }

    @Test
    void shouldRefuseToTrainWhenTheSyncIsNotATrainingListener()
    {
        final Communicator[] comms = Jccl.initAll(1);
        try (Model model = Model.newInstance("unregistered", Device.cpu(), "PyTorch"))
        {
            model.setBlock(TrainingRun.block("linear", 1));
            final JcclGradientSync sync = JcclGradientSync.of(comms[0]);
            try (Trainer trainer = model.newTrainer(new DefaultTrainingConfig(Loss.l2Loss()));
                NDManager manager = trainer.getManager().newSubManager())
            {
                trainer.initialize(new Shape(1, TrainingRun.FEATURES));
                final Batch batch = new Batch(manager, new NDList(manager.ones(new Shape(1, TrainingRun.FEATURES))),
                    new NDList(manager.ones(new Shape(1, 1))), 1, Batchifier.STACK, Batchifier.STACK, 0, 1);
                assertTrue(assertThrows(JcclInvalidUsageException.class, () -> sync.trainBatch(trainer, batch))
                    .getMessage().contains("addTrainingListeners"));
            }
        }
        finally
        {
            comms[0].close();
        }
    }
}
