package io.jccl;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The handle of one submitted call. Waiting on it (any {@code await} or {@link #join()}) lends the calling thread
 * to jccl's progress engine: it advances every runnable call of every local rank until this one is done.
 */
public interface Work
{
    /** @return true once the call completed, successfully or not (never blocks; makes progress once). */
    boolean isDone();

    /**
     * Waits until the call completes or its deadline ({@code JCCL_TIMEOUT_MS}) passes.
     *
     * @throws JcclException the call's failure: timeout, abort, a peer's error, ...
     */
    void join();

    /**
     * Waits at most the given time.
     *
     * @param timeout how long.
     * @param unit    its unit.
     * @return true if the call completed successfully in time, false if it is still running.
     * @throws JcclException if the call failed.
     */
    boolean await(long timeout, TimeUnit unit);

    /** @return the failure of a completed call, or null if it succeeded or is still running. */
    JcclException error();

    /**
     * @return a future completed when the call completes (exceptionally with its {@link JcclException}). It is
     *         completed by whichever thread drives progress: a waiter or jccl's progress agent.
     */
    CompletableFuture<Void> toCompletableFuture();

    /**
     * @return the plan the call runs under, once it reached the head of its rank's queue and was bound; null before,
     *         and for calls that move nothing (count 0).
     */
    default Plan plan()
    {
        return null;
    }

    /**
     * @return the name of the Program the call runs ({@code ring}, {@code tree}, {@code direct}, or a registered
     *         schedule's name), once bound; null before, and for calls that move nothing.
     */
    default String programName()
    {
        return null;
    }
}
