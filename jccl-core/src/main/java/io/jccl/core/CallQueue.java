package io.jccl.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The head of a {@link CallQueue}, a field of a superclass followed by {@link CallQueuePadding}'s 128 bytes: the JVM
 * lays out a superclass's fields first, so the head, which the thread running the calls writes on every call, and the
 * tail, which submitters swap on every call, sit on different cache lines (on one line, each write would take it
 * from the other core).
 */
abstract class CallQueueHead
{
    /** The sentinel: its {@code next} is the oldest queued call. Written by the claim holder only. */
    volatile Call head;
}

/** 128 bytes between a {@link CallQueue}'s head and tail (two lines: the adjacent-line prefetcher pairs them). */
@SuppressWarnings("unused")
abstract class CallQueuePadding extends CallQueueHead
{
    private long p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16;
}

/**
 * The calls of one rank from submission to completion, oldest first, linked through {@link Call#next}. Any thread
 * appends with one atomic swap (no lock, no node to allocate); only the thread holding the rank's claim reads and
 * removes the head. This is Vyukov's intrusive multi-producer single-consumer queue: the call removed last stands as
 * the sentinel until the next removal, and an append is visible once its link is written, so a reader may briefly
 * miss a call being appended (its submitter drives progress afterwards, and the agent polls).
 */
final class CallQueue extends CallQueuePadding
{
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle NEXT;

    static
    {
        try
        {
            HEAD = MethodHandles.lookup().findVarHandle(CallQueueHead.class, "head", Call.class);
            TAIL = MethodHandles.lookup().findVarHandle(CallQueue.class, "tail", Call.class);
            NEXT = MethodHandles.lookup().findVarHandle(Call.class, "next", Call.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    @SuppressWarnings("unused") // through TAIL
    private volatile Call tail;

    CallQueue()
    {
        final Call sentinel = Call.sentinel();
        head = sentinel;
        tail = sentinel;
    }

    /** Appends a call (any thread). */
    void add(final Call call)
    {
        final Call previous = (Call)TAIL.getAndSet(this, call);
        NEXT.setRelease(previous, call);
    }

    /** @return the oldest queued call, or null. */
    Call peek()
    {
        return (Call)NEXT.getAcquire(head);
    }

    /** Removes the oldest call, which {@link #peek()} returned (claim holder only). */
    void remove()
    {
        final Call sentinel = head;
        // one thread removes (the rank's claimer): a release store publishes the new head without a full fence
        HEAD.setRelease(this, (Call)NEXT.getAcquire(sentinel));
        // no producer links to the old sentinel any more (the tail is at least the new head): unlinked, a call that
        // something still holds (an executor's latest call, a caller's Work) keeps none of the later calls alive
        NEXT.setRelease(sentinel, null);
    }

    /** @return the call queued after {@code call}, or null (claim holder only, for a call still queued). */
    Call after(final Call call)
    {
        return (Call)NEXT.getAcquire(call);
    }

    boolean isEmpty()
    {
        return peek() == null;
    }

    /** @return the newest queued call, or null if none. */
    Call last()
    {
        Call last = null;
        for (Call c = peek(); c != null; c = (Call)NEXT.getAcquire(c))
        {
            last = c;
        }
        return last;
    }
}
