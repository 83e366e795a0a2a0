package io.jccl.core;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import io.jccl.ReduceOp;
import io.jccl.kernels.HostReducer;
import io.jccl.schedules.Program;

import java.util.Objects;

/**
 * What a rank decided for one call shape (collective, type, op, count, root, in place): the plan, the Program, the executor
 * and the arithmetic. Cached per communicator so that a repeated call binds without allocating or deciding again;
 * the plan is the tuner's answer for the shape, fixed while the tuner's answer is.
 */
final class BoundShape
{
    final Collective collective;
    final DataType type;
    final ReduceOp op;
    final long count;
    final int root;
    final boolean inPlace;
    final Plan plan;
    final long planHash;
    final Program program;
    final Execution execution;
    final HostReducer reducer;
    final boolean premul;
    final long inputElements;
    final long outputElements;
    /** Scratch bytes a call of the shape needs ({@link Program#scratchElements} divides: once per shape). */
    final long scratchBytes;
    /** The online tuner's part in the shape ({@link CallBinder.OnlineTask#NONE} when it does not decide it). */
    final CallBinder.OnlineTask online;
    /** The online tuner's plan that {@link #plan} is the runnable form of, or null when the tuner did not choose it. */
    final Plan tunedFrom;

    BoundShape(final Call call, final Plan plan, final Program program, final Execution execution,
        final HostReducer reducer, final boolean premul, final long inputElements, final long outputElements,
        final CallBinder.OnlineTask online, final Plan tunedFrom)
    {
        this.collective = call.collective;
        this.type = call.type;
        this.op = call.op;
        this.count = call.count;
        this.root = call.root;
        this.inPlace = call.inPlace;
        this.plan = plan;
        this.planHash = plan.stableHash();
        this.program = program;
        this.execution = execution;
        this.reducer = reducer;
        this.premul = premul;
        this.inputElements = inputElements;
        this.outputElements = outputElements;
        this.scratchBytes = program.scratchElements(inputElements) * call.type.byteSize();
        this.online = online;
        this.tunedFrom = tunedFrom;
    }

    /** @return true when the call has exactly this shape (the shape hash alone could collide). */
    boolean matches(final Call call)
    {
        return call.collective == collective && call.type == type && call.count == count && call.root == root &&
            call.inPlace == inPlace &&
            Objects.equals(call.op, op);
    }
}
