package io.jccl.schedules.msccl;

import io.jccl.schedules.Opcode;
import io.jccl.schedules.Program;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Runs one loop iteration of a {@link Program} on symbols, as MSCCL-XML.md sections 6 and 7 describe it and
 * independently of jccl's executor: every worker runs its steps in order; a step waits until its dependency (a
 * worker of the same rank) has completed the named step; a receive takes the oldest message of the FIFO
 * (sender, receiver, channel); a send appends to it. Event driven: a blocked worker is woken only by what it
 * waits for, so a run costs about one visit per step whatever the shape. What a step computes is the
 * {@link Action}'s business.
 * <p>
 * Requires peers in {@code [-1, ranks)}, channels {@code >= 0} and dependencies that name existing steps (the
 * validator's structural checks); the engine itself never throws on a schedule that deadlocks: it stops, and
 * {@link #stuck()} says who waits for what.
 */
final class SymbolicEngine
{
    /** What a step does with the data; returns the message a sending step appends (null for none). */
    interface Action
    {
        /**
         * @param rank     the rank.
         * @param worker   the worker index within the rank.
         * @param step     the step index.
         * @param received the message a receiving step took, else null.
         * @return the payload to send, for a sending step (may be null).
         */
        Object execute(int rank, int worker, int step, Object received);
    }

    /** Why a worker cannot move. */
    enum Reason
    {
        /** Waits for another worker's step. */
        DEPENDENCY,
        /** Waits for a message. */
        RECEIVE,
        /** Waits for room in a bounded FIFO. */
        SEND
    }

    /**
     * A blocked worker and what it waits for.
     *
     * @param worker the global index of the blocked worker.
     * @param reason what it waits for.
     * @param target the global index of the worker that would release it, or -1 when none can.
     */
    record Wait(int worker, Reason reason, int target)
    {
    }

    private static final Object NONE = new Object();

    private final Program program;
    private final int depth;
    private final Worker[] workers;
    private final int[] rankOf;
    private final int[] localOf;
    private final int[] base;
    private final int[] done;
    private final Map<Long, Fifo> fifos = new HashMap<>();
    private final Map<Long, Integer> senderOf = new HashMap<>();
    private final Map<Long, Integer> receiverOf = new HashMap<>();
    private final PriorityQueue<long[]>[] depWaiters;
    private final ArrayDeque<Integer> runnable = new ArrayDeque<>();
    private final boolean[] queued;
    private final java.util.Random order;

    /** One connection's FIFO and who waits on it. */
    private static final class Fifo
    {
        final ArrayDeque<Object> messages = new ArrayDeque<>();
        final List<Integer> receivers = new ArrayList<>(1);
        final List<Integer> senders = new ArrayList<>(1);
    }

    /**
     * @param program the program.
     * @param depth   messages a FIFO holds before a send waits; 0 for unbounded.
     */
    SymbolicEngine(final Program program, final int depth)
    {
        this(program, depth, null);
    }

    /**
     * @param program the program.
     * @param depth   messages a FIFO holds before a send waits; 0 for unbounded.
     * @param order   null to run each woken worker as far as it goes, in wake-up order; else the source of a
     *                random interleaving, one step at a time (to show that an order-dependent result is real).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    SymbolicEngine(final Program program, final int depth, final java.util.Random order)
    {
        this.program = program;
        this.depth = depth;
        this.order = order;
        final int ranks = program.ranks();
        base = new int[ranks + 1];
        for (int r = 0; r < ranks; r++)
        {
            base[r + 1] = base[r] + program.workers(r).size();
        }
        final int total = base[ranks];
        workers = new Worker[total];
        rankOf = new int[total];
        localOf = new int[total];
        done = new int[total];
        queued = new boolean[total];
        depWaiters = new PriorityQueue[total];
        for (int r = 0; r < ranks; r++)
        {
            final List<Worker> list = program.workers(r);
            for (int w = 0; w < list.size(); w++)
            {
                final int g = base[r] + w;
                workers[g] = list.get(w);
                rankOf[g] = r;
                localOf[g] = w;
                if (workers[g].sendPeer() >= 0)
                {
                    senderOf.putIfAbsent(key(r, workers[g].sendPeer(), workers[g].channel()), g);
                }
                if (workers[g].recvPeer() >= 0)
                {
                    receiverOf.putIfAbsent(key(workers[g].recvPeer(), r, workers[g].channel()), g);
                }
            }
        }
    }

    /** @return the FIFO key of (sender, receiver, channel). */
    static long key(final int sender, final int receiver, final int channel)
    {
        return ((long)sender << 48) ^ ((long)receiver << 32) ^ (channel & 0xffffffffL);
    }

    /** @return the global index of a worker. */
    int global(final int rank, final int worker)
    {
        return base[rank] + worker;
    }

    /** @return workers over all ranks. */
    int workerCount()
    {
        return workers.length;
    }

    /** @return the rank of a global worker. */
    int rankOf(final int global)
    {
        return rankOf[global];
    }

    /** @return the index within its rank of a global worker. */
    int localOf(final int global)
    {
        return localOf[global];
    }

    /** @return the steps a global worker has completed. */
    int done(final int global)
    {
        return done[global];
    }

    /**
     * Runs until every worker finished or none can move.
     *
     * @param action what steps compute.
     * @return true when every worker finished and every FIFO is empty.
     */
    boolean run(final Action action)
    {
        for (int g = 0; g < workers.length; g++)
        {
            enqueue(g);
        }
        if (order == null)
        {
            while (!runnable.isEmpty())
            {
                final int g = runnable.poll();
                queued[g] = false;
                advance(g, action, Integer.MAX_VALUE);
            }
        }
        else
        {
            final List<Integer> ready = new ArrayList<>();
            while (!runnable.isEmpty() || !ready.isEmpty())
            {
                while (!runnable.isEmpty())
                {
                    ready.add(runnable.poll());
                }
                final int pick = order.nextInt(ready.size());
                final int g = ready.get(pick);
                ready.set(pick, ready.get(ready.size() - 1));
                ready.remove(ready.size() - 1);
                queued[g] = false;
                if (advance(g, action, 1))
                {
                    enqueue(g);
                }
            }
        }
        return finished() && leftoverMessages() == 0;
    }

    /** @return true when every worker completed every step. */
    boolean finished()
    {
        for (int g = 0; g < workers.length; g++)
        {
            if (done[g] < workers[g].stepCount())
            {
                return false;
            }
        }
        return true;
    }

    /** @return messages sent and never received. */
    int leftoverMessages()
    {
        int left = 0;
        for (final Fifo fifo : fifos.values())
        {
            left += fifo.messages.size();
        }
        return left;
    }

    private void enqueue(final int g)
    {
        if (!queued[g])
        {
            queued[g] = true;
            runnable.add(g);
        }
    }

    private Fifo fifo(final long key)
    {
        return fifos.computeIfAbsent(key, k -> new Fifo());
    }

    /** Runs up to {@code budget} steps of a worker; returns true when it stopped only for the budget. */
    private boolean advance(final int g, final Action action, final int budget)
    {
        final Worker w = workers[g];
        final int r = rankOf[g];
        for (int steps = 0; done[g] < w.stepCount(); steps++)
        {
            if (steps == budget)
            {
                return true;
            }
            final int s = done[g];
            final int dep = w.field(s, StepDescriptor.DEP_WORKER);
            if (dep >= 0)
            {
                final int d = base[r] + dep;
                final int need = w.field(s, StepDescriptor.DEP_STEP);
                if (done[d] <= need)
                {
                    if (depWaiters[d] == null)
                    {
                        depWaiters[d] = new PriorityQueue<>((x, y) -> Long.compare(x[0], y[0]));
                    }
                    depWaiters[d].add(new long[] {need, g});
                    return false;
                }
            }
            final Opcode op = w.opcode(s);
            Fifo in = null;
            if (op.receives())
            {
                in = fifo(key(w.recvPeer(), r, w.channel()));
                if (in.messages.isEmpty())
                {
                    in.receivers.add(g);
                    return false;
                }
            }
            Fifo out = null;
            if (op.sends())
            {
                out = fifo(key(r, w.sendPeer(), w.channel()));
                if (depth > 0 && out.messages.size() >= depth)
                {
                    out.senders.add(g);
                    return false;
                }
            }
            Object message = null;
            if (in != null)
            {
                message = in.messages.poll();
                wake(in.senders);
            }
            final Object result = action.execute(r, localOf[g], s, message == NONE ? null : message);
            if (out != null)
            {
                out.messages.add(result == null ? NONE : result);
                wake(out.receivers);
            }
            done[g]++;
            final PriorityQueue<long[]> waiters = depWaiters[g];
            while (waiters != null && !waiters.isEmpty() && waiters.peek()[0] < done[g])
            {
                enqueue((int)waiters.poll()[1]);
            }
        }
        return false;
    }

    private void wake(final List<Integer> waiters)
    {
        for (final int waiter : waiters)
        {
            enqueue(waiter);
        }
        waiters.clear();
    }

    /** @return every worker that did not finish, with what it waits for. */
    List<Wait> stuck()
    {
        final List<Wait> waits = new ArrayList<>();
        for (int g = 0; g < workers.length; g++)
        {
            final Worker w = workers[g];
            final int s = done[g];
            if (s >= w.stepCount())
            {
                continue;
            }
            final int r = rankOf[g];
            final int dep = w.field(s, StepDescriptor.DEP_WORKER);
            if (dep >= 0 && done[base[r] + dep] <= w.field(s, StepDescriptor.DEP_STEP))
            {
                waits.add(new Wait(g, Reason.DEPENDENCY, base[r] + dep));
                continue;
            }
            final Opcode op = w.opcode(s);
            final long inKey = key(w.recvPeer(), r, w.channel());
            if (op.receives() && fifo(inKey).messages.isEmpty())
            {
                waits.add(new Wait(g, Reason.RECEIVE, senderOf.getOrDefault(inKey, -1)));
                continue;
            }
            waits.add(new Wait(g, Reason.SEND, receiverOf.getOrDefault(key(r, w.sendPeer(), w.channel()), -1)));
        }
        return waits;
    }

    /** @return the program run. */
    Program program()
    {
        return program;
    }
}
