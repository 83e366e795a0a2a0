package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.BufferRegistration;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclAbortedException;
import io.jccl.JcclException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.kernels.HostReducer;
import io.jccl.transport.ConnectorCounters;
import org.agrona.BufferUtil;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A rank in this process. Calls are validated on the caller's thread, queued, and run in order by whichever
 * thread drives the {@link ProgressEngine}; the rank is advanced by one thread at a time (a try-claim). Its
 * {@link CallBinder} binds each call to an executor; this class runs them, lets later calls run ahead of the oldest,
 * and completes them.
 * <p>
 * Over 600 lines on purpose: running ahead needs the queue, the call numbering and the failure state this class owns;
 * in a class of its own it would call back into this one on the hot path. What is not that already lives elsewhere:
 * argument checks in {@link CallValidator}, send/recv and the collectives built on them in {@link PointToPoint},
 * binding in {@link CallBinder}; the methods here only hand over to them.
 */
final class LocalCommunicator implements Communicator
{
    /** See {@link #expired(Call)}: a power of two. */
    private static final int STALLS_PER_CLOCK_READ = 32;
    /** Calls that may run ahead of the oldest unfinished call of a rank (see {@link #runAhead(Call)}). */
    private static final int AHEAD_CALLS = 1;
    private static final int INPUT_BIT = 1 << io.jccl.schedules.BufferKind.INPUT.ordinal();
    private static final int OUTPUT_BIT = 1 << io.jccl.schedules.BufferKind.OUTPUT.ordinal();

    private final CommGroup group;
    private final int rank;
    private final CallQueue queue = new CallQueue();
    private final AtomicBoolean claim = new AtomicBoolean();
    /** This rank's share of the group's connector counters. */
    private final ConnectorCounters counters;
    /** Binds the calls to executors, per shape and per call, and owns what that makes. */
    private final CallBinder binder;
    private long nextSeq;
    /** The number of this rank's next send/recv call. */
    private long p2pSeq;
    /**
     * The newest call that ran ahead as far as it can before it is the oldest (its sends done, its other steps
     * waiting on receives or earlier calls), and a call that may not run ahead: {@link #runAhead} starts after them.
     */
    private Call settled;
    private Call refused;
    /** Calls bound while an earlier one had not finished (for tests). */
    private long callsRunAhead;
    /**
     * On the tuner's leader: when a tuned call completed in the current pass of {@link #advanceClaimed()}, else 0.
     * The next call, bound in the same pass, starts its sample there: one clock read a call, not two (a read takes
     * about 30 ns here, an eighth of a queued 8-byte call).
     */
    private long passCompletedNs;
    /** Splits this rank has asked for: the n-th split of every rank meets the n-th of the others. */
    private long splits;
    private volatile boolean closed;
    /**
     * Calls submitted, counted by the submitting threads without a lock (calls of one rank come from one thread at a
     * time, as NCCL asks; threads that race only make the bound of {@link Context#maxQueuedCalls()} looser).
     */
    private long submits;
    /**
     * The count of {@link #completions} a submitter read last (submitters only): completions only grow, so while
     * {@code submits - completionsSeen} is within the bound the queue is too, and a submitter need not read the counter
     * the claim holder writes on every call, from another core where the agent or a peer's waiter runs the calls.
     */
    private long completionsSeen;
    /**
     * True while a submitter of this rank waits for room in its queue ({@link #waitForRoom}), for the message of a
     * timeout meanwhile ({@link WhoIsBehind#withRoomWait}).
     */
    private volatile boolean waitingForRoom;
    /** {@link Context#maxQueuedCalls()}. */
    private final long maxQueued;
    /** How a submitter waits past {@link #maxQueued} (one thread submits at a time, as for {@link #submits}). */
    private final IdleWait submitWait = new IdleWait(IdleWait.CALLERS);
    /** Calls finished: written by the thread holding the claim, read by submitters. */
    private final java.util.concurrent.atomic.AtomicLong completions = new java.util.concurrent.atomic.AtomicLong();
    /** This rank's slot on the group's {@link Standings} board: written only by the thread holding the claim. */
    private final org.agrona.concurrent.UnsafeBuffer standing;
    /** This rank's last calls, written out when a timeout breaks the communicator. */
    final FlightRecord flight = new FlightRecord();

    LocalCommunicator(final CommGroup group, final int rank)
    {
        this.group = group;
        this.rank = rank;
        this.binder = new CallBinder(this, group, rank);
        this.counters = group.transport.counters().newPart();
        this.maxQueued = group.context.maxQueuedCalls();
        this.standing = group.standings.slot(rank);
    }

    @Override
    public int rank()
    {
        return rank;
    }

    @Override
    public int size()
    {
        return group.size();
    }

    @Override
    public Work allReduce(final Buffer send, final Buffer recv, final long count, final DataType type,
        final ReduceOp op, final Stream stream)
    {
        return call(Collective.ALL_REDUCE, send, recv, count, type, op, -1, stream);
    }

    @Override
    public Work allGather(final Buffer send, final Buffer recv, final long sendCount, final DataType type,
        final Stream stream)
    {
        return call(Collective.ALL_GATHER, send, recv, sendCount, type, null, -1, stream);
    }

    @Override
    public Work reduceScatter(final Buffer send, final Buffer recv, final long recvCount, final DataType type,
        final ReduceOp op, final Stream stream)
    {
        return call(Collective.REDUCE_SCATTER, send, recv, recvCount, type, op, -1, stream);
    }

    @Override
    public Work allToAll(final Buffer send, final Buffer recv, final long count, final DataType type,
        final Stream stream)
    {
        return call(Collective.ALL_TO_ALL, send, recv, count, type, null, -1, stream);
    }

    @Override
    public Work broadcast(final Buffer send, final Buffer recv, final long count, final DataType type,
        final int root, final Stream stream)
    {
        return call(Collective.BROADCAST, send, recv, count, type, null, root, stream);
    }

    @Override
    public Work reduce(final Buffer send, final Buffer recv, final long count, final DataType type,
        final ReduceOp op, final int root, final Stream stream)
    {
        return call(Collective.REDUCE, send, recv, count, type, op, root, stream);
    }

    @Override
    public Work send(final Buffer buffer, final long count, final DataType type, final int peer, final Stream stream)
    {
        return PointToPoint.send(this, buffer, count, type, peer, stream);
    }

    @Override
    public Work recv(final Buffer buffer, final long count, final DataType type, final int peer, final Stream stream)
    {
        return PointToPoint.recv(this, buffer, count, type, peer, stream);
    }

    @Override
    public Work allToAllv(final Buffer send, final long[] sendCounts, final long[] sendDispls, final Buffer recv,
        final long[] recvCounts, final long[] recvDispls, final DataType type, final Stream stream)
    {
        return PointToPoint.allToAllv(this, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, type, stream);
    }

    @Override
    public Work gather(final Buffer send, final Buffer recv, final long count, final DataType type, final int root,
        final Stream stream)
    {
        return PointToPoint.gather(this, send, recv, count, type, root, stream);
    }

    @Override
    public Work scatter(final Buffer send, final Buffer recv, final long count, final DataType type, final int root,
        final Stream stream)
    {
        return PointToPoint.scatter(this, send, recv, count, type, root, stream);
    }

    private Work call(final Collective collective, final Buffer send, final Buffer recv, final long count,
        final DataType type, final ReduceOp op, final int root, final Stream stream)
    {
        checkUsable();
        CallValidator.validate(collective, send, recv, count, type, op, root, stream, rank, size(),
            group.cuda == null ? null : group.cuda.device(rank));
        if (group.cuda != null)
        {
            group.cuda.checkNotCapturing(stream, Names.of(collective));
            group.cuda.checkContext(rank, send, "send", Names.of(collective));
            group.cuda.checkContext(rank, recv, "recv", Names.of(collective));
        }
        final Call call = new Call(this, collective, send, recv, count, type, op, root,
            CallValidator.isInPlace(collective, send, recv, count, type, rank), stream);
        if (!Group.hold(call))
        {
            submit(call);
        }
        return call;
    }

    void checkUsable()
    {
        if (closed)
        {
            throw new JcclInvalidUsageException("communicator of rank " + rank + " is closed");
        }
        final JcclException broken = group.failure();
        if (broken != null)
        {
            throw new JcclInvalidUsageException("communicator of rank " + rank + " is broken by an earlier " +
                "error (abort it and create a new one): " + broken.getMessage(), broken);
        }
    }

    /**
     * Ends a call that broke the communicator (a timeout, a disagreement between ranks, a plan no connector serves):
     * the group fails first, so every other local rank's pending and later calls end at once with this cause rather
     * than each waiting out a deadline of its own, and the close that follows removes the communicator's files.
     */
    private void failGroup(final Call call, final JcclException error)
    {
        group.failHere(error);
        finish(call, error);
    }

    /**
     * @return the error a call ends with when an earlier failure broke the communicator: the abort itself, else the
     *         first cause wrapped so that it names this call and rank; a timeout stays a timeout.
     */
    private JcclException brokenCall(final Call call, final JcclException broken)
    {
        if (broken instanceof JcclAbortedException)
        {
            return broken;
        }
        final String message = call.describe() + " on rank " + rank + " failed: " + broken.getMessage();
        return broken instanceof io.jccl.JcclTimeoutException ? new io.jccl.JcclTimeoutException(message, broken) :
            new io.jccl.JcclRemoteException(message, broken);
    }

    void submit(final Call call)
    {
        enqueue(call);
        waitForRoom();
    }

    /** Queues a call without waiting for room: a group queues all its calls first ({@link Group#end()}). */
    void enqueue(final Call call)
    {
        checkUsable();
        call.submitted();
        queue.add(call);
        submits++;
    }

    /**
     * Runs calls while more than {@link Context#maxQueuedCalls()} are queued. A group waits only once all its calls
     * are queued: a group of more calls per rank than the bound, waiting after its first rank's, would wait for
     * calls of the other ranks it had not queued yet.
     */
    void waitForRoom()
    {
        if (submits - completionsSeen > maxQueued)
        {
            completionsSeen = completions.get();
            if (submits - completionsSeen > maxQueued)
            {
                waitingForRoom = true;
                try
                {
                    ProgressEngine.INSTANCE.drain(this, submitWait);
                }
                finally
                {
                    waitingForRoom = false;
                }
            }
        }
    }

    /** @return true while a submitter of this rank waits for room in its queue. */
    boolean waitingForRoom()
    {
        return waitingForRoom;
    }

    /** @return the calls submitted and not finished yet, what {@link Context#maxQueuedCalls()} bounds. */
    long queuedCalls()
    {
        return submits - completions.get();
    }

    /** @return true once {@link Context#maxQueuedCalls()} calls or fewer are queued, or the rank is closed. */
    boolean drained()
    {
        return queuedCalls() <= maxQueued || closed;
    }

    /** @param error breaks this rank's group, found here: its pending and later calls fail with it, and peers'. */
    void fail(final JcclException error)
    {
        group.failHere(error);
    }

    boolean hasQueued()
    {
        return !queue.isEmpty();
    }

    /**
     * Advances this rank's calls in order, if no other thread is doing so.
     *
     * @return the work done.
     */
    int advance()
    {
        if (queue.isEmpty() || !claim.compareAndSet(false, true))
        {
            return 0;
        }
        try
        {
            return advanceClaimed();
        }
        finally
        {
            // a release store: the next claimer's CAS sees everything this thread wrote
            claim.setRelease(false);
        }
    }

    private int advanceClaimed()
    {
        passCompletedNs = 0;
        int work = 0;
        Call call;
        while ((call = queue.peek()) != null)
        {
            if (call.seq < 0)
            {
                // numbered in queue order by the one thread that runs them; a send/recv call, which only some ranks
                // make, has numbers of its own and stays off the standings board, where ranks compare collectives
                if (call.p2p != null)
                {
                    call.seq = p2pSeq++;
                }
                else
                {
                    call.seq = nextSeq++;
                    Standings.started(standing, call.seq);
                }
                flight.add(call);
            }
            final JcclException broken = group.failure();
            if (broken != null)
            {
                finish(call, brokenCall(call, broken));
                work++;
                continue;
            }
            try
            {
                if (call.execution instanceof RankExecution host && host.caughtUp() && call.task != null && rank == 0)
                {
                    // a call that ran ahead: a tuned call's sample is its time as the oldest; with the samples of the
                    // calls before it (each of which paid for binding this one), they add up to the leader's time
                    call.boundNs = sampleStartNs();
                }
                if (!call.bound)
                {
                    if (!binder.bind(call))
                    {
                        // the online tuner has not published the round of this call yet
                        if (expired(call))
                        {
                            final JcclException timeout = new io.jccl.JcclTimeoutException(call.describe() +
                                " on rank " + rank + " timed out after " + group.context.timeoutMs() + " ms waiting " +
                                "for the online tuner's next plan (rank 0 publishes it as its calls complete)");
                            failGroup(call, timeout);
                            work++;
                            continue;
                        }
                        break;
                    }
                    work++;
                }
                final int done = call.execution == null ? 0 : call.execution.doWork();
                work += done;
                if (call.execution == null || call.execution.isComplete())
                {
                    completeSuccessfully(call);
                    work++;
                    continue;
                }
                if (done == 0 && expired(call))
                {
                    // read before timeout(), which stops a kernel
                    final int peer = call.execution.waitsOn();
                    final io.jccl.JcclTimeoutException timeout = call.execution.timeout(group.context.timeoutMs());
                    failGroup(call, WhoIsBehind.withRoomWait(group.rankWaitingForRoom(), maxQueued,
                        call.p2p != null ? timeout :
                            WhoIsBehind.named(group.standings, rank, call, peer, timeout, group.context.timeoutMs())));
                    work++;
                    continue;
                }
                work += runAhead(call);
            }
            catch (final JcclException ex)
            {
                failGroup(call, ex);
                work++;
                continue;
            }
            catch (final RuntimeException ex)
            {
                // a plan no connector can serve (say a table's transport=net on one host) fails the call, never
                // the thread that happened to drive progress, and never completes it as if it had run
                final JcclException failure = new io.jccl.JcclInvalidUsageException(call.describe() + " on rank " +
                    rank + " cannot run: " + ex.getMessage(), ex);
                failGroup(call, failure);
                work++;
                continue;
            }
            break;
        }
        return work;
    }

    private void finish(final Call call, final JcclException error)
    {
        queue.remove();
        if (call.p2p == null)
        {
            if (error == null)
            {
                Standings.completed(standing, call.seq);
            }
            else
            {
                Standings.failed(standing, call.seq);
            }
        }
        completions.lazySet(completions.get() + 1);
        if (error != null && call.execution != null)
        {
            call.execution.abandon();
        }
        if (error != null && call.task != null && rank == 0)
        {
            group.online.failed(call.task, call.taskIndex, call.tunedPlan, error.getMessage());
            if (group.tunerNotices != null)
            {
                group.tunerNotices.failed(call.task, call.request, call.taskIndex, call.tunedPlan,
                    error.getMessage());
            }
            if (group.trace != null)
            {
                group.trace = OnlineTuning.trace(group.trace, call.task, call.taskIndex, call.tunedPlan,
                    System.nanoTime() - call.boundNs, "failed");
            }
        }
        call.complete(error);
    }

    private void completeSuccessfully(final Call call)
    {
        if (call.task != null && rank == 0)
        {
            final long now = System.nanoTime();
            passCompletedNs = now;
            final long nanos = now - call.boundNs;
            final int allowed = call.boundShape().online.tuning().record(call.taskIndex, call.tunedPlan, nanos);
            if (group.tunerNotices != null)
            {
                // the other processes' tuners take the same records and publish the same rounds
                group.tunerNotices.record(call.task, call.request, call.taskIndex, call.tunedPlan, nanos, allowed);
            }
            if (group.trace != null)
            {
                group.trace = OnlineTuning.trace(group.trace, call.task, call.taskIndex, call.tunedPlan, nanos, "ok");
            }
        }
        if (call.execution != null)
        {
            counters.add(call.execution.protocol(), call.execution.transport(),
                call.execution.slotsSent(), call.execution.bytesStaged(), call.execution.bytesDirect(),
                call.execution.channels());
            if (!call.execution.dividesAverage() && call.op != null && call.op.kind() == ReduceOp.Kind.AVG &&
                !call.type.isFloatingPoint() &&
                call.recv != null && (call.collective != Collective.REDUCE || call.root == rank))
            {
                HostReducer.of(call.type, ReduceOp.Kind.SUM, 0).divide(address(call.recv), call.count, size());
            }
        }
        finish(call, null);
    }

    /**
     * Called when a call could not move: the clock (about 30 ns a read here) is read on one stall in {@value
     * #STALLS_PER_CLOCK_READ}, first on stall number {@value #STALLS_PER_CLOCK_READ}, where the deadline starts. So a
     * call that waits a few polls for its peer, as most small calls do, never reads it (an 8-byte call takes about
     * 0.2 us, and a read on its first stall was a sixth of that), and a polling loop stays short; the deadline and the
     * standing's wait stamp are late by at most that many polls.
     *
     * @return true once the call has waited longer than the context's timeout.
     */
    private boolean expired(final Call call)
    {
        if ((++call.stalls & (STALLS_PER_CLOCK_READ - 1)) != 0)
        {
            return false;
        }
        final long now = System.nanoTime();
        Standings.waiting(standing, call.seq, call.bound && call.execution != null ? call.execution.waitsOn() : -1,
            now);
        if (call.deadlineNs == 0)
        {
            call.deadlineNs = now + TimeUnit.MILLISECONDS.toNanos(group.context.timeoutMs());
            return false;
        }
        return now - call.deadlineNs > 0;
    }

    /**
     * Runs the calls queued after {@code head}, the oldest unfinished call, as far as they can go without it: a
     * call's steps that receive nothing and touch no memory an earlier unfinished call uses ({@link
     * RankExecution#runAhead}). A call may start only once every earlier unfinished call has sent all it sends, so
     * each connection carries the calls' slots in call order. Back-to-back calls so overlap one call's message
     * latency with the next call's sends, where a blocking loop pays it on every call; results and completion order
     * are those of calls run one at a time. Host executors only; a call the online tuner decides runs ahead only
     * under the plan its shape is bound to.
     *
     * @return the work done.
     */
    private int runAhead(final Call head)
    {
        if (!(head.execution instanceof RankExecution oldest) || !oldest.sendsDone())
        {
            return 0;
        }
        int work = 0;
        Call last = settled != null && settled.seq > head.seq ? settled : head;
        while (true)
        {
            final Call next = queue.after(last);
            if (next == null || next == refused || next.p2p != null)
            {
                // a send/recv call runs when it is the oldest
                break;
            }
            if (next.seq < 0)
            {
                next.seq = nextSeq++;
            }
            if (next.seq - head.seq > AHEAD_CALLS)
            {
                break;
            }
            if (!next.bound)
            {
                if (!bindAhead(head, next))
                {
                    refused = next;
                    break;
                }
                work++;
            }
            final RankExecution execution = (RankExecution)next.execution;
            for (int done = execution.doWork(); done > 0; done = execution.doWork())
            {
                work += done;
            }
            if (!execution.sendsDone())
            {
                break;
            }
            settled = next;
            last = next;
        }
        return work;
    }

    /**
     * Binds a call behind the unfinished calls from {@code head} on, to run ahead of them; only a shape this rank has
     * bound before, on the host, whose scratch fits the scratch in use, and for a shape the online tuner decides, only
     * under the published plan the shape is bound to ({@link CallBinder#boundAhead}).
     *
     * @return false when the call must wait until it is the oldest.
     */
    private boolean bindAhead(final Call head, final Call call)
    {
        final BoundShape known = call.count == 0 || group.failure() != null ? null : binder.boundAhead(call);
        if (known == null)
        {
            return false;
        }
        final int size = call.type.byteSize();
        final long in = address(call.send);
        final long inBytes = known.inputElements * size;
        final long out = address(call.recv);
        final long outBytes = known.outputElements * size;
        int readable = INPUT_BIT | OUTPUT_BIT;
        int writable = INPUT_BIT | OUTPUT_BIT;
        for (Call c = head; c != call; c = queue.after(c))
        {
            final BoundShape b = c.boundShape();
            final long cIn = address(c.send);
            final long cInBytes = b.inputElements * c.type.byteSize();
            final long cOut = address(c.recv);
            final long cOutBytes = b.outputElements * c.type.byteSize();
            final boolean cWritesIn = ((RankExecution)c.execution).writesInput();
            // what the earlier call writes is neither read nor written; what it reads is not written
            if (overlaps(in, inBytes, cOut, cOutBytes) || cWritesIn && overlaps(in, inBytes, cIn, cInBytes))
            {
                readable &= ~INPUT_BIT;
            }
            if (overlaps(out, outBytes, cOut, cOutBytes) || cWritesIn && overlaps(out, outBytes, cIn, cInBytes))
            {
                readable &= ~OUTPUT_BIT;
            }
            if ((readable & INPUT_BIT) == 0 || overlaps(in, inBytes, cIn, cInBytes))
            {
                writable &= ~INPUT_BIT;
            }
            if ((readable & OUTPUT_BIT) == 0 || overlaps(out, outBytes, cIn, cInBytes))
            {
                writable &= ~OUTPUT_BIT;
            }
        }
        binder.bindAhead(call, known);
        callsRunAhead++;
        ((RankExecution)call.execution).runAhead(readable, writable);
        return true;
    }

    /** @return where a tuned call's sample starts on the leader: see {@link #passCompletedNs}. */
    long sampleStartNs()
    {
        return passCompletedNs != 0 ? passCompletedNs : System.nanoTime();
    }

    private static boolean overlaps(final long a, final long aBytes, final long b, final long bBytes)
    {
        return a != 0 && b != 0 && aBytes > 0 && bBytes > 0 && a < b + bBytes && b < a + aBytes;
    }

    static long address(final Buffer buffer)
    {
        if (buffer == null)
        {
            return 0;
        }
        if (buffer instanceof io.jccl.DeviceBuffer device)
        {
            return device.address();
        }
        final HostBuffer host = (HostBuffer)buffer;
        return BufferUtil.address(host.byteBuffer()) + host.offset();
    }

    /** @return this rank's group (tests reach its device FIFOs through it). */
    CommGroup group()
    {
        return group;
    }

    /** @return the settings of this rank's group. */
    Context context()
    {
        return group.context;
    }

    /** @return the CUDA device of this rank, or -1 on the host backend. */
    int cudaDevice()
    {
        return group.cuda == null ? -1 : group.cuda.device(rank);
    }

    /** @return the group's online tuner, or null. */
    io.jccl.autotune.OnlineTuner onlineTuner()
    {
        return group.online;
    }

    /** @return what the connectors of this rank's group did (for tests and diagnostics). */
    ConnectorCounters counters()
    {
        return group.transport.counters();
    }

    /** @return how many calls of this rank were bound while an earlier one had not finished (for tests). */
    long callsRunAhead()
    {
        return callsRunAhead;
    }

    /** @return the name of the Program that ran this rank's latest bound call (for tests), or null. */
    String lastProgramName()
    {
        return binder.lastProgramName();
    }

    /**
     * Says whether the other ranks read the buffer in place: every host buffer when all ranks live in this
     * process; across processes, buffers in jccl's shared memory ({@link Jccl#allocate(long)}). Nothing else is
     * needed for that, so the registration changes no transfer.
     */
    @Override
    public BufferRegistration register(final Buffer buffer)
    {
        checkUsable();
        if (buffer == null)
        {
            throw new io.jccl.JcclInvalidArgumentException("buffer is null");
        }
        final boolean inPlace = buffer instanceof HostBuffer host &&
            group.transport.inPlaceReads().readable(address(host), host.length());
        return new BufferRegistration(buffer, inPlace);
    }

    @Override
    public Communicator split(final int color, final int key)
    {
        if (color < 0 && color != SPLIT_NOCOLOR)
        {
            throw new io.jccl.JcclInvalidArgumentException("color=" + color + " must be 0 or more, or SPLIT_NOCOLOR (" +
                SPLIT_NOCOLOR + ")");
        }
        if (closed)
        {
            throw new io.jccl.JcclInvalidUsageException("split on a closed communicator (rank " + rank + ")");
        }
        return group.splitter.split(rank, splits++, color, key);
    }

    @Override
    public void abort()
    {
        group.fail(new JcclAbortedException("communicator aborted by rank " + rank));
        group.abortPeers();
        ProgressEngine.INSTANCE.callerProgress();
    }

    /** @return the CUDA driver of this rank's communicator, or null on the host backend. */
    io.jccl.kernels.cuda.CudaApi cudaApi()
    {
        return group.cuda == null ? null : group.cuda.api();
    }

    @Override
    public JcclException asyncError()
    {
        return group.failure();
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        Call last;
        while ((last = queue.last()) != null)
        {
            try
            {
                last.join();
            }
            catch (final JcclException ignored)
            {
                // the error was reported to the call's owner; closing goes on
            }
        }
        CallerContext.keep(cudaApi(), () ->
        {
            group.closed(this);
            while (!claim.compareAndSet(false, true))
            {
                Thread.yield();
            }
            binder.close();
            return null;
        });
    }

    @Override
    public String toString()
    {
        return "Communicator{rank=" + rank + ", size=" + size() + '}';
    }
}
