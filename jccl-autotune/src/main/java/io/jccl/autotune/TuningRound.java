package io.jccl.autotune;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;

import java.util.List;

/**
 * One published step of a task's lock-step sequence: from call {@code firstCall} on, each hold's plan for its number
 * of calls. Every rank's k-th call of the task runs the plan of the round and hold that cover k. A round is published
 * only once the leader has recorded every call of the one before, so it is decided from recorded results alone and
 * every rank sees the same sequence. Once a task converges its last round is frozen: one hold of
 * {@link #OPEN} calls (closed at a call index no rank can yet have bound when a re-tune starts).
 *
 * @param number    the round's place in the task's sequence, from 0.
 * @param firstCall the first call index the round covers.
 * @param holds     the plans in order, each with the calls it is held for; not empty.
 * @param frozen    true for a converged plan's round.
 */
public record TuningRound(int number, long firstCall, List<Hold> holds, boolean frozen)
{
    /** The calls of a frozen round's hold while it is open. */
    public static final long OPEN = Long.MAX_VALUE;

    /**
     * A plan held for a number of calls.
     *
     * @param plan  the plan.
     * @param calls the calls it runs for, at least 1, or {@link #OPEN}.
     */
    public record Hold(Plan plan, long calls)
    {
        /**
         * Validates the fields.
         *
         * @param plan  the plan, not null.
         * @param calls the calls, at least 1.
         * @throws JcclInvalidArgumentException on a null plan or no calls.
         */
        public Hold
        {
            if (plan == null)
            {
                throw new JcclInvalidArgumentException("plan is null");
            }
            if (calls < 1)
            {
                throw new JcclInvalidArgumentException("calls=" + calls + " is not positive");
            }
        }
    }

    /**
     * Validates and copies the fields.
     *
     * @param number    the round's place, at least 0.
     * @param firstCall the first call index, at least 0.
     * @param holds     the holds, not empty.
     * @param frozen    true for a converged plan's round.
     * @throws JcclInvalidArgumentException on an out-of-range field.
     */
    public TuningRound
    {
        if (number < 0 || firstCall < 0)
        {
            throw new JcclInvalidArgumentException("round " + number + " at call " + firstCall + " is invalid");
        }
        if (holds == null || holds.isEmpty())
        {
            throw new JcclInvalidArgumentException("round " + number + " has no holds");
        }
        holds = List.copyOf(holds);
    }

    /** @return the calls the round covers: the sum of its holds, or {@link #OPEN} while any hold is open. */
    public long calls()
    {
        long calls = 0;
        // indexed loops: these run on every call of a tuned task, and a list's iterator is an allocation per call
        for (int i = 0; i < holds.size(); i++)
        {
            final Hold hold = holds.get(i);
            if (hold.calls() == OPEN || calls > OPEN - hold.calls())
            {
                return OPEN;
            }
            calls += hold.calls();
        }
        return calls;
    }

    /** @return true while the round covers every call from its first on. */
    public boolean open()
    {
        return calls() == OPEN;
    }

    /**
     * @param callIndex a call index.
     * @return true when the round covers it.
     */
    public boolean covers(final long callIndex)
    {
        return callIndex >= firstCall && (open() || callIndex - firstCall < calls());
    }

    /**
     * @param callIndex a call index the round covers.
     * @return the plan of the hold covering it, or null when the round does not cover it.
     */
    public Plan planAt(final long callIndex)
    {
        if (callIndex < firstCall)
        {
            return null;
        }
        long offset = callIndex - firstCall;
        for (int i = 0; i < holds.size(); i++)
        {
            final Hold hold = holds.get(i);
            if (hold.calls() == OPEN || offset < hold.calls())
            {
                return hold.plan();
            }
            offset -= hold.calls();
        }
        return null;
    }
}
