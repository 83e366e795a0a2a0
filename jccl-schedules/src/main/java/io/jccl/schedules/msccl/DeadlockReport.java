package io.jccl.schedules.msccl;

import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;
import io.jccl.schedules.msccl.MscclProblem.Severity;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Explains a symbolic run that stopped: every blocked worker waits for exactly one other (the dependency's worker,
 * the sender of the message it needs, or the receiver that would make room), so the waits form a functional graph
 * and every deadlock is a cycle in it. Reports each cycle once (at most {@link MscclValidator#MAX_DEADLOCK_REPORTS}),
 * each wait that nothing can release, and how many more workers wait behind them.
 */
final class DeadlockReport
{
    private static final int MAX_HOPS = 8;

    private DeadlockReport()
    {
    }

    /**
     * @param engine the stopped run.
     * @param map    lines and paths.
     * @param errors where the errors go.
     */
    static void report(final SymbolicEngine engine, final MscclSourceMap map, final List<MscclProblem> errors)
    {
        final List<SymbolicEngine.Wait> waits = engine.stuck();
        if (waits.isEmpty())
        {
            final int left = engine.leftoverMessages();
            if (left > 0)
            {
                errors.add(new MscclProblem(Severity.ERROR, map.algoLine(), "algo", left + " messages are sent " +
                    "and never received"));
            }
            return;
        }
        final Map<Integer, SymbolicEngine.Wait> byWorker = new HashMap<>();
        for (final SymbolicEngine.Wait wait : waits)
        {
            byWorker.put(wait.worker(), wait);
        }
        final Map<Integer, Integer> state = new HashMap<>();
        int reported = 0;
        int cycles = 0;
        int blocked = 0;
        int members = 0;
        final List<Integer> path = new ArrayList<>();
        for (final SymbolicEngine.Wait start : waits)
        {
            path.clear();
            int g = start.worker();
            while (byWorker.containsKey(g) && !state.containsKey(g))
            {
                state.put(g, 1);
                path.add(g);
                g = byWorker.get(g).target();
            }
            if (byWorker.containsKey(g) && state.get(g) == 1)
            {
                // a new cycle: from g around to g
                final List<Integer> cycle = new ArrayList<>(path.subList(path.indexOf(g), path.size()));
                cycles++;
                members += cycle.size();
                if (reported++ < MscclValidator.MAX_DEADLOCK_REPORTS)
                {
                    errors.add(cycleError(engine, map, byWorker, cycle));
                }
            }
            else if (!byWorker.containsKey(g) && !path.isEmpty())
            {
                // the last worker of the path waits for one that finished or does not exist
                final SymbolicEngine.Wait end = byWorker.get(path.get(path.size() - 1));
                blocked++;
                if (reported++ < MscclValidator.MAX_DEADLOCK_REPORTS)
                {
                    final int[] at = at(engine, end.worker());
                    errors.add(new MscclProblem(Severity.ERROR, map.stepLine(at[0], at[1], at[2]),
                        map.path(at[0], at[1], at[2]), "stuck: " + describe(engine, map, end) +
                        (end.target() < 0 ? ", and there is none" : ", which has finished")));
                }
            }
            for (final int p : path)
            {
                state.put(p, 2);
            }
        }
        if (reported > MscclValidator.MAX_DEADLOCK_REPORTS)
        {
            errors.add(new MscclProblem(Severity.ERROR, map.algoLine(), "algo", "and " +
                (reported - MscclValidator.MAX_DEADLOCK_REPORTS) + " more cycles or stuck waits"));
        }
        final int behind = waits.size() - members - blocked;
        errors.add(new MscclProblem(Severity.ERROR, map.algoLine(), "algo", "deadlock: " + waits.size() +
            " of " + engine.workerCount() + " threadblocks cannot finish (" + cycles + " cycle" +
            (cycles == 1 ? "" : "s") + " of waits" + (blocked > 0 ? ", " + blocked + " waits nothing can release" :
            "") + (behind > 0 ? ", " + behind + " threadblocks waiting behind them" : "") + ")"));
    }

    private static MscclProblem cycleError(final SymbolicEngine engine, final MscclSourceMap map,
        final Map<Integer, SymbolicEngine.Wait> byWorker, final List<Integer> cycle)
    {
        int first = 0;
        for (int i = 1; i < cycle.size(); i++)
        {
            if (cycle.get(i) < cycle.get(first))
            {
                first = i;
            }
        }
        final StringBuilder sb = new StringBuilder("deadlock: a cycle of ").append(cycle.size())
            .append(cycle.size() == 1 ? " wait: " : " waits: ");
        for (int i = 0; i < cycle.size(); i++)
        {
            if (i == MAX_HOPS)
            {
                sb.append("; ... (").append(cycle.size() - MAX_HOPS).append(" more)");
                break;
            }
            final int g = cycle.get((first + i) % cycle.size());
            sb.append(i == 0 ? "" : "; ").append(describe(engine, map, byWorker.get(g)));
        }
        sb.append("; and round again");
        final int[] at = at(engine, cycle.get(first));
        return new MscclProblem(Severity.ERROR, map.stepLine(at[0], at[1], at[2]), map.path(at[0], at[1], at[2]),
            sb.toString());
    }

    /** @return {rank, worker, current step} of a blocked global worker. */
    private static int[] at(final SymbolicEngine engine, final int g)
    {
        return new int[] {engine.rankOf(g), engine.localOf(g), engine.done(g)};
    }

    private static String describe(final SymbolicEngine engine, final MscclSourceMap map,
        final SymbolicEngine.Wait wait)
    {
        final int[] at = at(engine, wait.worker());
        final Worker w = engine.program().workers(at[0]).get(at[1]);
        final String at2 = map.describe(at[0], at[1], at[2]);
        final String op = w.opcode(at[2]).mscclName();
        final String who = at2.contains(" (line") ? at2.replace(" (line", " (" + op + ", line") :
            at2 + " (" + op + ")";
        final String target = wait.target() < 0 ? "" : map.describe(engine.rankOf(wait.target()),
            engine.localOf(wait.target()));
        return switch (wait.reason())
        {
            case DEPENDENCY -> who + " waits for tb " + w.field(at[2], StepDescriptor.DEP_WORKER) + " step " +
                w.field(at[2], StepDescriptor.DEP_STEP) + " (its depid/deps)" +
                (target.isEmpty() ? "" : ", and " + target + " is at step " + engine.done(wait.target()));
            case RECEIVE -> who + " waits for a message from rank " + w.recvPeer() + " on channel " + w.channel() +
                (target.isEmpty() ? " from a threadblock that sends there" : " from " + target);
            case SEND -> who + " waits for room on its connection to rank " + w.sendPeer() + " channel " +
                w.channel() + (target.isEmpty() ? "" : ", which " + target + " drains");
        };
    }
}
