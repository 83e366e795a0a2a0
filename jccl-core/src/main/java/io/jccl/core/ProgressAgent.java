package io.jccl.core;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.locks.LockSupport;

/**
 * The progress engine's helper (thread {@value #NAME}): serves calls nobody waits on and stays out of the way while
 * a waiter drives ({@link ProgressEngine#needsHelp()}). While it helps it waits as a caller does ({@link IdleWait},
 * with a contention mark of its own); otherwise it looks again every {@value #POLL_NS} ns. Runs on the agent's thread
 * only.
 */
final class ProgressAgent implements Agent
{
    /** The thread's name. */
    static final String NAME = "jccl-progress";

    /** How often the agent looks for calls nobody waits on. */
    private static final long POLL_NS = 1_000_000;

    private final ProgressEngine engine;
    private final IdleWait wait = new IdleWait(new IdleWait.Contention());
    /** Whether the last duty cycle helped: its idle strategy waits as a caller then, else it polls. */
    private boolean helping;

    /** @param engine the engine it helps. */
    ProgressAgent(final ProgressEngine engine)
    {
        this.engine = engine;
    }

    @Override
    public int doWork()
    {
        helping = engine.needsHelp();
        return helping ? engine.progress() : 0;
    }

    @Override
    public String roleName()
    {
        return NAME;
    }

    /** @return how the agent waits after a duty cycle. */
    IdleStrategy idleStrategy()
    {
        return new Idle();
    }

    /** After a cycle that helped: reset after work, else one more {@link IdleWait#idle()}; else a reset and a poll. */
    private final class Idle implements IdleStrategy
    {
        @Override
        public void idle(final int workCount)
        {
            if (!helping)
            {
                wait.reset();
                LockSupport.parkNanos(POLL_NS);
            }
            else if (workCount > 0)
            {
                wait.reset();
            }
            else
            {
                wait.idle();
            }
        }

        @Override
        public void idle()
        {
            wait.idle();
        }

        @Override
        public void reset()
        {
            wait.reset();
        }
    }
}
