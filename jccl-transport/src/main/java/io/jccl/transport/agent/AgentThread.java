package io.jccl.transport.agent;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * A named daemon thread that runs one {@link Agent} under its {@link IdleStrategy} through Agrona's
 * {@link AgentRunner}: the one runner of jccl's daemon loops (the progress agent, the network thread, the bootstrap's
 * watch), so that they start, fail and close alike.
 * <p>
 * Errors: a {@link Throwable} out of the agent is logged once, with the thread's name, on the logger
 * {@code io.jccl}, handed to the owner's failure listener, and ends the agent (the thread interrupts itself, which
 * stops Agrona's duty cycle; an {@link Error} ends it anyway, and the thread's uncaught-exception handler does not log
 * it a second time). So a fault no longer kills a thread silently while its owner waits on work it will never do: the
 * owner decides what fails. An agent ends itself, with no error, by throwing {@link AgentTerminationException} (the
 * way to stop on its own thread, where {@link #close(long)} cannot wait for itself).
 */
public final class AgentThread implements AutoCloseable
{
    /** How long {@link #close()} waits for the thread to end. */
    public static final long CLOSE_TIMEOUT_MS = 5_000;

    private final String name;
    private final Consumer<Throwable> onFailure;
    private final Logger log;
    private final AgentRunner runner;
    private final Thread thread;
    /** The last throwable reported, so that an Error Agrona rethrows after reporting it is not reported again. */
    private Throwable reported;

    /**
     * Creates the thread, without starting it.
     *
     * @param name      the thread's name, which logs name too.
     * @param agent     what the thread runs.
     * @param idle      how it waits after a duty cycle, given the cycle's work count.
     * @param onFailure told, on the agent's thread, of the throwable that ended the agent.
     */
    public AgentThread(final String name, final Agent agent, final IdleStrategy idle,
        final Consumer<Throwable> onFailure)
    {
        this(name, agent, idle, onFailure, LoggerFactory.getLogger("io.jccl"));
    }

    /**
     * @param name      the thread's name.
     * @param agent     what the thread runs.
     * @param idle      how it waits.
     * @param onFailure told of the throwable that ended the agent.
     * @param log       where the failure is logged (a test's recorder).
     */
    AgentThread(final String name, final Agent agent, final IdleStrategy idle, final Consumer<Throwable> onFailure,
        final Logger log)
    {
        this.name = Objects.requireNonNull(name, "name");
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
        this.log = log;
        this.runner = new AgentRunner(idle, this::onError, null, agent);
        this.thread = new Thread(runner, name);
        thread.setDaemon(true);
        thread.setUncaughtExceptionHandler((t, ex) ->
        {
            if (ex != reported)
            {
                onError(ex);
            }
        });
    }

    /**
     * Starts the thread.
     *
     * @return this.
     */
    public AgentThread start()
    {
        thread.start();
        return this;
    }

    /** @return the thread's name. */
    public String name()
    {
        return name;
    }

    /** @return whether the calling thread is this agent's thread. */
    public boolean isCurrentThread()
    {
        return Thread.currentThread() == thread;
    }

    /**
     * Stops the agent after its current duty cycle and waits up to {@code timeoutMs} for the thread to end (without
     * interrupting it). On the agent's own thread it cannot wait for itself and returns false at once: the agent ends
     * itself there (see the class comment). The agent is closed ({@link Agent#onClose()}) on its thread, or here if
     * the thread never started. A second close does not wait.
     *
     * @param timeoutMs how long to wait, from 1 to {@link Integer#MAX_VALUE}.
     * @return whether the agent has ended (its duty cycle is over and it is closed), or never started.
     */
    public boolean close(final long timeoutMs)
    {
        if (isCurrentThread())
        {
            return false;
        }
        try
        {
            // AgentRunner retries, interrupting the thread, until it ends; its fail action ends the wait instead
            runner.close((int)Math.min(Math.max(timeoutMs, 1), Integer.MAX_VALUE), (t) ->
            {
                throw new StillRunning();
            });
            return runner.isClosed() || !thread.isAlive();
        }
        catch (final StillRunning ex)
        {
            return false;
        }
    }

    /** Closes with {@link #CLOSE_TIMEOUT_MS}, as {@link #close(long)}. */
    @Override
    public void close()
    {
        close(CLOSE_TIMEOUT_MS);
    }

    private void onError(final Throwable ex)
    {
        if (ex instanceof AgentTerminationException)
        {
            // the agent's own way to end
            return;
        }
        reported = ex;
        log.error("jccl ERROR agent {} failed: {}", name, ex.toString(), ex);
        try
        {
            onFailure.accept(ex);
        }
        catch (final Throwable listenerEx)
        {
            // logged, not rethrown: an error here would reach the uncaught-exception handler and report again
            log.error("jccl ERROR agent {}: its failure listener threw", name, listenerEx);
        }
        if (isCurrentThread())
        {
            // Agrona's duty cycle ends when its thread is interrupted after an error
            thread.interrupt();
        }
    }

    /** Ends {@link AgentRunner#close(int, Consumer)}'s retries once its wait has run out. */
    private static final class StillRunning extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        StillRunning()
        {
            super(null, null, false, false);
        }
    }
}
