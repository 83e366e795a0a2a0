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
 */
final class TunerReplication
{
    private static final byte RECORD = 1;
    private static final byte FAILED = 2;

    private TunerReplication()
    {
    }

    /** @return a record of rank 0's call for the other processes. */
    static byte[] record(final TaskKey task, final PlanRequest request, final long index, final Plan plan,
        final long nanos)
    {
        return encode(RECORD, task, request, index, plan, nanos, "");
    }

    /** @return a failure of rank 0's call for the other processes. */
    static byte[] failed(final TaskKey task, final PlanRequest request, final long index, final Plan plan,
        final String reason)
    {
        return encode(FAILED, task, request, index, plan, 0, reason);
    }

    private static byte[] encode(final byte kind, final TaskKey task, final PlanRequest request, final long index,
        final Plan plan, final long nanos, final String reason)
    {
        final byte[] why = reason.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer b = ByteBuffer.allocate(128 + why.length);
        b.put(kind).putInt(task.collective().ordinal()).putInt(task.type().ordinal())
            .putInt(task.op() == null ? -1 : task.op().ordinal()).putInt(task.ranks()).putLong(task.minBytes())
            .putLong(task.maxBytes());
        b.putLong(request.bytes()).putInt(request.nodes()).putInt(request.pipeOps())
            .put((byte)(request.registered() ? 1 : 0));
        b.putLong(index).putInt(plan.algorithm().ordinal()).putInt(plan.protocol().ordinal())
            .putInt(plan.transport().ordinal()).putInt(plan.channels()).putInt(plan.threads())
            .putInt(plan.chunkBytes());
        b.putLong(nanos).putInt(why.length).put(why);
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    /**
     * Feeds one of rank 0's records to this process's tuner, making the task first where this process has not met it.
     *
     * @param tuner          this process's tuner.
     * @param notice         the bytes rank 0 sent.
     * @param communicatorId this process's id of the communicator (ids are per process).
     */
    static void apply(final OnlineTuner tuner, final byte[] notice, final long communicatorId)
    {
        final ByteBuffer b = ByteBuffer.wrap(notice);
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
        final long nanos = b.getLong();
        final byte[] why = new byte[b.getInt()];
        b.get(why);
        // the task's first round is the same everywhere: make it if this process's ranks have not called it yet
        tuner.planFor(task, request, 0);
        if (kind == RECORD)
        {
            tuner.record(task, index, plan, nanos);
        }
        else
        {
            tuner.failed(task, index, plan, new String(why, StandardCharsets.UTF_8));
        }
    }
}
