package io.jccl.spark;

import io.jccl.Algorithm;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclAbortedException;
import io.jccl.JcclException;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.JcclTimeoutException;
import io.jccl.ReduceOp;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import io.jccl.spark.example.LocalSpark;
import io.jccl.testkit.ReferenceCollectives;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every local master must pass: the tasks of a barrier stage form a communicator whose AllReduce, AllGather and
 * Broadcast of random floats equal what the driver computes from the same partitions with the testkit's oracle
 * (RING pinned, so floating-point sums compare bit for bit); two stages in a row get two communicators, both closed
 * when their tasks end; a task that fails on its first attempt fails its stage at once and the rerun finishes; bad
 * arguments are refused on the driver, naming them. Subclasses name the master ({@code local[2]}, {@code local[3]}).
 * <p>
 * In {@code local[N]} the tasks are threads of this JVM, so the tasks record what they saw in static queues the
 * test reads afterwards. Threads: JUnit's, and Spark's task threads.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
abstract class BarrierCollectivesContract
{
    /** Elements per rank: a prime, so the ring's segments differ in length, and several FIFO slots' worth. */
    static final int COUNT = 100_003;
    /** Each test's settings: RING for a reduction order the oracle knows, a deadline far below the test's. */
    static final ContextFactory SETTINGS = () -> new Context().algorithm(Algorithm.RING).timeoutMs(60_000);

    static final Queue<Communicator> SEEN = new ConcurrentLinkedQueue<>();
    static final Queue<String> ATTEMPTS = new ConcurrentLinkedQueue<>();
    static final Queue<Class<?>> SURVIVOR_ERRORS = new ConcurrentLinkedQueue<>();
    static final Queue<String> JOB_OUTCOME = new ConcurrentLinkedQueue<>();
    static final AtomicReference<CountDownLatch> WAITING = new AtomicReference<>();
    static final AtomicReference<CountDownLatch> ENDED = new AtomicReference<>();

    private JavaSparkContext spark;

    /** @return the Spark master the tests run on. */
    abstract String master();

    /** jccl's files in the shared-memory directory when the test began (another run's, a dead process's). */
    private List<String> filesBefore;

    /** @return the number of tasks, and ranks, of each stage: at most the master's slots. */
    abstract int ranks();

    @BeforeAll
    void startSpark() throws InterruptedException
    {
        spark = LocalSpark.start(master(), 0);
    }

    @AfterAll
    void stopSpark()
    {
        if (spark != null)
        {
            spark.stop();
        }
    }

    @BeforeEach
    void clearRecords()
    {
        filesBefore = jcclFiles();
        SEEN.clear();
        ATTEMPTS.clear();
        SURVIVOR_ERRORS.clear();
        JOB_OUTCOME.clear();
    }

    @Test
    void shouldAllReduceAsTheDriverComputesWhenEveryPartitionHoldsRandomFloats()
    {
        final float[][] inputs = inputs(1);
        final List<float[]> outputs = JcclSpark.mapPartitions(partitions(inputs), SETTINGS,
            (Communicator comm, java.util.Iterator<float[]> partition) ->
            {
                final HostBuffer buffer = Floats.buffer(partition.next());
                comm.allReduce(buffer, buffer, COUNT, DataType.FLOAT32, ReduceOp.SUM);
                return List.of(Floats.array(buffer)).iterator();
            }).collect();

        final float[] expected = Floats.array(ReferenceCollectives.allReduce(Algorithm.RING, bytes(inputs), COUNT,
            DataType.FLOAT32, ReduceOp.SUM));
        assertEquals(ranks(), outputs.size());
        for (int r = 0; r < ranks(); r++)
        {
            assertArrayEquals(expected, outputs.get(r), "rank " + r);
        }
    }

    @Test
    void shouldAllGatherAndBroadcastAsTheDriverComputesWhenEveryPartitionHoldsRandomFloats()
    {
        final float[][] inputs = inputs(2);
        final int root = ranks() - 1;
        // no arithmetic, so any algorithm: the default settings, through the entry without a ContextFactory
        final List<float[]> outputs = JcclSpark.mapPartitions(partitions(inputs),
            (Communicator comm, java.util.Iterator<float[]> partition) ->
            {
                final HostBuffer mine = Floats.buffer(partition.next());
                final HostBuffer gathered = HostBuffer.allocate(4L * COUNT * comm.size());
                comm.allGather(mine, gathered, COUNT, DataType.FLOAT32);
                final HostBuffer broadcast = HostBuffer.allocate(4L * COUNT);
                comm.broadcast(mine, broadcast, COUNT, DataType.FLOAT32, root);
                return List.of(Floats.array(gathered), Floats.array(broadcast)).iterator();
            }).collect();

        final float[] gathered = Floats.array(ReferenceCollectives.allGather(bytes(inputs), COUNT, DataType.FLOAT32));
        assertEquals(2 * ranks(), outputs.size());
        for (int r = 0; r < ranks(); r++)
        {
            assertArrayEquals(gathered, outputs.get(2 * r), "AllGather, rank " + r);
            assertArrayEquals(inputs[root], outputs.get(2 * r + 1), "Broadcast from " + root + ", rank " + r);
        }
    }

    @Test
    void shouldGiveEachStageItsOwnCommunicatorWhenTwoStagesRunInARow()
    {
        final float[][] inputs = inputs(3);
        final BarrierFunction<float[], float[]> sum = (comm, partition) ->
        {
            SEEN.add(comm);
            final HostBuffer buffer = Floats.buffer(partition.next());
            comm.allReduce(buffer, buffer, COUNT, DataType.FLOAT32, ReduceOp.SUM);
            return List.of(Floats.array(buffer)).iterator();
        };
        final JavaRDD<float[]> first = JcclSpark.mapPartitions(partitions(inputs), SETTINGS, sum);
        final List<float[]> outputs = JcclSpark.mapPartitions(first, SETTINGS, sum).collect();

        assertSummedTwice(inputs, outputs);
        final Set<Communicator> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        distinct.addAll(SEEN);
        assertEquals(2 * ranks(), distinct.size(), "one communicator per task of each stage: " + SEEN);
        for (final Communicator comm : SEEN)
        {
            final HostBuffer one = HostBuffer.allocate(4);
            assertThrows(JcclInvalidUsageException.class,
                () -> comm.allReduce(one, one, 1, DataType.FLOAT32, ReduceOp.SUM), "closed when its task ended");
        }
    }

    @Test
    void shouldRerunTheWholeStageWhenOneTaskFailsOnItsFirstAttempt() throws InterruptedException
    {
        final float[][] inputs = inputs(4);
        final int failing = ranks() - 1;
        final List<float[]> outputs = JcclSpark.mapPartitions(partitions(inputs), SETTINGS,
            (Communicator comm, java.util.Iterator<float[]> partition) ->
            {
                final int attempt = BarrierTaskContext.get().stageAttemptNumber();
                ATTEMPTS.add(attempt + "/" + comm.rank());
                final HostBuffer buffer = Floats.buffer(partition.next());
                comm.allReduce(buffer, buffer, COUNT, DataType.FLOAT32, ReduceOp.SUM);
                if (attempt == 0 && comm.rank() == failing)
                {
                    throw new IllegalStateException("rank " + failing + " fails its first attempt on purpose");
                }
                try
                {
                    // the failing rank never joins this one: the others must fail, not wait
                    comm.allReduce(buffer, buffer, COUNT, DataType.FLOAT32, ReduceOp.SUM);
                }
                catch (final JcclException ex)
                {
                    SURVIVOR_ERRORS.add(ex.getClass());
                    throw ex;
                }
                return List.of(Floats.array(buffer)).iterator();
            }).collect();

        assertSummedTwice(inputs, outputs);
        for (int r = 0; r < ranks(); r++)
        {
            assertTrue(ATTEMPTS.contains("0/" + r) && ATTEMPTS.contains("1/" + r), "attempts run: " + ATTEMPTS);
        }
        assertFalse(SURVIVOR_ERRORS.contains(JcclTimeoutException.class),
            "a survivor waited for its deadline instead of failing with its peer: " + SURVIVOR_ERRORS);
        assertNoNewSharedFiles();
    }

    @Test
    void shouldAbortTheCollectiveOfATaskBlockedInItWhenItsJobIsCancelled() throws InterruptedException
    {
        final JavaRDD<float[]> rdd = partitions(inputs(6));
        final CountDownLatch waiting = new CountDownLatch(1);
        final CountDownLatch ended = new CountDownLatch(1);
        WAITING.set(waiting);
        ENDED.set(ended);
        final Thread submitter = new Thread(() ->
        {
            spark.setJobGroup("cancelled", "a barrier stage cancelled while rank 0 waits in an AllReduce", false);
            try
            {
                JcclSpark.mapPartitions(rdd, SETTINGS, (Communicator comm, java.util.Iterator<float[]> partition) ->
                {
                    final HostBuffer buffer = Floats.buffer(partition.next());
                    if (comm.rank() == 0)
                    {
                        WAITING.get().countDown();
                        try
                        {
                            // no other rank calls it: only the cancellation can end it before the deadline
                            comm.allReduce(buffer, buffer, COUNT, DataType.FLOAT32, ReduceOp.SUM);
                        }
                        catch (final JcclException ex)
                        {
                            SURVIVOR_ERRORS.add(ex.getClass());
                            throw ex;
                        }
                        finally
                        {
                            ENDED.get().countDown();
                        }
                    }
                    else
                    {
                        while (!BarrierTaskContext.get().isInterrupted())
                        {
                            Thread.sleep(10);
                        }
                    }
                    return List.of(Floats.array(buffer)).iterator();
                }).collect();
                JOB_OUTCOME.add("finished");
            }
            catch (final Exception ex)
            {
                // Spark's SparkException is checked, and thrown undeclared through Scala
                JOB_OUTCOME.add(String.valueOf(ex.getMessage()));
            }
        });
        submitter.start();
        waiting.await();
        spark.cancelJobGroup("cancelled");
        submitter.join();
        // the job reports its cancellation at once; its tasks end afterwards
        ended.await();

        assertTrue(JOB_OUTCOME.size() == 1 && JOB_OUTCOME.peek().contains("cancelled"), "outcome: " + JOB_OUTCOME);
        assertEquals(List.of(JcclAbortedException.class), new ArrayList<>(SURVIVOR_ERRORS),
            "rank 0's AllReduce ended by the abort, not by its deadline");
        assertNoNewSharedFiles();
    }

    @Test
    void shouldRefuseNullArgumentsAndBadSettingsOnTheDriverNamingThem()
    {
        final JavaRDD<float[]> rdd = partitions(inputs(5));
        final BarrierFunction<float[], float[]> same = (comm, partition) -> partition;
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> JcclSpark.mapPartitions(null, SETTINGS, same)).getMessage().startsWith("rdd"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> JcclSpark.mapPartitions(rdd, null, same)).getMessage().startsWith("context"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> JcclSpark.mapPartitions(rdd, SETTINGS, null)).getMessage().startsWith("function"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> JcclSpark.mapPartitions(rdd, () -> new Context().timeoutMs(0), same)).getMessage()
            .contains(Context.TIMEOUT_MS_PROP_NAME));
        assertEquals(0, spark.sc().statusTracker().getActiveJobIds().length, "no job started");
    }

    /**
     * @param seed distinguishes the tests' data.
     * @return one array of random floats per rank.
     */
    float[][] inputs(final long seed)
    {
        final float[][] inputs = new float[ranks()][];
        for (int r = 0; r < ranks(); r++)
        {
            inputs[r] = Floats.random(COUNT, seed * 1_000 + r);
        }
        return inputs;
    }

    /**
     * @param inputs one array per rank.
     * @return an RDD whose partition r holds inputs[r] alone.
     */
    JavaRDD<float[]> partitions(final float[][] inputs)
    {
        return spark.parallelize(new ArrayList<>(Arrays.asList(inputs)), inputs.length);
    }

    /**
     * @return jccl's files in the shared-memory directory that the test made and left: shared buffers, FIFO files,
     *         standing files (the tasks of local[N] are this JVM, and nothing else runs beside a module's tests).
     */
    List<String> newSharedFiles()
    {
        final List<String> left = new ArrayList<>(jcclFiles());
        left.removeAll(filesBefore);
        return left;
    }

    /**
     * Waits until every file the test added to the shared-memory directory is gone, at most 30 s: a task's
     * communicator closes in its completion listener, which Spark runs after the task's function returned (the
     * killed tasks' a moment after the job reported its cancellation). A file that stays is a leak.
     *
     * @throws InterruptedException if interrupted while waiting.
     */
    void assertNoNewSharedFiles() throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!newSharedFiles().isEmpty() && System.nanoTime() < deadline)
        {
            Thread.sleep(50);
        }
        assertEquals(List.of(), newSharedFiles(), "left in " + Jccl.sharedMemoryDirectory());
    }

    private static List<String> jcclFiles()
    {
        try (Stream<Path> files = Files.list(Jccl.sharedMemoryDirectory()))
        {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("jccl-")).sorted().toList();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static ByteBuffer[] bytes(final float[][] inputs)
    {
        return Arrays.stream(inputs).map(Floats::bytes).toArray(ByteBuffer[]::new);
    }

    /** Each rank's output is the ring AllReduce (sum) of the inputs, AllReduced once more across the ranks. */
    private void assertSummedTwice(final float[][] inputs, final List<float[]> outputs)
    {
        final float[] once = Floats.array(ReferenceCollectives.allReduce(Algorithm.RING, bytes(inputs), COUNT,
            DataType.FLOAT32, ReduceOp.SUM));
        final float[][] sums = new float[ranks()][];
        Arrays.fill(sums, once);
        final float[] twice = Floats.array(ReferenceCollectives.allReduce(Algorithm.RING, bytes(sums), COUNT,
            DataType.FLOAT32, ReduceOp.SUM));
        for (int r = 0; r < ranks(); r++)
        {
            assertArrayEquals(twice, outputs.get(r), "rank " + r);
        }
    }
}
