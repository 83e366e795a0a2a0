package io.jccl.schedules.msccl;

import io.jccl.Collective;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.ChunkLayout;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.Program;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;
import io.jccl.schedules.msccl.MscclProblem.Severity;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Evaluates a schedule on symbols, independently of any executor, and says whether it computes the collective it
 * declares on {@code ngpus} ranks, in place and out of place as declared.
 * <p>
 * Every chunk holds the multiset of contributions it combines: a contribution is (rank q, input chunk j), the
 * initial content of {@code i[j]} on rank q; a reduction is the multiset union, so adding one contribution twice is
 * visible and wrong. Buffers alias in place as MSCCL-XML.md section 5 says ({@link Cells}). Output chunks start
 * never-written out of place, as does scratch (MSCCL's C executor leaves a previous call's data there); reading a
 * never-written chunk is a warning, and what it taints is wrong wherever it reaches the output. The expected
 * content of {@code o} on rank r, with k chunks per rank, n ranks:
 * <ul>
 *   <li>allreduce: {@code o[j]} = every rank's {@code i[j]}; reduce: the same on the root only;</li>
 *   <li>allgather: {@code o[q*k+j]} = rank q's {@code i[j]}; broadcast: {@code o[j]} = the root's {@code i[j]};</li>
 *   <li>reducescatter: {@code o[j]} = every rank's {@code i[r*k+j]};</li>
 *   <li>alltoall: {@code o[q*k+j]} = rank q's {@code i[r*k+j]}.</li>
 * </ul>
 * The run orders workers in one of many possible ways, so it also proves the result does not depend on that order:
 * vector clocks (a step happens after its dependency and after the send of what it receives) flag any two
 * accesses to one chunk, one of them a write, that nothing orders. A race, a deadlock or a message never received
 * is an error as much as a wrong chunk.
 * <p>
 * Over 600 lines on purpose: one job, the symbolic run; its contribution sets, aliasing, clocks and verdicts share
 * the run's state, and splitting them would pass that state between files at every step.
 */
public final class MscclSemanticCheck
{
    /** Races, wrong chunks and never-written reads reported at most, per mode. */
    static final int MAX_REPORTS = 10;
    /** Above this many chunk cells over all ranks, the schedule is not evaluated (memory grows with them). */
    static final long MAX_CELLS = 1 << 22;
    /**
     * Above this many clock entries (threadblocks squared, plus threadblocks times steps depended on), the race
     * check is skipped: its vector clocks would take too much memory.
     */
    static final long MAX_CLOCK_ENTRIES = 1 << 24;

    private MscclSemanticCheck()
    {
    }

    /**
     * @param schedule the schedule (it is validated first; a structurally invalid one is not evaluated).
     * @return the verdict.
     */
    public static MscclVerdict check(final MscclSchedule schedule)
    {
        return check(schedule, null);
    }

    /**
     * @param schedule the schedule.
     * @param order    null for the default run; else a random interleaving of single steps (tests use it to show
     *                 that a reported race changes the result).
     * @return the verdict.
     */
    static MscclVerdict check(final MscclSchedule schedule, final java.util.Random order)
    {
        final List<MscclProblem> structural = MscclValidator.check(schedule, false).stream()
            .filter(MscclProblem::isError).toList();
        if (!structural.isEmpty())
        {
            return new MscclVerdict(false, "WRONG: not evaluated, the schedule has " + structural.size() +
                " structural error" + (structural.size() == 1 ? "" : "s") + "; first: " + structural.get(0),
                structural);
        }
        final List<Boolean> modes = new ArrayList<>();
        if (schedule.inPlace())
        {
            modes.add(true);
        }
        if (schedule.outOfPlace())
        {
            modes.add(false);
        }
        if (modes.isEmpty())
        {
            final MscclProblem p = new MscclProblem(Severity.ERROR, schedule.sourceMap().algoLine(), "algo",
                "inplace=0 and outofplace=0: there is nothing to check and no call can use it");
            return new MscclVerdict(false, "WRONG: " + p.message(), List.of(p));
        }
        final Program program = schedule.program();
        final long cells = (long)program.ranks() * (program.layout(BufferKind.INPUT).chunks() +
            program.layout(BufferKind.OUTPUT).chunks() + (program.layout(BufferKind.SCRATCH) == null ? 0 :
            program.layout(BufferKind.SCRATCH).chunks()));
        if (cells > MAX_CELLS)
        {
            final MscclProblem p = new MscclProblem(Severity.ERROR, schedule.sourceMap().algoLine(), "algo",
                "not evaluated: " + cells + " chunks over all ranks exceed the checker's limit of " + MAX_CELLS);
            return new MscclVerdict(false, "WRONG: " + p.message(), List.of(p));
        }
        final List<MscclProblem> problems = new ArrayList<>();
        String firstWrong = null;
        for (final boolean inPlace : modes)
        {
            final Evaluation evaluation = new Evaluation(schedule, inPlace, order);
            evaluation.run();
            problems.addAll(evaluation.problems);
            if (firstWrong == null && evaluation.firstError != null)
            {
                firstWrong = "WRONG " + mode(inPlace) + ": " + evaluation.firstError;
            }
        }
        final String what = schedule.collective().xmlName() + " on " + schedule.ngpus() + " ranks" +
            (schedule.collective().isRooted() ? " with root " + schedule.root() : "") + " (" +
            (modes.size() == 2 ? "in place and out of place" : mode(modes.get(0))) + ")";
        return new MscclVerdict(firstWrong == null, firstWrong == null ? "OK: computes " + what : firstWrong +
            " [declared: " + what + "]", problems);
    }

    private static String mode(final boolean inPlace)
    {
        return inPlace ? "in place" : "out of place";
    }

    /** A chunk's content: a sorted multiset of contribution keys, or data derived from a never-written chunk. */
    private static final class Value
    {
        final int[] keys;
        final String garbage;

        Value(final int[] keys, final String garbage)
        {
            this.keys = keys;
            this.garbage = garbage;
        }

        static Value reduce(final Value a, final Value b)
        {
            if (a.garbage != null)
            {
                return a;
            }
            if (b.garbage != null)
            {
                return b;
            }
            final int[] merged = new int[a.keys.length + b.keys.length];
            int i = 0;
            int j = 0;
            int k = 0;
            while (i < a.keys.length || j < b.keys.length)
            {
                merged[k++] = j == b.keys.length || i < a.keys.length && a.keys[i] <= b.keys[j] ? a.keys[i++] :
                    b.keys[j++];
            }
            return new Value(merged, null);
        }

        boolean sameAs(final Value other)
        {
            return garbage == null && other.garbage == null && Arrays.equals(keys, other.keys);
        }
    }

    /** A message: the values it carries, the sender's clock when it sent them, and the sending event. */
    private record Message(Value[] values, int[] clock, int event)
    {
    }

    /** The last write and the reads since, of one cell. */
    private static final class Access
    {
        int writer = -1;
        int writeClock;
        int writeStep;
        int writeEvent = -1;
        Value before;
        Map<Integer, int[]> readers;
    }

    /**
     * Two accesses to one cell that nothing orders. Whether the other order changes the output is known only after
     * the run: {@code liveEvent} (if not -1) must be live, or the write {@code liveWrite} must be read by a live
     * event or end in the output, and the two orders must give the reader different values.
     */
    private record Race(int rank, int cell, int worker, int step, String message, int liveEvent, long liveWrite,
        boolean differs)
    {
    }

    /** One run of one mode. */
    private static final class Evaluation implements SymbolicEngine.Action
    {
        final MscclSchedule schedule;
        final Program program;
        final MscclSourceMap map;
        final boolean inPlace;
        final String mode;
        final Collective collective;
        final int ranks;
        final int inputChunks;
        final int outputChunks;
        final Cells[] cells;
        final Value[][] values;
        final Access[][] access;
        final SymbolicEngine engine;
        final boolean races;
        final int[][] clocks;
        final Map<Long, int[]> snapshots = new HashMap<>();
        final Set<Long> dependedOn = new HashSet<>();
        final List<MscclProblem> problems = new ArrayList<>();
        final Set<Long> racyCells = new HashSet<>();
        final List<Race> raceList = new ArrayList<>();
        final Set<Long> unwrittenCells = new HashSet<>();
        /** Per event (one executed step), the writes ((event << 32) | cell) and sends ((event << 32) | -1) it used. */
        final List<long[]> sources = new ArrayList<>();
        int event;
        long[] eventSources = new long[8];
        int eventSourceCount;
        int unwrittenReads;
        String firstError;

        Evaluation(final MscclSchedule schedule, final boolean inPlace, final java.util.Random order)
        {
            this.schedule = schedule;
            this.program = schedule.program();
            this.map = schedule.sourceMap();
            this.inPlace = inPlace;
            this.mode = mode(inPlace) + ": ";
            this.collective = schedule.collective();
            this.ranks = program.ranks();
            this.inputChunks = program.layout(BufferKind.INPUT).chunks();
            this.outputChunks = program.layout(BufferKind.OUTPUT).chunks();
            final ChunkLayout scratch = program.layout(BufferKind.SCRATCH);
            final int scratchChunks = scratch == null ? 0 : scratch.chunks();
            cells = new Cells[ranks];
            values = new Value[ranks][];
            access = new Access[ranks][];
            for (int r = 0; r < ranks; r++)
            {
                cells[r] = new Cells(collective, r, inputChunks, outputChunks, scratchChunks, inPlace);
                values[r] = new Value[cells[r].count()];
                access[r] = new Access[cells[r].count()];
                for (int j = 0; j < inputChunks; j++)
                {
                    values[r][cells[r].cell(BufferKind.INPUT, j)] = new Value(new int[] {r * inputChunks + j}, null);
                }
            }
            engine = new SymbolicEngine(program, 0, order);
            for (int r = 0; r < ranks; r++)
            {
                final List<Worker> workers = program.workers(r);
                for (final Worker w : workers)
                {
                    for (int s = 0; s < w.stepCount(); s++)
                    {
                        final int dw = w.field(s, StepDescriptor.DEP_WORKER);
                        if (dw >= 0)
                        {
                            dependedOn.add(stepKey(engine.global(r, dw), w.field(s, StepDescriptor.DEP_STEP)));
                        }
                    }
                }
            }
            final long entries = (long)engine.workerCount() * (engine.workerCount() + dependedOn.size());
            races = entries <= MAX_CLOCK_ENTRIES;
            clocks = races ? new int[engine.workerCount()][engine.workerCount()] : null;
            if (!races)
            {
                problems.add(new MscclProblem(Severity.WARNING, map.algoLine(), "algo", mode + "race check " +
                    "skipped: " + engine.workerCount() + " threadblocks in all need " + entries + " clock entries " +
                    "(limit " + MAX_CLOCK_ENTRIES + ")"));
            }
        }

        private static long stepKey(final int global, final int step)
        {
            return ((long)global << 32) | (step & 0xffffffffL);
        }

        private static long writeKey(final int event, final int cell)
        {
            return ((long)event << 32) | (cell & 0xffffffffL);
        }

        void run()
        {
            engine.run(this);
            if (!engine.finished() || engine.leftoverMessages() > 0)
            {
                final List<MscclProblem> errors = new ArrayList<>();
                DeadlockReport.report(engine, map, errors);
                for (final MscclProblem e : errors)
                {
                    error(e.line(), e.path(), e.message());
                }
            }
            if (unwrittenReads > 0)
            {
                problems.add(new MscclProblem(Severity.WARNING, map.algoLine(), "algo", mode + unwrittenReads +
                    " read" + (unwrittenReads == 1 ? "" : "s") + " of never-written chunks (" +
                    unwrittenCells.size() + " distinct); the C executors would use whatever those hold"));
            }
            if (engine.finished())
            {
                racesThatMatter();
                outputs();
            }
        }

        private void error(final int line, final String path, final String message)
        {
            problems.add(new MscclProblem(Severity.ERROR, line, path, mode + message));
            if (firstError == null)
            {
                firstError = message;
            }
        }

        // ------------------------------------------------------------------------ steps

        @Override
        public Object execute(final int rank, final int worker, final int step, final Object received)
        {
            final Worker w = program.workers(rank).get(worker);
            final Opcode op = w.opcode(step);
            final int g = engine.global(rank, worker);
            eventSourceCount = 0;
            if (received != null)
            {
                source(writeKey(((Message)received).event, -1));
            }
            if (races)
            {
                final int dw = w.field(step, StepDescriptor.DEP_WORKER);
                if (dw >= 0)
                {
                    join(clocks[g], snapshots.get(stepKey(engine.global(rank, dw),
                        w.field(step, StepDescriptor.DEP_STEP))));
                }
                if (received != null)
                {
                    join(clocks[g], ((Message)received).clock);
                }
                clocks[g][g]++;
            }
            final int cnt = w.field(step, StepDescriptor.CHUNK_COUNT);
            final Value[] in = received == null ? null : ((Message)received).values;
            final Value[] out = op.sends() ? new Value[cnt] : null;
            final BufferKind src = BufferKind.of(w.field(step, StepDescriptor.SRC_BUFFER));
            final BufferKind dst = BufferKind.of(w.field(step, StepDescriptor.DST_BUFFER));
            final int srcChunk = w.field(step, StepDescriptor.SRC_CHUNK);
            final int dstChunk = w.field(step, StepDescriptor.DST_CHUNK);
            for (int j = 0; op != Opcode.NOP && j < cnt; j++)
            {
                final int srcCell = op.readsSource() ? cells[rank].cell(src, srcChunk + j) : -1;
                final int dstCell = op.writesDestination() ? cells[rank].cell(dst, dstChunk + j) : -1;
                if (op == Opcode.COPY && srcCell == dstCell)
                {
                    continue; // a copy onto itself (in place) changes nothing and touches nothing
                }
                final Value message = in == null ? null : j < in.length ? in[j] :
                    new Value(null, "a message shorter than its receive");
                final Value source = srcCell < 0 ? null : read(rank, worker, step, srcCell);
                final Value result = switch (op)
                {
                    case SEND -> source;
                    case RECV, RECV_COPY_SEND -> message;
                    case RECV_REDUCE_SEND, RECV_REDUCE_COPY, RECV_REDUCE_COPY_SEND -> Value.reduce(message, source);
                    case RECV_REDUCE_COPY_REVERSED -> Value.reduce(source, message);
                    case COPY -> source;
                    case REDUCE -> Value.reduce(read(rank, worker, step, dstCell), source);
                    case NOP -> null;
                };
                if (dstCell >= 0)
                {
                    write(rank, worker, step, dstCell, result);
                }
                if (out != null)
                {
                    out[j] = result;
                }
            }
            if (races && dependedOn.contains(stepKey(g, step)))
            {
                snapshots.put(stepKey(g, step), clocks[g].clone());
            }
            sources.add(Arrays.copyOf(eventSources, eventSourceCount));
            final int sender = event++;
            return out == null ? null : new Message(out, races ? clocks[g].clone() : null, sender);
        }

        private void source(final long key)
        {
            if (eventSourceCount == eventSources.length)
            {
                eventSources = Arrays.copyOf(eventSources, eventSourceCount * 2);
            }
            eventSources[eventSourceCount++] = key;
        }

        private static void join(final int[] into, final int[] other)
        {
            if (other != null)
            {
                for (int i = 0; i < into.length; i++)
                {
                    into[i] = Math.max(into[i], other[i]);
                }
            }
        }

        private Value read(final int rank, final int worker, final int step, final int cell)
        {
            final int g = engine.global(rank, worker);
            final Access a = access(rank, cell);
            if (a.writeEvent >= 0)
            {
                source(writeKey(a.writeEvent, cell));
            }
            if (races)
            {
                if (a.writer >= 0 && a.writer != g && clocks[g][a.writer] < a.writeClock)
                {
                    // the other order reads what was there before that write
                    race(rank, worker, step, cell, a.writer, a.writeStep, "writes", "reads", event, -1,
                        !same(a.before, values[rank][cell]));
                }
                if (a.readers == null)
                {
                    a.readers = new HashMap<>(4);
                }
                a.readers.put(g, new int[] {clocks[g][g], step, event});
            }
            final Value value = values[rank][cell];
            if (value != null)
            {
                return value;
            }
            unwrittenReads++;
            final String name = "rank " + rank + " " + cells[rank].name(cell);
            if (unwrittenCells.add(((long)rank << 32) | cell) && unwrittenCells.size() <= MAX_REPORTS)
            {
                problems.add(new MscclProblem(Severity.WARNING, map.stepLine(rank, worker, step),
                    map.path(rank, worker, step), mode + "reads " + cells[rank].name(cell) +
                    ", which nothing wrote before"));
            }
            return new Value(null, "never-written " + name);
        }

        private void write(final int rank, final int worker, final int step, final int cell, final Value value)
        {
            final int g = engine.global(rank, worker);
            final Access a = access(rank, cell);
            if (races)
            {
                if (a.writer >= 0 && a.writer != g && clocks[g][a.writer] < a.writeClock)
                {
                    // the other order leaves the earlier value in the cell for whoever reads this write
                    race(rank, worker, step, cell, a.writer, a.writeStep, "writes", "writes", -1,
                        writeKey(event, cell), !same(values[rank][cell], value));
                }
                if (a.readers != null)
                {
                    for (final Map.Entry<Integer, int[]> reader : a.readers.entrySet())
                    {
                        final int other = reader.getKey();
                        if (other != g && clocks[g][other] < reader.getValue()[0])
                        {
                            // the other order lets that reader see this write's value
                            race(rank, worker, step, cell, other, reader.getValue()[1], "reads", "writes",
                                reader.getValue()[2], -1, !same(values[rank][cell], value));
                        }
                    }
                    a.readers.clear();
                }
                a.writeClock = clocks[g][g];
            }
            a.before = values[rank][cell];
            a.writer = g;
            a.writeStep = step;
            a.writeEvent = event;
            values[rank][cell] = value;
        }

        private static boolean same(final Value a, final Value b)
        {
            return a == b || a != null && b != null && a.sameAs(b);
        }

        private Access access(final int rank, final int cell)
        {
            Access a = access[rank][cell];
            if (a == null)
            {
                a = new Access();
                access[rank][cell] = a;
            }
            return a;
        }

        private void race(final int rank, final int worker, final int step, final int cell, final int otherGlobal,
            final int otherStep, final String otherDoes, final String does, final int liveEvent,
            final long liveWrite, final boolean differs)
        {
            final int other = engine.localOf(otherGlobal);
            raceList.add(new Race(rank, cell, worker, step, "race on rank " + rank + " " + cells[rank].name(cell) +
                ": this step " + does + " it and " + map.describe(rank, other, otherStep) + " " + otherDoes +
                " it, and no dependency or message orders the two", liveEvent, liveWrite, differs));
        }

        /**
         * Which events matter: those whose results reach an output chunk, through the cells they write and the
         * messages they send, followed backwards over this run. A race is an error when the other order changes
         * a value that such an event uses; otherwise it is on dead data and only a warning.
         */
        private void racesThatMatter()
        {
            if (raceList.isEmpty())
            {
                return;
            }
            final boolean[] live = new boolean[event];
            final Set<Long> liveWrites = new HashSet<>();
            final ArrayDeque<Integer> work = new ArrayDeque<>();
            for (int r = 0; r < ranks; r++)
            {
                if (collective == Collective.REDUCE && r != schedule.root())
                {
                    continue;
                }
                for (int j = 0; j < outputChunks; j++)
                {
                    final int cell = cells[r].cell(BufferKind.OUTPUT, j);
                    final Access a = access[r][cell];
                    if (a != null && a.writeEvent >= 0)
                    {
                        liveWrites.add(writeKey(a.writeEvent, cell));
                        if (!live[a.writeEvent])
                        {
                            live[a.writeEvent] = true;
                            work.add(a.writeEvent);
                        }
                    }
                }
            }
            while (!work.isEmpty())
            {
                for (final long source : sources.get(work.poll()))
                {
                    final int producer = (int)(source >>> 32);
                    if ((int)source != -1)
                    {
                        liveWrites.add(source);
                    }
                    if (!live[producer])
                    {
                        live[producer] = true;
                        work.add(producer);
                    }
                }
            }
            int harmful = 0;
            int benign = 0;
            for (final Race race : raceList)
            {
                final boolean matters = race.differs() && (race.liveEvent() >= 0 ? live[race.liveEvent()] :
                    liveWrites.contains(race.liveWrite()));
                if (matters && racyCells.add((long)race.rank() << 32 | race.cell()))
                {
                    if (++harmful <= MAX_REPORTS)
                    {
                        error(map.stepLine(race.rank(), race.worker(), race.step()),
                            map.path(race.rank(), race.worker(), race.step()), race.message() + ", and the other " +
                            "order changes what reaches the output: the result depends on timing");
                    }
                }
                else if (!matters && ++benign <= MAX_REPORTS)
                {
                    problems.add(new MscclProblem(Severity.WARNING, map.stepLine(race.rank(), race.worker(),
                        race.step()), map.path(race.rank(), race.worker(), race.step()), mode + race.message() +
                        (race.differs() ? "; harmless here: what it changes never reaches the output" :
                        "; harmless here: both orders give the same value")));
                }
            }
            if (harmful > MAX_REPORTS)
            {
                error(map.algoLine(), "algo", "and " + (harmful - MAX_REPORTS) + " more races");
            }
            if (benign > MAX_REPORTS)
            {
                problems.add(new MscclProblem(Severity.WARNING, map.algoLine(), "algo", mode + "and " +
                    (benign - MAX_REPORTS) + " more harmless races"));
            }
        }

        // ------------------------------------------------------------------------ outputs

        private void outputs()
        {
            int wrong = 0;
            for (int r = 0; r < ranks; r++)
            {
                if (collective == Collective.REDUCE && r != schedule.root())
                {
                    continue;
                }
                for (int j = 0; j < outputChunks; j++)
                {
                    final int cell = cells[r].cell(BufferKind.OUTPUT, j);
                    final Value actual = values[r][cell];
                    final int[] expected = expected(r, j);
                    if (actual != null && actual.sameAs(new Value(expected, null)))
                    {
                        continue;
                    }
                    if (++wrong > MAX_REPORTS)
                    {
                        continue;
                    }
                    final Access a = access[r][cell];
                    final boolean written = a != null && a.writer >= 0;
                    final int worker = written ? engine.localOf(a.writer) : -1;
                    error(written ? map.stepLine(r, worker, a.writeStep) : map.gpuLine(r),
                        written ? map.path(r, worker, a.writeStep) : map.path(r),
                        "rank " + r + " o[" + j + "] " + holds(actual) + "; it should hold " + describe(expected) +
                        difference(actual, expected) + (written ? " (last written by this step)" : ""));
                }
            }
            if (wrong > MAX_REPORTS)
            {
                error(map.algoLine(), "algo", "and " + (wrong - MAX_REPORTS) + " more wrong output chunks");
            }
            if (wrong > 0)
            {
                int total = 0;
                for (int r = 0; r < ranks; r++)
                {
                    total += collective == Collective.REDUCE && r != schedule.root() ? 0 : outputChunks;
                }
                problems.add(new MscclProblem(Severity.ERROR, map.algoLine(), "algo", mode + wrong + " of " + total +
                    " output chunks wrong: this is not " + collective.xmlName()));
            }
        }

        private int[] expected(final int r, final int j)
        {
            final int k = outputChunks * ranks == inputChunks ? outputChunks : inputChunks / ranks;
            return switch (collective)
            {
                case ALL_REDUCE, REDUCE -> everyRank(j);
                case REDUCE_SCATTER -> everyRank(r * outputChunks + j);
                case ALL_GATHER -> new int[] {(j / inputChunks) * inputChunks + j % inputChunks};
                case ALL_TO_ALL -> new int[] {(j / k) * inputChunks + r * k + j % k};
                case BROADCAST -> new int[] {schedule.root() * inputChunks + j};
            };
        }

        private int[] everyRank(final int chunk)
        {
            final int[] keys = new int[ranks];
            for (int q = 0; q < ranks; q++)
            {
                keys[q] = q * inputChunks + chunk;
            }
            return keys;
        }

        private String holds(final Value actual)
        {
            if (actual == null)
            {
                return "was never written";
            }
            if (actual.garbage != null)
            {
                return "holds data derived from " + actual.garbage;
            }
            return "holds " + describe(actual.keys);
        }

        /** @return "i[3] of ranks 0-2, 5 (x2)" and so on, chunk by chunk. */
        private String describe(final int[] keys)
        {
            if (keys.length == 0)
            {
                return "nothing";
            }
            final TreeMap<Integer, List<Integer>> byChunk = new TreeMap<>();
            for (final int key : keys)
            {
                byChunk.computeIfAbsent(key % inputChunks, c -> new ArrayList<>()).add(key / inputChunks);
            }
            final StringBuilder sb = new StringBuilder();
            for (final Map.Entry<Integer, List<Integer>> e : byChunk.entrySet())
            {
                final List<Integer> rankList = e.getValue();
                rankList.sort(null);
                sb.append(sb.length() == 0 ? "" : " + ").append("i[").append(e.getKey()).append("] of rank")
                    .append(rankList.size() == 1 ? " " : "s ").append(ranksText(rankList));
            }
            return sb.toString();
        }

        private static String ranksText(final List<Integer> sorted)
        {
            final List<Integer> singles = new ArrayList<>();
            final StringBuilder sb = new StringBuilder();
            for (int i = 0; i < sorted.size(); )
            {
                int j = i;
                while (j + 1 < sorted.size() && sorted.get(j + 1).equals(sorted.get(i)))
                {
                    j++;
                }
                if (j > i)
                {
                    flush(singles, sb);
                    sb.append(sb.length() == 0 ? "" : ", ").append(sorted.get(i)).append(" (x").append(j - i + 1)
                        .append(')');
                }
                else
                {
                    singles.add(sorted.get(i));
                }
                i = j + 1;
            }
            flush(singles, sb);
            return sb.toString();
        }

        private static void flush(final List<Integer> singles, final StringBuilder sb)
        {
            if (!singles.isEmpty())
            {
                sb.append(sb.length() == 0 ? "" : ", ").append(MscclReader.ranges(singles));
                singles.clear();
            }
        }

        private String difference(final Value actual, final int[] expected)
        {
            if (actual == null || actual.garbage != null)
            {
                return "";
            }
            final int[] missing = minus(expected, actual.keys);
            final int[] extra = minus(actual.keys, expected);
            return " (" + (missing.length > 0 ? "missing " + describe(missing) : "") +
                (missing.length > 0 && extra.length > 0 ? "; " : "") +
                (extra.length > 0 ? "extra " + describe(extra) : "") + ")";
        }

        /** @return the sorted multiset a minus b. */
        private static int[] minus(final int[] a, final int[] b)
        {
            final int[] out = new int[a.length];
            int n = 0;
            int j = 0;
            for (final int key : a)
            {
                while (j < b.length && b[j] < key)
                {
                    j++;
                }
                if (j < b.length && b[j] == key)
                {
                    j++;
                }
                else
                {
                    out[n++] = key;
                }
            }
            return Arrays.copyOf(out, n);
        }
    }
}
