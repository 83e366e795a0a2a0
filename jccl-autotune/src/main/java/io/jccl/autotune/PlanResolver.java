package io.jccl.autotune;

import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.schedules.Generators;
import io.jccl.schedules.msccl.MscclSchedule;
import io.jccl.schedules.msccl.ScheduleRegistry;

import java.util.function.ToIntFunction;

/**
 * DESIGN.md's precedence of plans, in one place: who decides a call shape, and the plan it runs.
 * <ol>
 *     <li>A pinned algorithm ({@code JCCL_ALGO}): the table or the cost model choose under the pins, and neither a
 *     schedule nor the online tuner is asked.</li>
 *     <li>A registered schedule that serves the call: its program, under a plan that names it.</li>
 *     <li>A line of the tuner table that matches (used when the pins allow its plan, else the cost model's).</li>
 *     <li>The online tuner, when it is on: the caller asks it call by call ({@link Source#ONLINE}).</li>
 *     <li>The cost model.</li>
 * </ol>
 * Every plan leaves as it runs ({@link #runnable}): the algorithm that runs for the collective, the chunk at most one
 * FIFO slot; on a GPU, the knobs no setting pins follow the device ({@link DeviceCostModel}). Each rank resolves the
 * same shapes the same way: its inputs are the settings the ranks compared at creation. Immutable; thread-safe.
 */
public final class PlanResolver
{
    /** Who decided a call shape's plan. */
    public enum Source
    {
        /** A pinned algorithm, with the table or the cost model choosing the rest under the pins. */
        PIN,
        /** A registered schedule. */
        SCHEDULE,
        /** A line of the tuner table. */
        TABLE,
        /** The online tuner, call by call. */
        ONLINE,
        /** The cost model. */
        MODEL
    }

    /**
     * What decides a call shape.
     *
     * @param source   who decided.
     * @param plan     the plan as it runs; null for {@link Source#ONLINE}, whose plans come call by call.
     * @param schedule the schedule that runs, for {@link Source#SCHEDULE}; else null.
     */
    public record Resolution(Source source, Plan plan, MscclSchedule schedule)
    {
    }

    private final TunerChain chain;
    private final ScheduleRegistry schedules;
    private final boolean online;
    private final DeviceCostModel device;
    private final int scheduleChunkBytes;
    private final ToIntFunction<Protocol> slotLength;

    /**
     * @param chain              the pins, the tuner table and the cost model.
     * @param schedules          the registered schedules.
     * @param online             whether the online tuner decides what nothing above it decides.
     * @param device             what the rank's GPU changes in a plan, or null on the host backend.
     * @param scheduleChunkBytes the chunk a schedule runs with ({@code JCCL_CHUNK_SIZE} or its default), capped at a
     *                           slot.
     * @param slotLength         a FIFO slot's payload per protocol, in bytes: the largest chunk.
     * @throws JcclInvalidArgumentException if chain, schedules or slotLength is null.
     */
    public PlanResolver(final TunerChain chain, final ScheduleRegistry schedules, final boolean online,
        final DeviceCostModel device, final int scheduleChunkBytes, final ToIntFunction<Protocol> slotLength)
    {
        if (chain == null || schedules == null || slotLength == null)
        {
            throw new JcclInvalidArgumentException("chain, schedules and slotLength must not be null");
        }
        this.chain = chain;
        this.schedules = schedules;
        this.online = online;
        this.device = device;
        this.scheduleChunkBytes = scheduleChunkBytes;
        this.slotLength = slotLength;
    }

    /**
     * @param request the call shape.
     * @param inPlace whether the call is in place (schedules serve one placement or both).
     * @param count   the call's count, in elements (schedules need it to divide into their chunks).
     * @return who decides the shape, and its plan unless the online tuner decides.
     */
    public Resolution resolve(final PlanRequest request, final boolean inPlace, final long count)
    {
        final PlanConstraints constraints = chain.constraints();
        final boolean pinned = constraints.algoSpec() != null;
        final boolean tableLine = chain.table() != null && chain.table().lookup(request) != null;
        if (!pinned)
        {
            final MscclSchedule schedule = schedules.select(request.collective(), request.ranks(), inPlace, count,
                request.type().byteSize());
            if (schedule != null)
            {
                return new Resolution(Source.SCHEDULE, schedulePlan(schedule), schedule);
            }
            if (online && !tableLine)
            {
                return new Resolution(Source.ONLINE, null, null);
            }
        }
        final Plan chosen = runnable(chain.choose(request), request.collective());
        final Plan plan = device == null ? chosen : device.shape(chosen, request.bytes(), constraints);
        final Source source = pinned ? Source.PIN : tableLine && constraints.allows(request.collective(),
            chain.table().lookup(request)) ? Source.TABLE : Source.MODEL;
        return new Resolution(source, plan, null);
    }

    /**
     * @param chosen     a tuner's plan.
     * @param collective the call's collective.
     * @return the plan as it runs: the algorithm that runs for the collective ({@link Generators#effective}), the
     *         chunk capped to one FIFO slot.
     */
    public Plan runnable(final Plan chosen, final Collective collective)
    {
        final int chunkBytes = Math.min(chosen.chunkBytes(), slotLength.applyAsInt(chosen.protocol()));
        return new Plan(Generators.effective(chosen.algorithm(), collective), chosen.protocol(),
            chosen.transport(), chosen.channels(), chosen.threads(), chunkBytes);
    }

    /**
     * @param request the call shape.
     * @return which tuner decides it and why, then the cost model's table for it (for {@code JCCL_DEBUG=INFO}).
     */
    public String explain(final PlanRequest request)
    {
        return chain.explain(request) + "\n" + chain.model().describe(request);
    }

    /** @return the pins, the table and the cost model. */
    public TunerChain chain()
    {
        return chain;
    }

    /** The plan a schedule runs under: the file's protocol and channels, named after it. */
    private Plan schedulePlan(final MscclSchedule schedule)
    {
        final TransportKind transport = chain.constraints().transport();
        return Plan.ofSchedule(schedule.protocol(), transport == null ? TransportKind.P2P : transport,
            Math.max(1, schedule.program().channels()), PinnedTuner.HOST_THREADS,
            Math.min(scheduleChunkBytes, slotLength.applyAsInt(schedule.protocol())), schedule.name());
    }
}
