package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.TransportKind;
import io.jccl.autotune.OnlineTuner;
import io.jccl.autotune.PlanRequest;
import io.jccl.autotune.TaskKey;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The online tuner across processes. Every process runs the same search (same settings, compared at creation; same
 * seed; rank 0's calibration), and only rank 0 times its calls: it sends each record (task, call index, plan, time)
 * or failure to the other processes through the bootstrap, in order, and they feed it to their own tuner, which then
 * publishes the same rounds. So every rank walks the same sequence of plans with no per-call handshake, and a rank
 * whose next round has not arrived keeps its call queued (the caller is not blocked).
 * <p>
 * A notice holds one or more records in order ({@link Outbox}); records of one task and plan at consecutive call
 * indices travel as one run (its header once, then 8 bytes a record), which the other processes apply in one pass. A
 * run's header carries its first record's request: a follower uses a request only to make a task it has not met. A
 * record that published a round, or changed a converged plan's lead, goes at once with those held before it. The others
 * wait, each for as many records as {@link OnlineTuner#record} allows: a quarter of the lead for a converged plan's
 * drift watch, and until the round's last sample for the samples of a round being measured. The other processes then
 * publish a prefix of rank 0's rounds and give a converged plan to fewer calls than rank 0 does, never more, and still
 * to enough: a batch leaves three quarters of the lead. A message per call took an 8-byte AllReduce between two
 * processes from about 1 to 35-40 us once converged, and woke the other process's bootstrap thread between the search's
 * samples. Batched but sent whole (every record with its task, request and plan, decoded into new objects), the
 * converged plan's records still took 2.2-3.0 us a call there against 0.7-0.9 us without them: the other process's one
 * CPU decoded them.
 */
final class TunerReplication
{
    /** A run: records of one task and plan at consecutive call indices. */
    private static final byte RECORD = 1;
    private static final byte FAILED = 2;
    private static final byte[] NO_REASON = new byte[0];
    /** The bytes of an entry's task, request, call index and plan. */
    private static final int HEADER_BYTES = 1 + 4 * 4 + 8 * 2 + 8 + 4 * 2 + 1 + 8 + 4 * 6;
    /** The bytes of a run of one record. */
    private static final int RECORD_BYTES = HEADER_BYTES + 4 + 8;

    private TunerReplication()
    {
    }

    /**
     * Rank 0's records on their way to the other processes, in order; used by whichever thread holds rank 0's claim
     * (one at a time), and allocating one array per notice sent.
     */
    static final class Outbox
    {
        /** The records held at most, whatever they allow (then they go early, which is always safe). */
        static final int CAPACITY = 4096;
        /** The bytes held at most: a run takes 8 bytes a record, so only runs broken by other tasks fill it early. */
        static final int HELD_BYTES = 64 * 1024;

        private final java.util.function.Consumer<byte[]> sink;
        private final ByteBuffer held = ByteBuffer.allocate(Integer.BYTES + HELD_BYTES);
        private int count;
        /** The fewest records any record held allows to be held, itself included. */
        private int limit = Integer.MAX_VALUE;
        /** The last run held: where its record count lies in {@link #held} (-1 when none), its task, plan, index. */
        private int runCountAt = -1;
        private TaskKey runTask;
        private Plan runPlan;
        private long runLastIndex;

        /** @param sink sends a notice to every other process. */
        Outbox(final java.util.function.Consumer<byte[]> sink)
        {
            this.sink = sink;
            held.putInt(0);
        }

        /**
         * @param allowed what {@link OnlineTuner#record} said: how many records, this one included, may be held; 0
         *                sends it (and those held) now.
         */
        void record(final TaskKey task, final PlanRequest request, final long index, final Plan plan,
            final long nanos, final int allowed)
        {
            if (held.remaining() < RECORD_BYTES)
            {
                flush();
            }
            if (runCountAt >= 0 && index == runLastIndex + 1 && task.equals(runTask) && plan.equals(runPlan))
            {
                held.putInt(runCountAt, held.getInt(runCountAt) + 1).putLong(nanos);
            }
            else
            {
                encodeHeader(held, RECORD, task, request, index, plan);
                runCountAt = held.position();
                held.putInt(1).putLong(nanos);
                runTask = task;
                runPlan = plan;
            }
            runLastIndex = index;
            count++;
            limit = Math.min(limit, allowed);
            if (count >= limit || count >= CAPACITY)
            {
                flush();
            }
        }

        /** A failure goes at once, after those held. */
        void failed(final TaskKey task, final PlanRequest request, final long index, final Plan plan,
            final String reason)
        {
            flush();
            final byte[] why = reason == null ? NO_REASON : reason.getBytes(StandardCharsets.UTF_8);
            final ByteBuffer one = ByteBuffer.allocate(Integer.BYTES + HEADER_BYTES + Integer.BYTES + why.length);
            one.putInt(1);
            encodeHeader(one, FAILED, task, request, index, plan);
            one.putInt(why.length).put(why);
            sink.accept(one.array());
        }

        /** Sends the records held, if any. */
        void flush()
        {
            if (count == 0)
            {
                return;
            }
            held.putInt(0, count);
            final byte[] notice = java.util.Arrays.copyOf(held.array(), held.position());
            held.clear();
            held.putInt(0);
            count = 0;
            limit = Integer.MAX_VALUE;
            runCountAt = -1;
            sink.accept(notice);
        }
    }

    private static void encodeHeader(final ByteBuffer b, final byte kind, final TaskKey task,
        final PlanRequest request, final long index, final Plan plan)
    {
        b.put(kind).putInt(task.collective().ordinal()).putInt(task.type().ordinal())
            .putInt(task.op() == null ? -1 : task.op().ordinal()).putInt(task.ranks()).putLong(task.minBytes())
            .putLong(task.maxBytes());
        b.putLong(request.bytes()).putInt(request.nodes()).putInt(request.pipeOps())
            .put((byte)(request.registered() ? 1 : 0));
        b.putLong(index).putInt(plan.algorithm().ordinal()).putInt(plan.protocol().ordinal())
            .putInt(plan.transport().ordinal()).putInt(plan.channels()).putInt(plan.threads())
            .putInt(plan.chunkBytes());
    }

    /**
     * Feeds rank 0's records in one notice to this process's tuner, in order, making a task first where this process
     * has not met it.
     *
     * @param tuner          this process's tuner.
     * @param notice         the bytes rank 0 sent.
     * @param communicatorId this process's id of the communicator (ids are per process).
     */
    static void apply(final OnlineTuner tuner, final byte[] notice, final long communicatorId)
    {
        final ByteBuffer b = ByteBuffer.wrap(notice);
        final int count = b.getInt();
        int applied = 0;
        while (b.hasRemaining())
        {
            applied += applyEntry(tuner, b, communicatorId);
        }
        if (applied != count)
        {
            throw new IllegalStateException("a tuner notice of " + count + " records held " + applied);
        }
    }

    /** @return the records the entry (a run, or a failure) held. */
    private static int applyEntry(final OnlineTuner tuner, final ByteBuffer b, final long communicatorId)
    {
        final byte kind = b.get();
        final Collective collective = Collective.values()[b.getInt()];
        final DataType type = DataType.values()[b.getInt()];
        final int op = b.getInt();
        final int ranks = b.getInt();
        final TaskKey task = new TaskKey(collective, type, op < 0 ? null : ReduceOp.Kind.values()[op], ranks,
            communicatorId, b.getLong(), b.getLong());
        final PlanRequest request = new PlanRequest(collective, type, b.getLong(), ranks, b.getInt(), b.getInt(),
            b.get() != 0);
        final long index = b.getLong();
        final Plan plan = new Plan(Algorithm.values()[b.getInt()], Protocol.values()[b.getInt()],
            TransportKind.values()[b.getInt()], b.getInt(), b.getInt(), b.getInt());
        // the task's first round is the same everywhere: make it if this process's ranks have not called it yet
        tuner.planFor(task, request, 0);
        if (kind == RECORD)
        {
            final int records = b.getInt();
            for (int i = 0; i < records; i++)
            {
                tuner.record(task, index + i, plan, b.getLong());
            }
            return records;
        }
        final byte[] why = new byte[b.getInt()];
        b.get(why);
        tuner.failed(task, index, plan, new String(why, StandardCharsets.UTF_8));
        return 1;
    }
}
