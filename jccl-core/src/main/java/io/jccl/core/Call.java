package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.ReduceOp;
import io.jccl.Work;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One collective call of one rank: its validated arguments, and its state from submission to completion. The
 * {@link Work} handle of the call.
 */
final class Call implements Work
{
    private static final int HELD = 0;
    private static final int SUBMITTED = 1;
    private static final int DONE = 2;

    final LocalCommunicator communicator;
    final Collective collective;
    final Buffer send;
    final Buffer recv;
    /** Elements per rank as NCCL counts them: per-rank send for AllGather, per-rank receive for ReduceScatter. */
    final long count;
    final DataType type;
    final ReduceOp op;
    final int root;
    /** In place as NCCL defines it for the collective (see {@link io.jccl.Communicator}). */
    final boolean inPlace;
    /** The caller's stream: on CUDA, the call's kernel is ordered on it when it wraps a CUDA stream. */
    final io.jccl.Stream stream;
    /** A point-to-point call's sends and receives (its collective and buffers are null), else null. */
    final P2pOps p2p;

    /** The call's number among its rank's calls, given when it reaches the head of the queue; -1 until then. */
    long seq = -1;
    long shape;
    /** The next call in its rank's {@link CallQueue}. */
    volatile Call next;
    /** When the call times out, set at its first stall (0 until then), and how many polls found it stalled. */
    long deadlineNs;
    int stalls;
    boolean bound;
    /** With online tuning: the call's task, its shape, its index among this rank's calls of it, and when bound. */
    io.jccl.autotune.TaskKey task;
    io.jccl.autotune.PlanRequest request;
    long taskIndex;
    io.jccl.Plan tunedPlan;
    long boundNs;
    Execution execution;
    /**
     * Written by the claim holder before completion and read by the caller: the completing store of state publishes
     * it.
     */
    private BoundShape boundShape;

    private volatile int state = HELD;
    private static final java.lang.invoke.VarHandle STATE;

    static
    {
        try
        {
            STATE = java.lang.invoke.MethodHandles.lookup().findVarHandle(Call.class, "state", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }
    /** Written before the completing store of state, which publishes it. */
    private JcclException error;
    private volatile CompletableFuture<Void> future;

    Call(final LocalCommunicator communicator, final Collective collective, final Buffer send, final Buffer recv,
        final long count, final DataType type, final ReduceOp op, final int root, final boolean inPlace,
        final io.jccl.Stream stream)
    {
        this.inPlace = inPlace;
        this.stream = stream;
        this.communicator = communicator;
        this.collective = collective;
        this.send = send;
        this.recv = recv;
        this.count = count;
        this.type = type;
        this.op = op;
        this.root = root;
        this.p2p = null;
    }

    /**
     * A point-to-point call: sends and receives, added to {@code ops} until the call is submitted.
     *
     * @param communicator the rank.
     * @param ops          the sends and receives.
     * @param stream       the caller's stream.
     */
    Call(final LocalCommunicator communicator, final P2pOps ops, final io.jccl.Stream stream)
    {
        this.communicator = communicator;
        this.collective = null;
        this.send = null;
        this.recv = null;
        this.count = 0;
        this.type = null;
        this.op = null;
        this.root = -1;
        this.inPlace = false;
        this.stream = stream;
        this.p2p = ops;
    }

    LocalCommunicator communicator()
    {
        return communicator;
    }

    /** @return a call that is never run: the first sentinel of a {@link CallQueue}. */
    static Call sentinel()
    {
        return new Call(null, null, null, null, 0, null, null, -1, false, null);
    }

    void submitted()
    {
        this.shape = p2p != null ? 0 : shapeHash(collective, type, op, count, root);
        // the queue's append publishes the call: no fence needed here
        STATE.setRelease(this, SUBMITTED);
    }

    /** @return a hash of what must agree across ranks for a call: collective, type, op, count, root. */
    static long shapeHash(final Collective collective, final DataType type, final ReduceOp op, final long count,
        final int root)
    {
        long h = collective.id();
        h = h * 1_000_003 + type.id();
        h = h * 1_000_003 + (op == null ? -1 : op.kind().id());
        h = h * 1_000_003 + (op == null ? 0 : Double.doubleToLongBits(op.scalar()));
        h = h * 1_000_003 + count;
        return h * 1_000_003 + root;
    }

    boolean isComplete()
    {
        return state == DONE;
    }

    void complete(final JcclException failure)
    {
        error = failure;
        state = DONE;
        final CompletableFuture<Void> f = future;
        if (f != null)
        {
            completeFuture(f);
        }
    }

    private void completeFuture(final CompletableFuture<Void> f)
    {
        if (error != null)
        {
            f.completeExceptionally(error);
        }
        else
        {
            f.complete(null);
        }
    }

    /** @return a short description: {@code allReduce #3 (count 1024 float sum)}. */
    String describe()
    {
        if (p2p != null)
        {
            return "send/recv #" + seq + " (" + p2p.describe() + ')';
        }
        return Names.of(collective) + " #" + seq + " (count " + count + ' ' + type.ncclTestsName() +
            (collective.isReducing() ? " " + op : "") + (collective.isRooted() ? " root " + root : "") + ')';
    }

    /** @return whether the call has completed, without driving progress (for diagnostics on any thread). */
    boolean isDoneNow()
    {
        return state == DONE;
    }

    @Override
    public boolean isDone()
    {
        if (state == DONE)
        {
            return true;
        }
        if (state == SUBMITTED)
        {
            ProgressEngine.INSTANCE.callerProgress();
        }
        return state == DONE;
    }

    @Override
    public void join()
    {
        checkSubmitted();
        ProgressEngine.INSTANCE.drive(this, false, 0);
        throwIfFailed();
    }

    @Override
    public boolean await(final long timeout, final TimeUnit unit)
    {
        checkSubmitted();
        final boolean done = ProgressEngine.INSTANCE.drive(this, true, System.nanoTime() + unit.toNanos(timeout));
        throwIfFailed();
        return done;
    }

    void boundTo(final BoundShape shape)
    {
        boundShape = shape;
    }

    /** @return what the call was bound to, or null before (claim holder only). */
    BoundShape boundShape()
    {
        return boundShape;
    }

    @Override
    public io.jccl.Plan plan()
    {
        final BoundShape shape = boundShape;
        return shape == null ? null : shape.plan;
    }

    @Override
    public String programName()
    {
        final BoundShape shape = boundShape;
        return shape == null ? null : shape.program.name();
    }

    @Override
    public JcclException error()
    {
        return state == DONE ? error : null;
    }

    @Override
    public CompletableFuture<Void> toCompletableFuture()
    {
        CompletableFuture<Void> f = future;
        if (f == null)
        {
            synchronized (this)
            {
                f = future;
                if (f == null)
                {
                    f = new CompletableFuture<>();
                    future = f;
                }
            }
            if (state == DONE)
            {
                completeFuture(f);
            }
        }
        return f;
    }

    private void checkSubmitted()
    {
        if (state == HELD)
        {
            throw new JcclInvalidUsageException(describeUnsubmitted() + " is held in a group until groupEnd(): " +
                "waiting on it (or using a blocking form) inside the group would never return");
        }
    }

    private String describeUnsubmitted()
    {
        return (p2p != null ? "send/recv" : Names.of(collective)) + " on rank " + communicator.rank();
    }

    private void throwIfFailed()
    {
        final JcclException failure = error;
        if (state == DONE && failure != null)
        {
            throw failure;
        }
    }
}
