package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.JcclAbortedException;
import io.jccl.JcclException;
import io.jccl.JcclTimeoutException;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every wait has a deadline, and abort wakes every waiter (DESIGN.md, "Failure is part of the contract"): ranks 0
 * and 1 of 3 call AllReduce, rank 2 never does.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CollectiveDeadlineTest
{
    private static final int RANKS = 3;
    private static final long COUNT = 4096;
    private static final long DEADLINE_MS = 1000;
    /** How long after the deadline (or the abort) a waiter may take to notice. */
    private static final long SLACK_MS = 4000;

    private Communicator[] comms;

    @AfterEach
    void abortCommunicators()
    {
        if (comms != null)
        {
            for (final Communicator c : comms)
            {
                c.abort();
            }
        }
    }

    @Test
    void shouldTimeOutNamingCollectiveRankPeerAndStepWhenPeerNeverCalls() throws InterruptedException
    {
        comms = Jccl.initAll(new Context().algorithm(Algorithm.RING).timeoutMs(DEADLINE_MS), RANKS);
        final Outcome[] outcomes = new Outcome[2];
        final long start = System.nanoTime();
        final Work[] works = {allReduce(comms[0]), allReduce(comms[1])};
        final Thread[] waiters = new Thread[2];
        for (int r = 0; r < 2; r++)
        {
            final int rank = r;
            outcomes[r] = new Outcome();
            waiters[r] = new Thread(() -> outcomes[rank].record(works[rank]::join, start), "waiter-" + r);
            waiters[r].setDaemon(true);
            waiters[r].start();
        }
        for (final Thread waiter : waiters)
        {
            waiter.join(DEADLINE_MS + SLACK_MS + 5000);
        }
        for (int r = 0; r < 2; r++)
        {
            final Outcome outcome = outcomes[r];
            final int rank = r;
            assertTrue(outcome.done, () -> "rank " + rank + "'s join() still waits " + (DEADLINE_MS + SLACK_MS) +
                " ms after the call");
            assertNotNull(outcome.failure, () -> "rank " + rank + "'s AllReduce completed without rank 2");
            assertInstanceOf(JcclTimeoutException.class, outcome.failure, () -> "rank " + rank + ": " +
                outcome.failure);
            assertTrue(outcome.elapsedMs >= DEADLINE_MS * 9 / 10, () -> "rank " + rank + " timed out after " +
                outcome.elapsedMs + " ms, before its " + DEADLINE_MS + " ms deadline");
            assertTrue(outcome.elapsedMs <= DEADLINE_MS + SLACK_MS, () -> "rank " + rank + " timed out only after " +
                outcome.elapsedMs + " ms");
            final String message = String.valueOf(outcome.failure.getMessage());
            final String lower = message.toLowerCase(Locale.ROOT);
            assertTrue(lower.contains("allreduce"), () -> "message does not name the collective: " + message);
            assertTrue(Pattern.compile("rank\\D{0,3}" + rank + "(\\D|$)").matcher(lower).find(),
                () -> "message does not name rank " + rank + ": " + message);
            assertTrue(namesPeer(lower, rank), () -> "message does not name the peer: " + message);
            assertTrue(lower.contains("step"), () -> "message does not name the step: " + message);
            assertNotNull(works[r].error(), () -> "Work.error() is null after the timeout of rank " + rank);
        }
    }

    /**
     * A timeout breaks the whole communicator (DESIGN.md, "Failure is part of the contract"): rank 0 calls first and
     * times out; rank 1's call, made half a deadline later and still pending, ends with rank 0's timeout at once
     * instead of waiting out a deadline of its own; rank 2's next call is refused on the spot, naming the same cause.
     */
    @Test
    void shouldFailEveryRankAtOnceNamingTheFirstTimeoutWhenOneRankTimesOut() throws InterruptedException
    {
        final long deadlineMs = 2000;
        comms = Jccl.initAll(new Context().algorithm(Algorithm.RING).timeoutMs(deadlineMs), RANKS);
        final long start = System.nanoTime();
        final Work first = allReduce(comms[0]);
        Thread.sleep(deadlineMs / 2);
        final Work pending = allReduce(comms[1]);
        final Outcome timedOut = new Outcome();
        final Outcome follower = new Outcome();
        final Thread[] waiters = {new Thread(() -> timedOut.record(first::join, start), "waiter-0"),
            new Thread(() -> follower.record(pending::join, start), "waiter-1")};
        for (final Thread waiter : waiters)
        {
            waiter.setDaemon(true);
            waiter.start();
        }
        for (final Thread waiter : waiters)
        {
            waiter.join(2 * deadlineMs + SLACK_MS);
        }
        assertTrue(timedOut.done && follower.done, "a call still waits two deadlines after the first call");
        assertInstanceOf(JcclTimeoutException.class, timedOut.failure, String.valueOf(timedOut.failure));
        final String cause = "timed out after " + deadlineMs + " ms on rank 0";
        assertTrue(timedOut.failure.getMessage().contains(cause), timedOut.failure.getMessage());
        // rank 1's own deadline would end its call half a deadline after rank 0's
        final long lagMs = TimeUnit.NANOSECONDS.toMillis(follower.endNs - timedOut.endNs);
        assertTrue(lagMs < deadlineMs / 4, () -> "rank 1's pending call ended " + lagMs + " ms after rank 0's " +
            "timeout: " + follower.failure);
        assertNotNull(follower.failure, "rank 1's call completed without rank 2");
        assertTrue(follower.failure.getMessage().contains(cause), () -> "rank 1's error does not name the first " +
            "cause: " + follower.failure.getMessage());
        // a later call of a rank that never called is refused at once, naming the same cause
        final long refusedAt = System.nanoTime();
        final JcclException refused = assertThrows(JcclException.class, () -> blockingAllReduce(comms[2]));
        final long refusalMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - refusedAt);
        assertTrue(refusalMs < deadlineMs / 4, () -> "rank 2's call was refused only after " + refusalMs + " ms");
        assertTrue(refused.getMessage().contains(cause), refused.getMessage());
        assertTrue(comms[2].asyncError() != null && comms[2].asyncError().getMessage().contains(cause),
            () -> "rank 2's asyncError(): " + comms[2].asyncError());
    }

    @Test
    void shouldEndBlockingWaitWithAbortedWhenAbortedFromAnotherThread() throws InterruptedException
    {
        comms = Jccl.initAll(new Context().algorithm(Algorithm.RING).timeoutMs(60_000), RANKS);
        final Outcome[] outcomes = {new Outcome(), new Outcome()};
        final long start = System.nanoTime();
        final Thread[] waiters = new Thread[2];
        for (int r = 0; r < 2; r++)
        {
            final int rank = r;
            waiters[r] = new Thread(() -> outcomes[rank].record(() -> blockingAllReduce(comms[rank]), start),
                "blocked-" + r);
            waiters[r].setDaemon(true);
            waiters[r].start();
        }
        Thread.sleep(500);
        assertTrue(!outcomes[0].done && !outcomes[1].done, "a rank returned although rank 2 never called");
        final long abortAt = System.nanoTime();
        final Thread aborter = new Thread(() -> comms[0].abort(), "aborter");
        aborter.start();
        for (final Thread waiter : waiters)
        {
            waiter.join(SLACK_MS + 5000);
        }
        aborter.join(SLACK_MS);
        assertTrue(!aborter.isAlive(), "abort() itself did not return");
        for (int r = 0; r < 2; r++)
        {
            final Outcome outcome = outcomes[r];
            final int rank = r;
            assertTrue(outcome.done, () -> "rank " + rank + " still waits after abort()");
            final long sinceAbortMs = TimeUnit.NANOSECONDS.toMillis(outcome.endNs - abortAt);
            assertTrue(sinceAbortMs <= SLACK_MS, () -> "rank " + rank + " noticed abort() only after " +
                sinceAbortMs + " ms");
            assertInstanceOf(JcclAbortedException.class, outcome.failure, () -> "rank " + rank + ": " +
                outcome.failure);
        }
        // the communicator is unusable afterwards: a later call fails instead of waiting
        assertThrows(JcclException.class, () -> assertTimeoutPreemptively(Duration.ofMillis(SLACK_MS),
            () -> blockingAllReduce(comms[0])));
    }

    @Test
    void shouldEndJoinWithAbortedWhenAbortedFromAnotherThread() throws InterruptedException
    {
        comms = Jccl.initAll(new Context().algorithm(Algorithm.TREE).timeoutMs(60_000), RANKS);
        final long start = System.nanoTime();
        final Work[] works = {allReduce(comms[0]), allReduce(comms[1])};
        final Outcome outcome = new Outcome();
        final Thread waiter = new Thread(() -> outcome.record(works[0]::join, start), "joiner");
        waiter.setDaemon(true);
        waiter.start();
        Thread.sleep(500);
        assertTrue(!outcome.done, "rank 0 returned although rank 2 never called");
        final long abortAt = System.nanoTime();
        new Thread(() -> comms[0].abort(), "aborter").start();
        waiter.join(SLACK_MS + 5000);
        assertTrue(outcome.done, "join() still waits after abort()");
        final long sinceAbortMs = TimeUnit.NANOSECONDS.toMillis(outcome.endNs - abortAt);
        assertTrue(sinceAbortMs <= SLACK_MS, () -> "join() noticed abort() only after " + sinceAbortMs + " ms");
        assertInstanceOf(JcclAbortedException.class, outcome.failure, () -> String.valueOf(outcome.failure));
        // rank 1 shares the call: it ends too, with the abort
        final JcclException other = assertThrows(JcclException.class, () ->
        {
            if (!works[1].await(SLACK_MS, TimeUnit.MILLISECONDS))
            {
                fail("rank 1's call still runs " + SLACK_MS + " ms after rank 0's abort()");
            }
        });
        assertInstanceOf(JcclAbortedException.class, other, String.valueOf(other));
    }

    // ---------------------------------------------------------------------------------------------------------

    /** What one waiter saw. */
    static final class Outcome
    {
        volatile boolean done;
        volatile Throwable failure;
        volatile long elapsedMs;
        volatile long endNs;

        void record(final Runnable wait, final long startNs)
        {
            try
            {
                wait.run();
            }
            catch (final Throwable t)
            {
                failure = t;
            }
            endNs = System.nanoTime();
            elapsedMs = TimeUnit.NANOSECONDS.toMillis(endNs - startNs);
            done = true;
        }
    }

    /** @return true when the message names a rank other than the waiting one ("peer 2", "from rank 2"). */
    private static boolean namesPeer(final String lowerCaseMessage, final int rank)
    {
        final Matcher matcher = Pattern.compile("(peer|rank)\\D{0,3}(\\d+)").matcher(lowerCaseMessage);
        while (matcher.find())
        {
            final int named = Integer.parseInt(matcher.group(2));
            if (named != rank && named < RANKS)
            {
                return true;
            }
        }
        return false;
    }

    private static Work allReduce(final Communicator comm)
    {
        final Buffer send = CollectiveArgumentTest.hostBuffer(COUNT * 4);
        final Buffer recv = CollectiveArgumentTest.hostBuffer(COUNT * 4);
        return comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM, Stream.DEFAULT);
    }

    private static void blockingAllReduce(final Communicator comm)
    {
        final Buffer send = CollectiveArgumentTest.hostBuffer(COUNT * 4);
        final Buffer recv = CollectiveArgumentTest.hostBuffer(COUNT * 4);
        comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM);
    }
}
