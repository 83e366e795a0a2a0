package io.jccl.schedules.msccl;

import io.jccl.schedules.BufferKind;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.Program;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;
import io.jccl.schedules.msccl.MscclProblem.Severity;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Structural checks of a loaded {@link MscclSchedule}, every problem found in one pass, each with its line and
 * element path:
 * <ul>
 *   <li>peers in range and not the rank itself; a step that sends (receives) in a threadblock with a send (receive)
 *   peer; {@code cnt} at least 1 (0 for {@code nop});</li>
 *   <li>every operand a step type uses, {@code off} to {@code off+cnt-1}, within the chunk count the {@code <gpu>}
 *   declared for that buffer;</li>
 *   <li>every dependency names an existing step of another threadblock of the same rank;</li>
 *   <li>at most one threadblock per (peer, channel) and direction on a rank, since one connection is one ordered
 *   FIFO (a threadblock has one send and one receive peer by construction: the format has one attribute each);</li>
 *   <li>on every FIFO (sender, receiver, channel), the k-th send matches the k-th receive, with the same
 *   {@code cnt}, and nothing is left over;</li>
 *   <li>no deadlock: a symbolic run of the dependency and queue graph ({@link SymbolicEngine}) finishes, with
 *   unbounded FIFOs and with FIFOs of {@link #FIFO_SLOTS} messages (what a connection holds); when it does not,
 *   every cycle of waits is reported.</li>
 * </ul>
 * Strict mode adds, as {@link Severity#C_EXECUTOR} warnings, what MSCCL's C executors would refuse or mis-run:
 * their step, threadblock, channel and count limits, the missing attributes of the older dialect, waits on steps
 * that do not publish ({@code hasdep="0"}, {@code nop}), and {@code nop} chains that do not end at a step with a
 * dependency. Non-strict mode reports errors and general warnings only.
 */
public final class MscclValidator
{
    /** Steps per threadblock in msccl-executor-nccl and RCCL ({@code MSCCL_MAX_NUM_STEPS}; 256 in the older runtime). */
    public static final int C_MAX_STEPS = 64;
    /** Threadblocks per rank in RCCL ({@code MSCCL_MAX_NUM_THREAD_BLOCKS}; 1024 in msccl-executor-nccl). */
    public static final int C_MAX_THREADBLOCKS = 64;
    /** Channels of MSCCL's C executors ({@code MAXCHANNELS}). */
    public static final int C_MAX_CHANNELS = 32;
    /** Threadblocks per channel with a send (receive) peer ({@code MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL}). */
    public static final int C_MAX_THREADBLOCKS_PER_CHANNEL = 32;
    /** Exclusive bound of {@code cnt} ({@code MSCCL_MAX_COUNT}). */
    public static final int C_MAX_COUNT = 72;
    /** Messages a connection holds in jccl and NCCL ({@code NCCL_STEPS}); a schedule must finish with that many. */
    public static final int FIFO_SLOTS = 8;
    /** Chunks in flight per connection in MSCCL's C executors with the Simple protocol (8 steps, 4 per chunk). */
    public static final int C_SIMPLE_CHUNKS_IN_FLIGHT = 2;
    /** Cycles and waits reported at most by a deadlock. */
    static final int MAX_DEADLOCK_REPORTS = 16;

    private MscclValidator()
    {
    }

    /**
     * @param schedule the schedule.
     * @param strict   also report what MSCCL's C executors would refuse.
     * @return every problem, errors first in the order found, then the reader's notes.
     */
    public static List<MscclProblem> check(final MscclSchedule schedule, final boolean strict)
    {
        final Checker checker = new Checker(schedule, strict);
        checker.structure();
        final boolean wellFormed = checker.errors.isEmpty();
        if (wellFormed)
        {
            checker.queues();
        }
        if (checker.errors.isEmpty())
        {
            checker.deadlock();
        }
        final List<MscclProblem> all = new ArrayList<>(checker.errors);
        all.addAll(checker.warnings);
        for (final MscclProblem note : schedule.notes())
        {
            if (note.severity() != Severity.C_EXECUTOR || strict)
            {
                all.add(note);
            }
        }
        return all;
    }

    /**
     * Checks a schedule and throws if it has errors.
     *
     * @param schedule the schedule.
     * @param strict   also report what MSCCL's C executors would refuse (as warnings, never as errors).
     * @return the warnings.
     * @throws MscclFormatException listing every error, if there is any.
     */
    public static List<MscclProblem> validate(final MscclSchedule schedule, final boolean strict)
    {
        final List<MscclProblem> problems = check(schedule, strict);
        final List<MscclProblem> errors = problems.stream().filter(MscclProblem::isError).toList();
        if (!errors.isEmpty())
        {
            throw new MscclFormatException(schedule.source(), errors);
        }
        return problems;
    }

    /**
     * Checks a schedule (not strict) and throws if it has errors.
     *
     * @param schedule the schedule.
     * @return the warnings.
     * @throws MscclFormatException listing every error, if there is any.
     */
    public static List<MscclProblem> validate(final MscclSchedule schedule)
    {
        return validate(schedule, false);
    }

    /** One check of one schedule. */
    private static final class Checker
    {
        final MscclSchedule schedule;
        final Program program;
        final MscclSourceMap map;
        final boolean strict;
        final List<MscclProblem> errors = new ArrayList<>();
        final List<MscclProblem> warnings = new ArrayList<>();

        Checker(final MscclSchedule schedule, final boolean strict)
        {
            this.schedule = schedule;
            this.program = schedule.program();
            this.map = schedule.sourceMap();
            this.strict = strict;
        }

        void error(final int rank, final int worker, final int step, final String message)
        {
            errors.add(new MscclProblem(Severity.ERROR, line(rank, worker, step), path(rank, worker, step),
                message));
        }

        void cExecutor(final int rank, final int worker, final int step, final String message)
        {
            if (strict)
            {
                warnings.add(new MscclProblem(Severity.C_EXECUTOR, line(rank, worker, step),
                    path(rank, worker, step), message));
            }
        }

        private int line(final int rank, final int worker, final int step)
        {
            if (rank < 0)
            {
                return map.algoLine();
            }
            if (worker < 0)
            {
                return map.gpuLine(rank);
            }
            return step < 0 ? map.workerLine(rank, worker) : map.stepLine(rank, worker, step);
        }

        private String path(final int rank, final int worker, final int step)
        {
            if (rank < 0)
            {
                return "algo";
            }
            if (worker < 0)
            {
                return map.path(rank);
            }
            return step < 0 ? map.path(rank, worker) : map.path(rank, worker, step);
        }

        private int threadblocks(final int rank)
        {
            return program.workers(rank).size() - (map.precopyWorker(rank) >= 0 ? 1 : 0);
        }

        // ------------------------------------------------------------------------ per element

        void structure()
        {
            final int n = program.ranks();
            if (schedule.nchannels() > C_MAX_CHANNELS)
            {
                cExecutor(-1, -1, -1, "nchannels=" + schedule.nchannels() + " exceeds the " + C_MAX_CHANNELS +
                    " channels of MSCCL's C executors");
            }
            if (!schedule.inPlace() && !schedule.outOfPlace())
            {
                warnings.add(new MscclProblem(Severity.WARNING, map.algoLine(), "algo",
                    "inplace=0 and outofplace=0: no call can select this schedule"));
            }
            for (int r = 0; r < n; r++)
            {
                final List<Worker> workers = program.workers(r);
                if (threadblocks(r) > C_MAX_THREADBLOCKS)
                {
                    cExecutor(r, -1, -1, threadblocks(r) + " threadblocks: RCCL allows " + C_MAX_THREADBLOCKS +
                        " (msccl-executor-nccl 1024, the older runtime 216)");
                }
                final Map<Integer, Integer> sendersPerChannel = new HashMap<>();
                final Map<Integer, Integer> receiversPerChannel = new HashMap<>();
                for (int w = 0; w < workers.size(); w++)
                {
                    final Worker worker = workers.get(w);
                    final boolean sendOk = peer(r, w, worker.sendPeer(), "send");
                    final boolean recvOk = peer(r, w, worker.recvPeer(), "recv");
                    if (worker.channel() < 0)
                    {
                        error(r, w, -1, "chan=" + worker.channel() + " is negative");
                    }
                    else if (w != map.precopyWorker(r))
                    {
                        if (worker.channel() >= C_MAX_CHANNELS)
                        {
                            cExecutor(r, w, -1, "chan=" + worker.channel() + ": MSCCL's C executors have " +
                                C_MAX_CHANNELS + " channels");
                        }
                        else if (worker.channel() >= schedule.nchannels())
                        {
                            cExecutor(r, w, -1, "chan=" + worker.channel() + " but nchannels=" +
                                schedule.nchannels() + ": MSCCL's C executors connect channels 0.." +
                                (schedule.nchannels() - 1) + " only");
                        }
                    }
                    if (worker.sendPeer() >= 0)
                    {
                        sendersPerChannel.merge(worker.channel(), 1, Integer::sum);
                    }
                    if (worker.recvPeer() >= 0)
                    {
                        receiversPerChannel.merge(worker.channel(), 1, Integer::sum);
                    }
                    if (worker.stepCount() > C_MAX_STEPS && w != map.precopyWorker(r))
                    {
                        cExecutor(r, w, -1, worker.stepCount() + " steps: msccl-executor-nccl and RCCL allow " +
                            C_MAX_STEPS + " per threadblock (the older runtime 256)");
                    }
                    steps(r, w, worker, sendOk, recvOk);
                }
                for (final Map.Entry<Integer, Integer> e : sendersPerChannel.entrySet())
                {
                    if (e.getValue() > C_MAX_THREADBLOCKS_PER_CHANNEL)
                    {
                        cExecutor(r, -1, -1, e.getValue() + " threadblocks send on channel " + e.getKey() +
                            ": MSCCL's C executors allow " + C_MAX_THREADBLOCKS_PER_CHANNEL);
                    }
                }
                for (final Map.Entry<Integer, Integer> e : receiversPerChannel.entrySet())
                {
                    if (e.getValue() > C_MAX_THREADBLOCKS_PER_CHANNEL)
                    {
                        cExecutor(r, -1, -1, e.getValue() + " threadblocks receive on channel " + e.getKey() +
                            ": MSCCL's C executors allow " + C_MAX_THREADBLOCKS_PER_CHANNEL);
                    }
                }
            }
        }

        private boolean peer(final int r, final int w, final int peer, final String attribute)
        {
            if (peer == Worker.NO_PEER)
            {
                return true;
            }
            if (peer < -1 || peer >= program.ranks())
            {
                error(r, w, -1, attribute + "=" + peer + " is not a rank (-1 or 0.." + (program.ranks() - 1) + ")");
                return false;
            }
            if (peer == r)
            {
                error(r, w, -1, attribute + "=" + peer + " is the threadblock's own rank");
                return false;
            }
            return true;
        }

        private void steps(final int r, final int w, final Worker worker, final boolean sendOk,
            final boolean recvOk)
        {
            final List<Worker> workers = program.workers(r);
            final boolean precopy = w == map.precopyWorker(r);
            boolean pendingNops = false;
            for (int s = 0; s < worker.stepCount(); s++)
            {
                final Opcode op = worker.opcode(s);
                final int cnt = worker.field(s, StepDescriptor.CHUNK_COUNT);
                if (op == Opcode.NOP ? cnt < 0 : cnt < 1)
                {
                    error(r, w, s, "cnt=" + cnt + (op == Opcode.NOP ? " is negative" :
                        ": a " + op.mscclName() + " step covers at least one chunk"));
                }
                else if (op != Opcode.NOP && cnt >= C_MAX_COUNT)
                {
                    cExecutor(r, w, s, "cnt=" + cnt + ": MSCCL's C executors need cnt < " + C_MAX_COUNT);
                }
                if (op == Opcode.RECV_REDUCE_COPY_REVERSED)
                {
                    cExecutor(r, w, s, "type=\"rrcr\" is jccl's own step: MSCCL's C executors do not run it " +
                        "(MscclWriter writes a Program's rrcr as cpy, r into scratch, re)");
                }
                if (op.sends() && sendOk && worker.sendPeer() == Worker.NO_PEER)
                {
                    error(r, w, s, "a " + op.mscclName() + " step sends, but its threadblock has send=-1");
                }
                if (op.receives() && recvOk && worker.recvPeer() == Worker.NO_PEER)
                {
                    error(r, w, s, "a " + op.mscclName() + " step receives, but its threadblock has recv=-1");
                }
                if (cnt >= 1 || op == Opcode.NOP)
                {
                    if (op.readsSource())
                    {
                        bounds(r, w, s, "src", BufferKind.of(worker.field(s, StepDescriptor.SRC_BUFFER)),
                            worker.field(s, StepDescriptor.SRC_CHUNK), cnt);
                    }
                    if (op.writesDestination())
                    {
                        bounds(r, w, s, "dst", BufferKind.of(worker.field(s, StepDescriptor.DST_BUFFER)),
                            worker.field(s, StepDescriptor.DST_CHUNK), cnt);
                    }
                }
                final int dw = worker.field(s, StepDescriptor.DEP_WORKER);
                final int ds = worker.field(s, StepDescriptor.DEP_STEP);
                if (dw != StepDescriptor.NO_DEPENDENCY)
                {
                    dependency(r, w, s, dw, ds, precopy ? workers.size() : threadblocks(r));
                }
                if (op == Opcode.NOP)
                {
                    pendingNops |= dw >= 0;
                }
                else
                {
                    if (pendingNops && dw < 0)
                    {
                        cExecutor(r, w, s, "a chain of nop dependencies must end at a step with its own " +
                            "dependency: MSCCL's C parser rejects the file (\"the last reduction must be a part " +
                            "of the first immediate instruction\")");
                    }
                    pendingNops = false;
                }
            }
            if (pendingNops)
            {
                cExecutor(r, w, worker.stepCount() - 1, "trailing nop dependencies: MSCCL's C parser attaches " +
                    "them to no step, so nothing waits for them there");
            }
        }

        private void bounds(final int r, final int w, final int s, final String operand, final BufferKind kind,
            final int offset, final int cnt)
        {
            final int declared = map.declaredChunks(r, kind);
            final String attribute = kind.mscclName() + "_chunks";
            if (offset < 0 || offset >= declared)
            {
                error(r, w, s, operand + "off=" + offset + " is outside " + operand + "buf=\"" + kind.mscclName() +
                    "\", which has " + declared + " chunks (" + attribute + "=" + declared + ")");
            }
            else if ((long)offset + Math.max(cnt, 1) > declared)
            {
                error(r, w, s, operand + "off=" + offset + " cnt=" + cnt + " reaches chunk " +
                    ((long)offset + cnt - 1) + " of " + operand + "buf=\"" + kind.mscclName() + "\", which has " +
                    declared + " chunks (" + attribute + "=" + declared + ")");
            }
        }

        private void dependency(final int r, final int w, final int s, final int dw, final int ds,
            final int threadblocks)
        {
            final List<Worker> workers = program.workers(r);
            if (dw < 0 || dw >= threadblocks)
            {
                error(r, w, s, "depid=" + dw + ": rank " + r + " has no threadblock " + dw + " (it has " +
                    threadblocks + ")");
                return;
            }
            final int steps = workers.get(dw).stepCount();
            if (ds < 0 || ds >= steps)
            {
                error(r, w, s, "depid=" + dw + " deps=" + ds + ": threadblock " + dw + " has no step " + ds +
                    " (it has " + steps + ")");
                return;
            }
            if (dw == w && ds >= s)
            {
                error(r, w, s, "depends on step " + ds + " of its own threadblock, which cannot run before it");
                return;
            }
            if (workers.get(dw).opcode(ds) == Opcode.NOP)
            {
                cExecutor(r, w, s, "waits for a nop (tb " + dw + " step " + ds + "): MSCCL's C executors never " +
                    "publish a nop, so the wait resolves only at that threadblock's next published step");
            }
            else if (!map.hasDep(r, dw, ds))
            {
                int next = -1;
                for (int t = ds + 1; t < steps && next < 0; t++)
                {
                    if (map.hasDep(r, dw, t) && workers.get(dw).opcode(t) != Opcode.NOP)
                    {
                        next = t;
                    }
                }
                cExecutor(r, w, s, "waits for tb " + dw + " step " + ds + ", which has hasdep=\"0\": MSCCL's C " +
                    "executors publish only hasdep=\"1\" steps, so the wait " + (next < 0 ? "never resolves there" :
                    "resolves only after its step " + next));
            }
        }

        // ------------------------------------------------------------------------ connections

        /** Per FIFO (sender, receiver, channel): the one threadblock at each end, and matching sends and receives. */
        void queues()
        {
            final Map<Long, List<Integer>> senders = new LinkedHashMap<>();
            final Map<Long, List<Integer>> receivers = new LinkedHashMap<>();
            final Map<Long, int[]> ends = new LinkedHashMap<>();
            for (int r = 0; r < program.ranks(); r++)
            {
                final List<Worker> workers = program.workers(r);
                for (int w = 0; w < workers.size(); w++)
                {
                    final Worker worker = workers.get(w);
                    if (worker.sendPeer() >= 0)
                    {
                        final long key = SymbolicEngine.key(r, worker.sendPeer(), worker.channel());
                        senders.computeIfAbsent(key, k -> new ArrayList<>()).add(w);
                        ends.putIfAbsent(key, new int[] {r, worker.sendPeer(), worker.channel()});
                    }
                    if (worker.recvPeer() >= 0)
                    {
                        final long key = SymbolicEngine.key(worker.recvPeer(), r, worker.channel());
                        receivers.computeIfAbsent(key, k -> new ArrayList<>()).add(w);
                        ends.putIfAbsent(key, new int[] {worker.recvPeer(), r, worker.channel()});
                    }
                }
            }
            for (final Map.Entry<Long, int[]> e : ends.entrySet())
            {
                final int src = e.getValue()[0];
                final int dst = e.getValue()[1];
                final int chan = e.getValue()[2];
                final List<Integer> from = senders.getOrDefault(e.getKey(), List.of());
                final List<Integer> to = receivers.getOrDefault(e.getKey(), List.of());
                if (from.size() > 1)
                {
                    error(src, from.get(1), -1, "tb " + from.get(0) + " and tb " + from.get(1) + " both send to rank " +
                        dst + " on channel " + chan + ": a (peer, channel) connection is one ordered FIFO, so only " +
                        "one threadblock of a rank may send on it");
                }
                if (to.size() > 1)
                {
                    error(dst, to.get(1), -1, "tb " + to.get(0) + " and tb " + to.get(1) + " both receive from " +
                        "rank " + src + " on channel " + chan + ": a (peer, channel) connection is one ordered " +
                        "FIFO, so only one threadblock of a rank may receive from it");
                }
                if (from.size() > 1 || to.size() > 1)
                {
                    continue;
                }
                match(src, from.isEmpty() ? -1 : from.get(0), dst, to.isEmpty() ? -1 : to.get(0), chan);
            }
        }

        private void match(final int src, final int sender, final int dst, final int receiver, final int chan)
        {
            final List<Integer> sends = sender < 0 ? List.of() : transfers(src, sender, true);
            final List<Integer> recvs = receiver < 0 ? List.of() : transfers(dst, receiver, false);
            if (receiver < 0)
            {
                if (!sends.isEmpty())
                {
                    error(src, sender, sends.get(0), "sends to rank " + dst + " on channel " + chan + ", but no " +
                        "threadblock of rank " + dst + " receives from rank " + src + " on channel " + chan);
                }
                return;
            }
            if (sender < 0)
            {
                if (!recvs.isEmpty())
                {
                    error(dst, receiver, recvs.get(0), "receives from rank " + src + " on channel " + chan +
                        ", but no threadblock of rank " + src + " sends to rank " + dst + " on channel " + chan);
                }
                return;
            }
            final Worker out = program.workers(src).get(sender);
            final Worker in = program.workers(dst).get(receiver);
            final int common = Math.min(sends.size(), recvs.size());
            for (int k = 0; k < common; k++)
            {
                final int sent = out.field(sends.get(k), StepDescriptor.CHUNK_COUNT);
                final int received = in.field(recvs.get(k), StepDescriptor.CHUNK_COUNT);
                if (sent != received)
                {
                    error(dst, receiver, recvs.get(k), "receive " + (k + 1) + " from rank " + src + " on channel " +
                        chan + " has cnt=" + received + ", but the matching send, " +
                        map.describe(src, sender, sends.get(k)) + ", has cnt=" + sent);
                }
            }
            if (sends.size() > recvs.size())
            {
                error(src, sender, sends.get(common), "rank " + src + " tb " + sender + " sends " + sends.size() +
                    " messages to rank " + dst + " on channel " + chan + ", but " + map.describe(dst, receiver) +
                    " receives " + recvs.size() + ": this send and the later ones are never received");
            }
            else if (recvs.size() > sends.size())
            {
                error(dst, receiver, recvs.get(common), "rank " + dst + " tb " + receiver + " receives " +
                    recvs.size() + " messages from rank " + src + " on channel " + chan + ", but " +
                    map.describe(src, sender) + " sends " + sends.size() + ": this receive and the later ones " +
                    "wait forever");
            }
        }

        private List<Integer> transfers(final int rank, final int worker, final boolean sending)
        {
            final Worker w = program.workers(rank).get(worker);
            final List<Integer> steps = new ArrayList<>();
            for (int s = 0; s < w.stepCount(); s++)
            {
                if (sending ? w.opcode(s).sends() : w.opcode(s).receives())
                {
                    steps.add(s);
                }
            }
            return steps;
        }

        // ------------------------------------------------------------------------ deadlock

        void deadlock()
        {
            final SymbolicEngine.Action nothing = (rank, worker, step, received) -> null;
            final SymbolicEngine unbounded = new SymbolicEngine(program, 0);
            if (!unbounded.run(nothing))
            {
                DeadlockReport.report(unbounded, map, errors);
                return;
            }
            // a connection buffers a bounded number of messages; larger buffers never add a deadlock, so find the
            // smallest depth that suffices
            int depth = 1;
            SymbolicEngine bounded = new SymbolicEngine(program, depth);
            while (!bounded.run(nothing) && depth < FIFO_SLOTS)
            {
                depth *= 2;
                bounded = new SymbolicEngine(program, depth);
            }
            if (!bounded.finished())
            {
                final List<MscclProblem> cycles = new ArrayList<>();
                DeadlockReport.report(bounded, map, cycles);
                errors.add(new MscclProblem(Severity.ERROR, map.algoLine(), "algo", "deadlock when a connection " +
                    "holds " + FIFO_SLOTS + " messages, as jccl's and NCCL's do (it finishes only with deeper " +
                    "FIFOs): sends wait for receives that wait behind them"));
                errors.addAll(cycles);
            }
            else if (depth > C_SIMPLE_CHUNKS_IN_FLIGHT && schedule.protocol() == io.jccl.Protocol.SIMPLE)
            {
                cExecutor(-1, -1, -1, "finishes only when a connection holds " + depth + " messages; with the " +
                    "Simple protocol MSCCL's C executors hold " + C_SIMPLE_CHUNKS_IN_FLIGHT + " chunks per " +
                    "connection (4 of NCCL's 8 steps each)");
            }
        }
    }
}
