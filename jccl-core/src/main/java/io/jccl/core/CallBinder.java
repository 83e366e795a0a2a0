package io.jccl.core;

import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.TransportKind;
import io.jccl.autotune.PlanRequest;
import io.jccl.autotune.PlanResolver;
import io.jccl.kernels.HostDevice;
import io.jccl.kernels.HostReducer;
import io.jccl.schedules.Program;
import io.jccl.schedules.msccl.MscclSchedule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;

/**
 * Binds the calls of one rank to executors. Per call shape (collective, type, op, count, root, in place or not), once:
 * the plan (the online tuner's, else whoever the {@link PlanResolver} says decides the shape), the Program, the
 * executor of its protocol and transport, the reducer and the element counts, kept as a {@link BoundShape}. Per call:
 * an idle executor of the shape bound to the call's buffers and to the scratch. It owns what binding makes (the
 * executors, the scratch memory, the rank's CUDA stream) until {@link #close()}.
 * <p>
 * Made once with its {@link LocalCommunicator} and used only by it, by the thread holding the rank's claim (close
 * takes the claim first): nothing here is shared between threads.
 */
final class CallBinder
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");

    private final LocalCommunicator communicator;
    private final CommGroup group;
    private final int rank;
    /** Executors per (program, protocol, transport): each holds its connectors, framed and placed accordingly. */
    private final Map<Program, Execution[]> executions = new HashMap<>();
    private final Map<Long, BoundShape> boundShapes = new HashMap<>();
    /** Who decides each call shape's plan, and the plan (DESIGN.md's precedence). */
    private final PlanResolver resolver;
    /** With online tuning: how many calls of each task this rank has bound (the index every rank agrees on). */
    private final Map<io.jccl.autotune.TaskKey, long[]> taskCalls = new HashMap<>();
    private BoundShape lastBound;
    private long scratchAddress;
    private long scratchLength;
    /** The executor of this rank's send/recv calls, made on the first. */
    private P2pExecution p2p;
    /** This rank's CUDA stream ({@link #cudaStream()}), 0 until its first CUDA program. */
    private long cudaStream;

    /**
     * @param communicator the rank, where a tuned call's sample starts ({@link LocalCommunicator#sampleStartNs()}).
     * @param group        the rank's group.
     * @param rank         the rank.
     */
    CallBinder(final LocalCommunicator communicator, final CommGroup group, final int rank)
    {
        this.communicator = communicator;
        this.group = group;
        this.rank = rank;
        this.resolver = group.resolver(rank);
    }

    /**
     * Binds the oldest unfinished call of the rank: its shape's binding (made on the shape's first call, or again
     * when the online tuner gives the shape another plan), then an idle executor of it to the call's buffers and
     * scratch.
     *
     * @param call the call, not bound yet.
     * @return false when the call must wait for the online tuner's next round (nothing was bound).
     */
    boolean bind(final Call call)
    {
        if (call.p2p != null)
        {
            if (p2p == null)
            {
                p2p = new P2pExecution(rank, group.size(), group.transport, group.context.constraints().chunkBytes());
            }
            call.bound = true;
            p2p.bind(call);
            call.execution = p2p;
            return true;
        }
        final BoundShape known = boundOf(call);
        Plan tuned = null;
        OnlineTask online = OnlineTask.NONE;
        if (group.online != null && call.count > 0)
        {
            // whether the online tuner decides a shape, and its task, are the same for every call of the shape: kept
            // with the shape's binding, not worked out per call (the pins' spec, a schedule and a table lookup, a task
            // key and two map lookups took about a microsecond a call)
            online = known != null ? known.online : onlineTask(call);
            if (online.task() != null)
            {
                tuned = online.tuning().planFor(online.calls()[0]);
                if (tuned == null)
                {
                    return false;
                }
                takeTaskIndex(call, online, tuned);
                // the tuner answers with the same plan object call after call: its runnable form is made once
                tuned = known != null && known.tunedFrom == tuned ? known.plan :
                    resolver.runnable(tuned, call.collective);
            }
        }
        call.bound = true;
        if (call.task != null && rank == 0)
        {
            // the tuner's sample: from binding to completion on the leader
            call.boundNs = communicator.sampleStartNs();
        }
        if (call.count == 0)
        {
            return true;
        }
        BoundShape bound = known;
        if (bound == null || (tuned != null && tuned != bound.plan && !tuned.equals(bound.plan)))
        {
            bound = bindShape(call, tuned, online);
            boundShapes.put(shapeKey(call), bound);
        }
        final long scratchBytes = bound.execution.ownScratch() ? 0 : bound.scratchBytes;
        final long scratch = scratchBytes == 0 ? 0 : scratch(scratchBytes);
        bindExecution(call, bound, bound.execution instanceof RankExecution host ? host.idleInstance() :
            bound.execution, scratch);
        return true;
    }

    private void bindExecution(final Call call, final BoundShape bound, final Execution execution, final long scratch)
    {
        lastBound = bound;
        execution.bind(call, bound.reducer, bound.premul, LocalCommunicator.address(call.send),
            LocalCommunicator.address(call.recv), scratch, bound.inputElements, bound.outputElements,
            bound.plan.chunkBytes(), bound.planHash);
        call.execution = execution;
        call.boundTo(bound);
    }

    /**
     * @param call a call queued behind unfinished calls of the rank.
     * @return the binding the call may run ahead under ({@link #bindAhead}), or null when it must wait until it is
     *         the oldest: only a shape this rank has bound before, on the host, whose scratch fits the scratch in use,
     *         and for a shape the online tuner decides, only under the published plan the shape is bound to.
     */
    BoundShape boundAhead(final Call call)
    {
        final BoundShape known = call.p2p != null ? null : boundOf(call);
        if (known == null || !(known.execution instanceof RankExecution))
        {
            return null;
        }
        final OnlineTask online = known.online;
        final Plan tuned = online.task() == null ? null :
            online.tuning().planFor(online.calls()[0]);
        if (online.task() != null && (tuned == null || tuned != known.tunedFrom))
        {
            // the tuner has not published the call's plan yet, or gives it another plan than the shape's binding:
            // it binds when it is the oldest
            return null;
        }
        if (known.scratchBytes > scratchLength)
        {
            // growing it would free the scratch an earlier call uses
            return null;
        }
        return known;
    }

    /**
     * Binds a call to run ahead, under the binding {@link #boundAhead} gave it, to an idle host executor of the
     * shape and the scratch in use.
     *
     * @param call  the call.
     * @param known what {@link #boundAhead} returned for it.
     */
    void bindAhead(final Call call, final BoundShape known)
    {
        if (known.online.task() != null)
        {
            // its sample starts when it is the oldest (advanceClaimed); the plan is the one boundAhead checked
            takeTaskIndex(call, known.online, known.tunedFrom);
        }
        call.bound = true;
        bindExecution(call, known, ((RankExecution)known.execution).idleInstance(),
            known.scratchBytes == 0 ? 0 : scratchAddress);
    }

    /** Gives a tuned call its task and the next index of the task's calls on this rank (in call order). */
    private static void takeTaskIndex(final Call call, final OnlineTask online, final Plan tuned)
    {
        call.task = online.task();
        call.request = online.request();
        call.taskIndex = online.calls()[0]++;
        call.tunedPlan = tuned;
    }

    /** @return this rank's binding of the call's shape and placement, or null when it has none yet. */
    private BoundShape boundOf(final Call call)
    {
        final BoundShape last = lastBound;
        if (last != null && last.matches(call))
        {
            return last;
        }
        final BoundShape kept = boundShapes.get(shapeKey(call));
        return kept != null && kept.matches(call) ? kept : null;
    }

    /**
     * @return the key of {@link #boundShapes}. In place or not is the rank's own choice, outside the shape the ranks
     *         agree on, but binds otherwise: both are kept, so a job alternating them does not bind on every call.
     */
    private static long shapeKey(final Call call)
    {
        return call.shape * 2 + (call.inPlace ? 1 : 0);
    }

    /** @return whether the online tuner decides calls of this shape, and if so its task, request and call counter. */
    private OnlineTask onlineTask(final Call call)
    {
        final PlanRequest request = request(call);
        if (resolver.resolve(request, call.inPlace, call.count).source() != PlanResolver.Source.ONLINE)
        {
            return OnlineTask.NONE;
        }
        final io.jccl.autotune.TaskKey task = group.online.key(request, call.op, group.id);
        return new OnlineTask(task, request, taskCalls.computeIfAbsent(task, k -> new long[1]),
            group.online.task(task, request));
    }

    /**
     * The online tuner's part in a call shape: its task (null when the tuner does not decide the shape), the request
     * it was keyed from, how many calls of the task this rank has bound (the index every rank agrees on), and the
     * tuner's handle of the task.
     */
    record OnlineTask(io.jccl.autotune.TaskKey task, PlanRequest request, long[] calls,
        io.jccl.autotune.OnlineTuner.Task tuning)
    {
        static final OnlineTask NONE = new OnlineTask(null, null, null, null);
    }

    /**
     * @return this rank's CUDA stream, made on first use: every program of the rank launches on it, so a rank's
     *         calls run in order. Ranks of this process sharing a device start each call in one grid
     *         ({@link DeviceLaunch}) on the lowest rank's stream, so a few hardware queues
     *         (CUDA_DEVICE_MAX_CONNECTIONS) cannot put one rank's kernel behind another's.
     */
    private long cudaStream()
    {
        if (cudaStream == 0)
        {
            group.cuda.api().setDevice(group.cuda.device(rank));
            cudaStream = group.cuda.api().streamCreate();
        }
        return cudaStream;
    }

    /** Decides everything about a call shape that does not depend on its buffers: once per shape. */
    private BoundShape bindShape(final Call call, final Plan tuned, final OnlineTask online)
    {
        // the online tuner's plan, else whoever the resolver says decides the shape
        final PlanResolver.Resolution resolution = tuned != null ? null :
            resolver.resolve(request(call), call.inPlace, call.count);
        final MscclSchedule schedule = resolution == null ? null : resolution.schedule();
        final Plan plan = tuned != null ? tuned : resolution.plan();
        if (plan == null)
        {
            throw new IllegalStateException("the online tuner decides " + call + " but gave no plan");
        }
        final Program program = schedule != null ? schedule.program() : group.program(plan.algorithm(),
            call.collective, plan.channels(), call.collective.isRooted() ? call.root : -1);
        final Execution[] byConnection = executions.computeIfAbsent(program,
            p -> new Execution[Protocol.values().length * TransportKind.values().length]);
        final int connection = plan.protocol().ordinal() * TransportKind.values().length + plan.transport().ordinal();
        if (byConnection[connection] == null)
        {
            byConnection[connection] = group.cuda != null ?
                new CudaExecution(program, plan.protocol(), rank, group.cuda, cudaStream(), plan.threads()) :
                new RankExecution(program, plan.protocol(), plan.transport(), rank, group.transport,
                    group.directMinBytes);
        }
        final Execution execution = byConnection[connection];
        HostReducer reducer = null;
        boolean premul = false;
        if (call.collective.isReducing())
        {
            final ReduceOp.Kind kind = call.op.kind();
            if (kind == ReduceOp.Kind.AVG)
            {
                premul = call.type.isFloatingPoint();
                reducer = premul ? HostReducer.of(call.type, ReduceOp.Kind.PREMULSUM, 1.0 / group.size()) :
                    HostReducer.of(call.type, ReduceOp.Kind.SUM, 0);
            }
            else
            {
                premul = kind == ReduceOp.Kind.PREMULSUM;
                reducer = HostReducer.of(call.type, kind, call.op.scalar());
            }
        }
        final long inputElements = call.collective.inputCount(call.count, group.size());
        final long outputElements = call.collective.outputCount(call.count, group.size());
        if (group.context.debugInfo())
        {
            LOG.info("jccl INFO rank {} {} count {} {}{} -> plan {} ({} program{}, threads n/a on host{})", rank,
                Names.of(call.collective), call.count, call.type.ncclTestsName(), call.inPlace ? " in-place" : "",
                plan.id(), program.name(), schedule == null ? "" : " from " + schedule.source(),
                plan.protocol() == Protocol.SIMPLE && plan.transport() == TransportKind.P2P ?
                ", direct reads of peer buffers" : ", staged");
            if (rank == 0 && schedule == null)
            {
                final PlanRequest request = request(call);
                LOG.info("jccl INFO {}", resolver.explain(request));
            }
        }
        return new BoundShape(call, plan, program, execution, reducer, premul, inputElements, outputElements, online,
            tuned == null ? null : call.tunedPlan);
    }

    private PlanRequest request(final Call call)
    {
        final long bytes = call.collective.totalCount(call.count, group.size()) * call.type.byteSize();
        return new PlanRequest(call.collective, call.type, bytes, group.size(), group.hosts, 1, false);
    }

    private long scratch(final long length)
    {
        if (length > scratchLength)
        {
            HostDevice.INSTANCE.free(scratchAddress);
            scratchAddress = HostDevice.INSTANCE.allocate(length);
            scratchLength = length;
        }
        return scratchAddress;
    }

    /** @return the name of the Program that ran the rank's latest bound call, or null. */
    String lastProgramName()
    {
        final BoundShape bound = lastBound;
        return bound == null ? null : bound.program.name();
    }

    /** Frees what binding made: the scratch, the CUDA executors and the rank's CUDA stream. Holding the claim. */
    void close()
    {
        HostDevice.INSTANCE.free(scratchAddress);
        scratchAddress = 0;
        scratchLength = 0;
        for (final Execution[] byConnection : executions.values())
        {
            for (final Execution e : byConnection)
            {
                if (e instanceof CudaExecution cuda)
                {
                    cuda.close();
                }
            }
        }
        executions.clear();
        if (cudaStream != 0)
        {
            group.cuda.api().setDevice(group.cuda.device(rank));
            group.cuda.api().streamDestroy(cudaStream);
            cudaStream = 0;
        }
    }
}
