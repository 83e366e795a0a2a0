package io.jccl.transport.agent;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentThreadTest
{
    private static final long BOUND_MS = 2_000;

    private final RecordingLogger log = new RecordingLogger();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();

    @Test
    @Timeout(30)
    void shouldRunOnADaemonThreadWithTheGivenName() throws Exception
    {
        final TestAgent agent = new TestAgent(() -> 0);
        final AgentThread runner = newRunner("jccl-test-agent", agent).start();
        try
        {
            assertTrue(agent.started.await(BOUND_MS, TimeUnit.MILLISECONDS));
            assertEquals("jccl-test-agent", agent.thread.getName());
            assertTrue(agent.thread.isDaemon());
            assertEquals("jccl-test-agent", runner.name());
            assertFalse(runner.isCurrentThread());
        }
        finally
        {
            runner.close(BOUND_MS);
        }
    }

    @Test
    @Timeout(30)
    void shouldStopTheThreadWithinTheBoundWhenClosed() throws Exception
    {
        final CountDownLatch inWork = new CountDownLatch(1);
        final TestAgent agent = new TestAgent(() ->
        {
            inWork.countDown();
            return 1;
        });
        final AgentThread runner = newRunner("jccl-test-close", agent).start();
        assertTrue(inWork.await(BOUND_MS, TimeUnit.MILLISECONDS));

        final long startNs = System.nanoTime();
        assertTrue(runner.close(BOUND_MS));
        assertTrue(System.nanoTime() - startNs < TimeUnit.MILLISECONDS.toNanos(BOUND_MS));
        agent.thread.join(BOUND_MS);
        assertFalse(agent.thread.isAlive());
        assertEquals(1, agent.closes.get());
        assertTrue(failures.isEmpty());
        assertTrue(log.errors.isEmpty());
    }

    @Test
    @Timeout(30)
    void shouldReturnFalseWhenTheAgentOutlivesTheBound() throws Exception
    {
        final CountDownLatch inWork = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final TestAgent agent = new TestAgent(() ->
        {
            inWork.countDown();
            release.await();
            return 0;
        });
        final AgentThread runner = newRunner("jccl-test-stuck", agent).start();
        // closed before its first duty cycle, the agent would end at once
        assertTrue(inWork.await(BOUND_MS, TimeUnit.MILLISECONDS));

        assertFalse(runner.close(50));
        assertTrue(agent.thread.isAlive());
        release.countDown();
        agent.thread.join(BOUND_MS);
        assertFalse(agent.thread.isAlive());
        assertEquals(1, agent.closes.get());
    }

    @Test
    @Timeout(30)
    void shouldReportAnExceptionOnceToTheListenerAndTheLogWhenTheAgentThrows() throws Exception
    {
        final IllegalStateException fault = new IllegalStateException("a bug");
        final AtomicInteger cycles = new AtomicInteger();
        final TestAgent agent = new TestAgent(() ->
        {
            if (cycles.incrementAndGet() == 3)
            {
                throw fault;
            }
            return 0;
        });
        final AgentThread runner = newRunner("jccl-test-fault", agent).start();
        assertTrue(agent.started.await(BOUND_MS, TimeUnit.MILLISECONDS));

        agent.thread.join(BOUND_MS);
        assertFalse(agent.thread.isAlive(), "the agent ends with its fault");
        assertEquals(List.of(fault), failures);
        assertEquals(1, log.errors.size());
        assertTrue(log.errors.get(0).contains("jccl-test-fault"), log.errors.get(0));
        assertSame(fault, log.throwables.get(0));
        assertEquals(3, cycles.get());
        assertEquals(1, agent.closes.get());
        assertTrue(runner.close(BOUND_MS));
    }

    @Test
    @Timeout(30)
    void shouldReportAnErrorOnceWhenAgronaRethrowsIt() throws Exception
    {
        final AssertionError fault = new AssertionError("broken invariant");
        final TestAgent agent = new TestAgent(() ->
        {
            throw fault;
        });
        newRunner("jccl-test-error", agent).start();
        assertTrue(agent.started.await(BOUND_MS, TimeUnit.MILLISECONDS));

        agent.thread.join(BOUND_MS);
        assertFalse(agent.thread.isAlive());
        assertEquals(List.of(fault), failures);
        assertEquals(1, log.errors.size(), "the uncaught-exception handler does not log it again");
    }

    @Test
    @Timeout(30)
    void shouldEndQuietlyWhenTheAgentTerminatesItself() throws Exception
    {
        final TestAgent agent = new TestAgent(() ->
        {
            throw new AgentTerminationException("done");
        });
        newRunner("jccl-test-end", agent).start();
        assertTrue(agent.started.await(BOUND_MS, TimeUnit.MILLISECONDS));

        agent.thread.join(BOUND_MS);
        assertFalse(agent.thread.isAlive());
        assertTrue(failures.isEmpty());
        assertTrue(log.errors.isEmpty());
        assertEquals(1, agent.closes.get());
    }

    @Test
    void shouldCloseTheAgentHereWhenTheThreadNeverStarted()
    {
        final TestAgent agent = new TestAgent(() -> 0);
        assertTrue(newRunner("jccl-test-unstarted", agent).close(BOUND_MS));
        assertEquals(1, agent.closes.get());
    }

    private AgentThread newRunner(final String name, final Agent agent)
    {
        return new AgentThread(name, agent, new YieldingIdleStrategy(), failures::add, log);
    }

    /** One duty cycle of a test agent. */
    @FunctionalInterface
    private interface Work
    {
        int doWork() throws Exception;
    }

    private static final class TestAgent implements Agent
    {
        private final Work work;
        private final CountDownLatch started = new CountDownLatch(1);
        private final AtomicInteger closes = new AtomicInteger();
        private volatile Thread thread;

        TestAgent(final Work work)
        {
            this.work = work;
        }

        @Override
        public void onStart()
        {
            thread = Thread.currentThread();
            started.countDown();
        }

        @Override
        public int doWork() throws Exception
        {
            return work.doWork();
        }

        @Override
        public void onClose()
        {
            closes.incrementAndGet();
        }

        @Override
        public String roleName()
        {
            return "test";
        }
    }

    /** Keeps what is logged at error level. */
    private static final class RecordingLogger extends LegacyAbstractLogger
    {
        private static final long serialVersionUID = 1L;

        private final List<String> errors = new CopyOnWriteArrayList<>();
        private final List<Throwable> throwables = new CopyOnWriteArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName()
        {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(final Level level, final Marker marker, final String pattern,
            final Object[] arguments, final Throwable throwable)
        {
            if (level == Level.ERROR)
            {
                errors.add(MessageFormatter.basicArrayFormat(pattern, arguments));
                throwables.add(throwable);
            }
        }

        @Override
        public boolean isTraceEnabled()
        {
            return false;
        }

        @Override
        public boolean isDebugEnabled()
        {
            return false;
        }

        @Override
        public boolean isInfoEnabled()
        {
            return true;
        }

        @Override
        public boolean isWarnEnabled()
        {
            return true;
        }

        @Override
        public boolean isErrorEnabled()
        {
            return true;
        }
    }
}
