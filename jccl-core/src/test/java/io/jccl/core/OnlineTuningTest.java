package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.TuningReport;
import io.jccl.Work;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code JCCL_TUNER=auto}: the online search runs on the job's own calls, every rank runs the same plan for the
 * same call whatever each rank's timing, results stay exact, and the search tries several plans and then settles.
 */
@Timeout(120)
class OnlineTuningTest
{
    private static final int RANKS = 2;
    private final SystemSettings settings = new SystemSettings();

    @AfterEach
    void clearProperties()
    {
        settings.clear();
    }

    private void set(final String variable, final String value)
    {
        settings.set(variable, value);
    }

    @Test
    void shouldRunTheSamePlansInLockStepWithExactResultsWhenRanksRunAtRandomSpeeds(@TempDir final Path dir)
        throws Exception
    {
        set("JCCL_TUNER_HOLD", "2");
        set("JCCL_TUNER_BUDGET", "60");
        // the random delays below are injected on purpose: drift detection would rightly read them as a slower
        // machine and re-tune, which this test is not about
        set("JCCL_TUNER_DRIFT_WINDOW", "0");
        final int calls = 150;
        final long count = 16 * 1024;
        final Path traceFile = dir.resolve("trace.csv");
        final Communicator[] comms = Jccl.initAll(new Context().tunerMode(Context.TunerMode.AUTO)
            .tunerTraceFile(traceFile), RANKS);
        final List<List<Plan>> plans = new ArrayList<>();
        final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final Thread[] threads = new Thread[RANKS];
        for (int r = 0; r < RANKS; r++)
        {
            final List<Plan> mine = new ArrayList<>();
            plans.add(mine);
            final Communicator comm = comms[r];
            threads[r] = new Thread(() ->
            {
                try
                {
                    final Random random = new Random(comm.rank());
                    final HostBuffer send = HostBuffer.allocate(count * 4);
                    final HostBuffer recv = HostBuffer.allocate(count * 4);
                    for (int call = 0; call < calls; call++)
                    {
                        for (int i = 0; i < count; i++)
                        {
                            send.byteBuffer().putFloat(i * 4, comm.rank() + call);
                        }
                        final Work work = comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM,
                            Stream.DEFAULT);
                        work.join();
                        final float expected = 2 * call + 1;
                        assertEquals(expected, recv.byteBuffer().getFloat(0), "call " + call);
                        assertEquals(expected, recv.byteBuffer().getFloat((int)(count * 4 - 4)), "call " + call);
                        mine.add(work.plan());
                        if (random.nextInt(10) == 0)
                        {
                            Thread.sleep(random.nextInt(3));
                        }
                    }
                }
                catch (final Throwable ex)
                {
                    failures.add(ex);
                }
            }, "rank-" + r);
            threads[r].start();
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        final List<TuningReport> reports = Jccl.tuningReports(comms[0]);
        for (final Communicator c : comms)
        {
            c.close();
        }
        assertTrue(failures.isEmpty(), () -> failures.peek().toString());
        assertEquals(1, reports.size(), "one task: " + reports);
        assertTrue(reports.get(0).converged(), reports.get(0).line());
        final List<String> trace = Files.readAllLines(traceFile);
        assertEquals("task,call,plan,ns,outcome", trace.get(0));
        assertEquals(calls, trace.size() - 1, "every call of rank 0 traced");
        for (int call = 0; call < calls; call++)
        {
            final String[] fields = trace.get(call + 1).split(",");
            assertEquals(Integer.toString(call), fields[1]);
            assertEquals("ok", fields[4]);
        }
        assertEquals(plans.get(0), plans.get(1), "every rank ran the same plan for every call");
        assertTrue(new HashSet<>(plans.get(0)).size() > 1, "the search tried several plans: " + plans.get(0));
        final Plan last = plans.get(0).get(calls - 1);
        assertEquals(last, plans.get(0).get(calls - 2), "settled by the end of the budget");
    }

    @Test
    void shouldReuseTheConvergedPlanWithoutTuningWhenTheSaveFileOfAnEarlierRunIsThere(@TempDir final Path dir)
    {
        set("JCCL_TUNER_HOLD", "1");
        set("JCCL_TUNER_BUDGET", "20");
        set("JCCL_TUNER_SAVE_FILE", dir.resolve("tuned.txt").toString());
        final Plan first = runBlocking(80).get(79);
        final List<Plan> second = runBlocking(5);
        assertEquals(List.of(first, first, first, first, first), second, "the saved plan from the first call on");
    }

    @Test
    void shouldTakeTheContextsTunerSettingsOverTheVariables(@TempDir final Path dir)
    {
        final Path variables = dir.resolve("from-variables.txt");
        final Path context = dir.resolve("from-context.txt");
        set("JCCL_TUNER_HOLD", "1");
        set("JCCL_TUNER_BUDGET", "20");
        set("JCCL_TUNER_SAVE_FILE", variables.toString());
        assertEquals(1, new Context().onlineTuner().holdCalls(), "read from the variables");
        assertEquals(variables, new Context().tunerSaveFile());
        assertEquals(context, new Context().tunerSaveFile(context).tunerSaveFile());

        runBlocking(new Context().tunerMode(Context.TunerMode.AUTO).tunerSaveFile(context), 80);
        assertTrue(java.nio.file.Files.exists(context), "saved where the Context said");
        assertFalse(java.nio.file.Files.exists(variables), "not where the variable said");

        runBlocking(new Context().tunerMode(Context.TunerMode.AUTO).tunerSaveFile(null), 80);
        assertFalse(java.nio.file.Files.exists(variables), "a Context without a save file saves nowhere");
    }

    /** Runs {@code calls} AllReduce of 4096 floats on 2 ranks under JCCL_TUNER=auto; returns rank 0's plans. */
    private static List<Plan> runBlocking(final int calls)
    {
        return runBlocking(new Context().tunerMode(Context.TunerMode.AUTO), calls);
    }

    /** Runs {@code calls} AllReduce of 4096 floats on 2 ranks created with this context; returns rank 0's plans. */
    private static List<Plan> runBlocking(final Context context, final int calls)
    {
        final Communicator[] comms = Jccl.initAll(context, RANKS);
        final List<Plan> plans = new ArrayList<>();
        try
        {
            final HostBuffer[] buffers = {HostBuffer.allocate(4096 * 4), HostBuffer.allocate(4096 * 4)};
            for (int call = 0; call < calls; call++)
            {
                final Work[] works = new Work[RANKS];
                Jccl.groupStart();
                for (int r = 0; r < RANKS; r++)
                {
                    works[r] = comms[r].allReduce(buffers[r], buffers[r], 4096, DataType.FLOAT32, ReduceOp.MAX,
                        Stream.DEFAULT);
                }
                Jccl.groupEnd();
                for (final Work w : works)
                {
                    w.join();
                }
                plans.add(works[0].plan());
            }
            return plans;
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.close();
            }
        }
    }

    @Test
    void shouldNameTheVariableWhenTheTunerIsUnknown()
    {
        set("JCCL_TUNER", "fastest");
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> Jccl.initAll(new Context(), 2));
        assertTrue(ex.getMessage().contains("JCCL_TUNER") && ex.getMessage().contains("auto"), ex.getMessage());
    }
}
