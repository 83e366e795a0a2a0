package io.jccl.core;

import io.jccl.JcclSystemException;
import io.jccl.transport.agent.AgentThread;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one progress engine of the process (DESIGN.md, "Execution model"). Any thread that waits on jccl calls
 * advances every runnable call of every local rank, not only its own: its own call's rank first, the others in any
 * pass where that one cannot move ({@link #progressFor}); a rank is advanced by one thread at a time (a try-claim,
 * never a lock wait). A daemon agent ({@link ProgressAgent}, on an {@link AgentThread}) drives calls nobody waits
 * on; an error that ends it fails every registered rank, and the next rank registered starts a new one.
 */
final class ProgressEngine
{
    static final ProgressEngine INSTANCE = new ProgressEngine();

    /**
     * Spinning threads never outnumber cores: the agent helps only while fewer threads than this wait (default the
     * core count; system property {@code jccl.agent.help}, 1 to let the agent drive only calls nobody waits on).
     */
    private static final int CORES = Runtime.getRuntime().availableProcessors();
    private static final int HELP_LIMIT = Integer.getInteger("jccl.agent.help", CORES);

    private final CopyOnWriteArrayList<LocalCommunicator> communicators = new CopyOnWriteArrayList<>();
    private final AtomicInteger waiters = new AtomicInteger();
    private volatile LocalCommunicator[] snapshot = new LocalCommunicator[0];
    private volatile AgentThread agent;
    /**
     * The CUDA driver of the registered ranks, or null: a caller's thread leaves {@link #drive}, {@link #drain} and
     * {@link #callerProgress} with the context it came with ({@link CallerContext}). One per process in practice;
     * with several (tests), the first registered.
     */
    private volatile io.jccl.kernels.cuda.CudaApi driver;

    private ProgressEngine()
    {
    }

    void register(final LocalCommunicator communicator)
    {
        communicators.add(communicator);
        snapshot = communicators.toArray(new LocalCommunicator[0]);
        driver = findDriver();
        startAgent();
    }

    void unregister(final LocalCommunicator communicator)
    {
        communicators.remove(communicator);
        snapshot = communicators.toArray(new LocalCommunicator[0]);
        driver = findDriver();
    }

    private io.jccl.kernels.cuda.CudaApi findDriver()
    {
        for (final LocalCommunicator communicator : snapshot)
        {
            if (communicator.cudaApi() != null)
            {
                return communicator.cudaApi();
            }
        }
        return null;
    }

    /**
     * {@link #progress()} for a caller's thread, which keeps its CUDA context.
     *
     * @return the amount of work done.
     */
    int callerProgress()
    {
        final io.jccl.kernels.cuda.CudaApi cuda = driver;
        final long saved = CallerContext.save(cuda);
        try
        {
            return progress();
        }
        finally
        {
            CallerContext.restore(cuda, saved);
        }
    }

    /**
     * @return whether the agent should drive: a helper is useful only while some local rank has no waiter driving it
     *         (with one rank in this process, one rank per process, a second spinning thread would only take a core
     *         from a peer process) and a call is queued.
     */
    boolean needsHelp()
    {
        return waiters.get() < Math.min(HELP_LIMIT, snapshot.length) && anyQueued();
    }

    /** @return true if some local rank has a call queued (read by the agent, so no shared counter per call). */
    private boolean anyQueued()
    {
        for (final LocalCommunicator communicator : snapshot)
        {
            if (communicator.hasQueued())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Advances every runnable call of every local rank once as far as it can go.
     *
     * @return the amount of work done, 0 if nothing could move.
     */
    int progress()
    {
        int work = 0;
        for (final LocalCommunicator communicator : snapshot)
        {
            work += communicator.advance();
        }
        return work;
    }

    /**
     * Drives progress until the call completes or, when {@code timed}, {@code untilNs} (a {@code System.nanoTime()}
     * value) passes. An untimed wait never reads the clock (about 30 ns a read here).
     *
     * @return true if the call completed.
     */
    boolean drive(final Call call, final boolean timed, final long untilNs)
    {
        final io.jccl.kernels.cuda.CudaApi cuda = driver;
        final long saved = CallerContext.save(cuda);
        try
        {
            return driveKeeping(call, timed, untilNs);
        }
        finally
        {
            CallerContext.restore(cuda, saved);
        }
    }

    private boolean driveKeeping(final Call call, final boolean timed, final long untilNs)
    {
        final LocalCommunicator own = call.communicator();
        if (progressFor(own) > 0 && call.isComplete())
        {
            // done in one pass (a one-rank call, or peers that were ready): no need to count as a waiter
            return true;
        }
        waiters.incrementAndGet();
        try
        {
            final IdleWait idle = new IdleWait(IdleWait.CALLERS);
            while (!call.isComplete())
            {
                if (progressFor(own) > 0)
                {
                    idle.reset();
                }
                else
                {
                    if (timed && System.nanoTime() - untilNs > 0)
                    {
                        return call.isComplete();
                    }
                    idle.idle();
                }
            }
            return true;
        }
        finally
        {
            waiters.decrementAndGet();
        }
    }

    /**
     * Drives progress until a rank has no more calls queued than its bound ({@link LocalCommunicator#submit}): called
     * on every call submitted past the bound, it mostly returns after one pass, once one call is done. A loop of its
     * own, not {@link #drive}'s, so the join path stays compiled for calls alone.
     *
     * @param communicator the rank.
     * @param idle         the rank's submitters' waiting state, reset here.
     */
    void drain(final LocalCommunicator communicator, final IdleWait idle)
    {
        final io.jccl.kernels.cuda.CudaApi cuda = driver;
        final long saved = CallerContext.save(cuda);
        try
        {
            drainKeeping(communicator, idle);
        }
        finally
        {
            CallerContext.restore(cuda, saved);
        }
    }

    private void drainKeeping(final LocalCommunicator communicator, final IdleWait idle)
    {
        if (progressFor(communicator) > 0 && communicator.drained())
        {
            return;
        }
        waiters.incrementAndGet();
        try
        {
            idle.reset();
            while (!communicator.drained())
            {
                pass(communicator, idle);
            }
        }
        finally
        {
            waiters.decrementAndGet();
        }
    }

    /** {@link #progressFor} once, then the idle strategy: reset after work, else one more wait. */
    private void pass(final LocalCommunicator own, final IdleWait idle)
    {
        if (progressFor(own) > 0)
        {
            idle.reset();
        }
        else
        {
            idle.idle();
        }
    }

    /**
     * One pass for a thread that waits on {@code own}'s calls: that rank first, and the other local ranks only when
     * it could not move. A rank's state (its executor, FIFO ends and queue) then stays in the cache of the thread
     * that waits on it while it has work, where a pass over every rank in one order had each waiter claim the other
     * ranks too and pull their state across cores on every call: with a thread per rank (torch's pattern, the
     * bench's {@code -t}), a blocking 8-byte AllReduce between 2 ranks took 0.39-0.72 us a call that way and
     * 0.29-0.36 us this way; 4 threads for 4 ranks on 2 cores, medians 8.0 and 6.4 us. A rank nobody else drives
     * (one thread driving several ranks, {@code -g 2}) is still advanced on every pass in which its own could not
     * move.
     *
     * @return the amount of work done.
     */
    private int progressFor(final LocalCommunicator own)
    {
        final int work = own.advance();
        if (work > 0)
        {
            return work;
        }
        int others = 0;
        for (final LocalCommunicator communicator : snapshot)
        {
            if (communicator != own)
            {
                others += communicator.advance();
            }
        }
        return others;
    }

    private void startAgent()
    {
        if (agent == null)
        {
            synchronized (this)
            {
                if (agent == null)
                {
                    final ProgressAgent work = new ProgressAgent(this);
                    agent = new AgentThread(ProgressAgent.NAME, work, work.idleStrategy(), this::agentFailed).start();
                }
            }
        }
    }

    /** The agent ended on an error (its runner logged it): its calls would wait for nobody, so their ranks fail. */
    private void agentFailed(final Throwable cause)
    {
        synchronized (this)
        {
            agent = null;
        }
        final JcclSystemException error = new JcclSystemException("the progress agent " + ProgressAgent.NAME +
            " failed: " + cause, cause);
        for (final LocalCommunicator communicator : snapshot)
        {
            communicator.fail(error);
        }
    }
}
