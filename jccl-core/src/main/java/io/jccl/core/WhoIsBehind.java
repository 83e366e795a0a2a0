package io.jccl.core;

import io.jccl.JcclTimeoutException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Names the rank that holds a call up, for a rank whose call timed out: from the peer it waits on, it follows the waits
 * each rank published on the {@link Standings} board to the first rank that is not itself waiting on a peer in the call
 * it runs (that call, or an earlier one it has not finished: then the chain goes on in that call). That rank has not
 * started the call (its user code has not called it yet, or is stuck before it), or it is in the call and no longer
 * seen waiting (its process is stopped, or the thread that drives it is blocked), or it lives on another host where its
 * standing cannot be seen. Without this, a rank names only the neighbour it listens to, which may itself be waiting on
 * the real culprit.
 * <p>
 * Stateless; called on the failing thread, off every hot path.
 */
final class WhoIsBehind
{
    private WhoIsBehind()
    {
    }

    /**
     * @param board     where every rank stands.
     * @param self      the rank whose call timed out.
     * @param call      that call.
     * @param waitsOn   the peer it waits on (read before {@code timeout} was made, which stops a kernel), or -1.
     * @param timeout   its timeout, naming where it waits.
     * @param timeoutMs the deadline that passed.
     * @return the timeout with the rank that holds the call up named, where the call waits on a peer.
     */
    static JcclTimeoutException named(final Standings board, final int self, final Call call, final int waitsOn,
        final JcclTimeoutException timeout, final long timeoutMs)
    {
        // a rank that still waits refreshes its wait on every 32nd stalled poll: far more often than this
        final long freshNs = TimeUnit.MILLISECONDS.toNanos(Math.max(200, Math.min(2000, timeoutMs / 2)));
        final String who = explain(board, self, call.seq, Names.of(call.collective) + " #" + call.seq, waitsOn,
            freshNs, System.nanoTime());
        return who == null ? timeout : appended(timeout, who);
    }

    /**
     * @param waiting a rank of this process whose submitter waits for room in its queue now, or -1.
     * @param bound   the calls a rank holds queued ({@link Context#maxQueuedCalls()}).
     * @param timeout a call's timeout.
     * @return the timeout, with a sentence added where a thread waits for room in a local rank's queue meanwhile: a
     *         thread that makes one rank's calls ahead of another's outside a group waits there, once the bound is
     *         reached, for calls it has not made yet. NCCL's rule, that one thread driving several ranks groups their
     *         calls, is then what broke, more than any rank.
     */
    static JcclTimeoutException withRoomWait(final int waiting, final long bound, final JcclTimeoutException timeout)
    {
        if (waiting < 0)
        {
            return timeout;
        }
        return appended(timeout, "meanwhile a thread waits for room in rank " + waiting + "'s queue, which holds " +
            bound + " calls (JCCL_MAX_QUEUED_CALLS): a thread that makes one rank's calls ahead of another rank's of " +
            "this process, outside a group, waits there for calls it has not made yet; make them in a group " +
            "(Jccl.groupStart/groupEnd) or from a thread per rank");
    }

    /** @return the timeout with a sentence added to its message, the same cause kept. */
    private static JcclTimeoutException appended(final JcclTimeoutException timeout, final String sentence)
    {
        return new JcclTimeoutException(timeout.getMessage() + "; " + sentence, timeout.getCause());
    }

    /**
     * @param board    where every rank stands.
     * @param self     the rank whose call timed out.
     * @param call     that call's number.
     * @param callName the call as messages name it ({@code allReduce #4}).
     * @param waitsOn  the peer that rank waits on, or -1.
     * @param freshNs  how recent a published wait must be to count as still waiting.
     * @param nowNs    {@link System#nanoTime()}.
     * @return a sentence naming the rank that holds the call up and the chain that leads to it, or null where the
     *         rank waits on no peer.
     */
    static String explain(final Standings board, final int self, final long call, final String callName,
        final int waitsOn, final long freshNs, final long nowNs)
    {
        if (waitsOn < 0)
        {
            return null;
        }
        final List<Integer> chain = new ArrayList<>(List.of(self));
        int rank = waitsOn;
        long waited = call;
        while (true)
        {
            if (chain.contains(rank))
            {
                chain.add(rank);
                return "ranks " + chain + " wait on each other in " + callName + ": they do not run the same calls" +
                    " (or their connections lost a message)";
            }
            chain.add(rank);
            final Standings.Standing standing = board.read(rank);
            final String name = waited == call ? callName : "call #" + waited;
            final String verdict = verdict(standing, board.onOtherHost(rank), waited, name, freshNs, nowNs);
            if (verdict != null)
            {
                return "rank " + rank + " holds it up: " + verdict + (chain.size() > 2 ? " (" + path(chain) + ")" : "");
            }
            // it waits on a peer in the call it runs: this call, or an earlier one it has not finished
            rank = standing.waitsOn();
            waited = standing.current();
        }
    }

    /**
     * @return why the rank ends the chain, or null where it waits on a peer itself, in the call it runs (the one
     *         waited for, or an earlier one).
     */
    private static String verdict(final Standings.Standing standing, final boolean otherHost, final long call,
        final String callName, final long freshNs, final long nowNs)
    {
        if (standing == null)
        {
            return otherHost ? "it runs on another host, where what it waits on cannot be seen from here" :
                "where it stands cannot be seen (its process published nothing)";
        }
        if (standing.completed() >= call)
        {
            return "it completed " + callName + " already: what it sent did not arrive";
        }
        final long running = standing.current();
        // a rank whose call failed waits no more: where it waited when it failed is its last word, however old
        final boolean failedThere = running >= 0 && standing.failed() == running;
        final boolean waiting = standing.waitCall() == running && standing.waitsOn() >= 0 &&
            (failedThere || nowNs - standing.waitStampNs() < freshNs);
        if (running >= 0 && running <= call && standing.completed() < running && waiting)
        {
            return null;
        }
        if (standing.completed() >= running && !failedThere)
        {
            return "it has not started " + callName + " (" + (standing.completed() < 0 ?
                "it has completed no call" : "its last completed call is #" + standing.completed()) + ")";
        }
        final String where = running == call ? callName : "call #" + running;
        if (failedThere)
        {
            return "it failed in " + where + " without waiting on a peer";
        }
        final boolean waitedThere = standing.waitCall() == running && standing.waitsOn() >= 0;
        return "it is in " + where + " and has not been seen waiting on a peer " + (waitedThere ? "for " +
            (nowNs - standing.waitStampNs()) / 1_000_000 + " ms" : "in it") + ": its process is stopped, or the " +
            "thread that drives its calls is blocked";
    }

    private static String path(final List<Integer> chain)
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i + 1 < chain.size(); i++)
        {
            text.append(i == 0 ? "rank " : ", rank ").append(chain.get(i)).append(" waits on rank ")
                .append(chain.get(i + 1));
        }
        return text.toString();
    }
}
