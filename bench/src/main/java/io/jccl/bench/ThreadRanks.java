package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.bench.BenchRunner.Shape;

/**
 * One bench thread's ranks of a {@link BenchRunner} run, their buffers, and the calls the thread makes on them, as
 * nccl-tests' {@code startColl} and {@code completeColl}: one call on every rank of the thread, grouped when it drives
 * more than one ({@code -g}) or the call is sends and receives, and with {@code -m} that many calls per iteration,
 * grouped. A call of several steps ({@code hypercube_perf}) is one group per step, each for every rank of the
 * thread, and its {@code -m} calls are not grouped together: a group would merge the steps, whose sends read what
 * the step before received. The table's timed loop, the {@code -w} warm-up, the JIT warm-up, the online tuner's
 * pre-tuning and the checked calls all issue their calls here, so that the code the table times is the code the
 * warm-ups had compiled.
 * <p>
 * Threading: used by its bench thread only.
 */
final class ThreadRanks
{
    private final int thread;
    private final int nGpus;
    private final BenchTool tool;
    private final BenchOptions options;
    private final CommunicatorFactory factory;
    private final BenchSync sync;
    private final long maxBytes;
    /** {@code alltoall_perf --p2p}: the all-to-all as a send and a receive per peer. */
    private final boolean p2p;
    /** The groups of one call ({@link BenchTool#steps}), each issued alone: step k+1 reads what step k received. */
    private final int steps;
    /** True when each step's calls are grouped: several ranks on this thread, or point-to-point calls. */
    private final boolean grouped;
    /** The ranks in the whole run: those of the pattern, the checks and the in-place offsets. */
    private final int[] ranks;
    private final Communicator[] comms;
    /** This thread's ranks of {@link BenchRanks#warmComms()}, or null when the warm-up runs on {@link #comms}. */
    private final Communicator[] warmComms;
    private final Stream[] streams;
    private final HostBuffer[] sendAllocs;
    private final HostBuffer[] recvAllocs;
    /** Device twins of the allocations when the ranks run on CUDA ({@code --device}), else null. */
    private final DeviceMirror mirror;
    /**
     * Per rank of this thread, its newest call not yet joined, and that call's communicator. A rank's calls
     * complete in order, and a failed call breaks its communicator so that every later call fails too: joining
     * the newest joins them all. nccl-tests holds no handle per call either; holding every handle of a row kept
     * them all alive through the collector's young pauses, and a -n 2000000 row of 8 B read 0.60 us a call where
     * -n 20000 read 0.20.
     */
    private final Work[] pending;
    private final Communicator[] pendingOn;
    /** The plan text of the latest completed call of this thread's first rank. */
    private String lastPlan = RowResult.NO_PLAN;
    /** The transport of that call's plan. */
    private String lastTransport = RowResult.NO_PLAN;

    /**
     * @param setup  the run's shared setup, its process's ranks allocated.
     * @param thread this bench thread's index in its process: it drives the local ranks {@code thread x ngpus} on.
     */
    ThreadRanks(final BenchSetup setup, final int thread)
    {
        this.thread = thread;
        this.nGpus = setup.options().nGpus();
        this.tool = setup.tool();
        this.options = setup.options();
        this.factory = setup.factory();
        this.sync = setup.sync();
        this.maxBytes = setup.maxBytes();
        this.p2p = setup.options().p2p();
        this.steps = tool.steps(setup.options().nRanks());
        this.grouped = nGpus > 1 || tool.pointToPoint(p2p);
        final BenchRanks process = setup.ranks();
        final Communicator[] processWarmComms = process.warmComms();
        this.mirror = process.mirror();
        this.ranks = new int[nGpus];
        this.comms = new Communicator[nGpus];
        this.warmComms = processWarmComms == null ? null : new Communicator[nGpus];
        this.streams = new Stream[nGpus];
        this.sendAllocs = new HostBuffer[nGpus];
        this.recvAllocs = new HostBuffer[nGpus];
        this.pending = new Work[nGpus];
        this.pendingOn = new Communicator[nGpus];
        for (int i = 0; i < nGpus; i++)
        {
            final int local = thread * nGpus + i;
            comms[i] = process.comms()[local];
            if (warmComms != null)
            {
                warmComms[i] = processWarmComms[local];
            }
            ranks[i] = comms[i].rank();
            streams[i] = process.streams()[local];
            sendAllocs[i] = process.sendAllocs()[local];
            recvAllocs[i] = process.recvAllocs()[local];
        }
    }

    /** @return this bench thread's index in its process. */
    int thread()
    {
        return thread;
    }

    /** @return the rank in the whole run of each of this thread's ranks; not to be changed. */
    int[] ranks()
    {
        return ranks;
    }

    /** @return this thread's ranks of the table; not to be changed. */
    Communicator[] comms()
    {
        return comms;
    }

    /** @return this thread's ranks of the JIT warm-up's own, or null when it runs on {@link #comms()}. */
    Communicator[] warmComms()
    {
        return warmComms;
    }

    /** @return each rank's send buffer, on the host; not to be changed. */
    HostBuffer[] sendAllocs()
    {
        return sendAllocs;
    }

    /** @return each rank's receive buffer, on the host; not to be changed. */
    HostBuffer[] recvAllocs()
    {
        return recvAllocs;
    }

    /** @return the device twins of the process's buffers, or null when the ranks do not run on CUDA. */
    DeviceMirror mirror()
    {
        return mirror;
    }

    /** @return the plan text of the latest completed call of this thread's first rank. */
    String lastPlan()
    {
        return lastPlan;
    }

    /** @return the transport of that call's plan. */
    String lastTransport()
    {
        return lastTransport;
    }

    /**
     * @param shape      the size's counts.
     * @param inPlace    true for the in-place call.
     * @param iterations the iterations whose buffers are made up front.
     * @return the buffers of this thread's ranks for each iteration of one measurement.
     */
    CallSlices slices(final Shape shape, final boolean inPlace, final int iterations)
    {
        return new CallSlices(shape, inPlace, iterations);
    }

    /**
     * Issues {@code iters} iterations of the timed loop from iteration {@code first}: {@code -a} calls each,
     * grouped when more than one, on the next slices of the buffers. The table and the JIT warm-up both run
     * calls through here, so the code the table times is the code the warm-up had compiled.
     *
     * @param onRanks this thread's ranks of the table or of the JIT warm-up.
     * @param slices  the buffers of each iteration.
     * @param type    the element type.
     * @param op      the reduction.
     * @param root    the root rank.
     * @param first   the first iteration.
     * @param iters   the iterations.
     */
    void issueCalls(final Communicator[] onRanks, final CallSlices slices, final DataType type, final ReduceOp op,
        final int root, final int first, final int iters)
    {
        final int agg = options.aggIters();
        // a call of several steps reads in each step what the step before received: grouping calls would merge them
        final boolean groupAgg = agg > 1 && steps == 1;
        for (int iter = first; iter < first + iters; iter++)
        {
            if (groupAgg)
            {
                factory.groupStart();
            }
            for (int a = 0; a < agg; a++)
            {
                startColl(onRanks, slices, type, op, root, iter * agg + a);
            }
            if (agg > 1)
            {
                if (groupAgg)
                {
                    factory.groupEnd();
                }
                blockIfAsked();
            }
        }
    }

    /**
     * Starts one call on each of this thread's ranks of the table.
     *
     * @param slices the buffers of each iteration.
     * @param type   the element type.
     * @param op     the reduction.
     * @param root   the root rank.
     * @param iter   the iteration, whose slices the call works on.
     */
    void startColl(final CallSlices slices, final DataType type, final ReduceOp op, final int root, final int iter)
    {
        startColl(comms, slices, type, op, root, iter);
    }

    private void startColl(final Communicator[] onRanks, final CallSlices slices, final DataType type,
        final ReduceOp op, final int root, final int iter)
    {
        final long count = slices.shape.counts().paramCount();
        for (int step = 0; step < steps; step++)
        {
            if (grouped)
            {
                factory.groupStart();
            }
            for (int i = 0; i < nGpus; i++)
            {
                final Work work = tool.startStep(onRanks[i], step, p2p, slices.inPlace, slices.send(iter, i),
                    slices.recv(iter, i), count, type, op, root, streams[i]);
                if (pending[i] != null && pendingOn[i] != onRanks[i])
                {
                    // the call it replaces ran on another communicator, whose calls this one does not follow
                    pending[i].join();
                }
                pending[i] = work;
                pendingOn[i] = onRanks[i];
            }
            if (grouped)
            {
                factory.groupEnd();
            }
        }
        if (options.aggIters() <= 1)
        {
            blockIfAsked();
        }
    }

    private void blockIfAsked()
    {
        if (options.blocking())
        {
            completeColl();
            sync.barrier();
        }
    }

    /** Waits for the calls started on this thread's ranks, and notes the plan of the first rank's. */
    void completeColl()
    {
        for (int i = 0; i < nGpus; i++)
        {
            final Work work = pending[i];
            if (work == null)
            {
                continue;
            }
            work.join();
            if (i == 0)
            {
                lastPlan = TableFormatter.planText(work.plan(), work.programName());
                lastTransport = work.plan() == null ? RowResult.NO_PLAN : work.plan().transport().lowerName();
            }
            pending[i] = null;
            pendingOn[i] = null;
        }
    }

    /**
     * The buffers of this thread's ranks for each iteration of one (size, in/out-of-place) measurement, made
     * before the timed loop so that it allocates nothing itself. As nccl-tests, iteration i works at offset
     * {@code total x (i % (maxBytes / total))}, to avoid cache effects and catch races (offset 0 for every
     * iteration with {@code --same-buffers}, as MPI's benchmarks); in place, the send buffer
     * is the rank's slice of the receive buffer (AllGather) or the receive buffer the rank's slice of the send
     * buffer (ReduceScatter). Used by the bench thread of its {@link ThreadRanks}.
     */
    final class CallSlices
    {
        private final Shape shape;
        private final boolean inPlace;
        private final long steps;
        private final Buffer[][] sends;
        private final Buffer[][] recvs;

        private CallSlices(final Shape shape, final boolean inPlace, final int iterations)
        {
            this.shape = shape;
            this.inPlace = inPlace;
            final long total = shape.totalBytes();
            this.steps = total != 0 && !options.sameBuffers() ? maxBytes / total : 1;
            final int cached = (int)Math.min(steps, Math.max(1, iterations));
            this.sends = new Buffer[cached][nGpus];
            this.recvs = new Buffer[cached][nGpus];
            for (int k = 0; k < cached; k++)
            {
                for (int i = 0; i < nGpus; i++)
                {
                    sends[k][i] = slice(k, i, true);
                    recvs[k][i] = slice(k, i, false);
                }
            }
        }

        /** @return the size's counts. */
        Shape shape()
        {
            return shape;
        }

        /** @return true for the in-place call. */
        boolean inPlace()
        {
            return inPlace;
        }

        /**
         * @param iter the iteration.
         * @param i    the rank's index among this thread's.
         * @return the send buffer of that rank's call.
         */
        Buffer send(final int iter, final int i)
        {
            final long k = iter % steps;
            return k < sends.length ? sends[(int)k][i] : slice(k, i, true);
        }

        /**
         * @param iter the iteration.
         * @param i    the rank's index among this thread's.
         * @return the receive buffer of that rank's call.
         */
        Buffer recv(final int iter, final int i)
        {
            final long k = iter % steps;
            return k < recvs.length ? recvs[(int)k][i] : slice(k, i, false);
        }

        private Buffer slice(final long step, final int i, final boolean sendSide)
        {
            final long shift = shape.totalBytes() * step;
            final long length = sendSide ? shape.sendBytes() : shape.recvBytes();
            final boolean fromSend = sendSide && !inPlace;
            final CollByteCount counts = shape.counts();
            final long offset = !inPlace ? shift : shift + (sendSide ? counts.sendInplaceOffset() :
                counts.recvInplaceOffset()) * shape.elementSize() * ranks[i];
            if (mirror != null)
            {
                return mirror.slice(thread * nGpus + i, fromSend, offset, length);
            }
            return (fromSend ? sendAllocs[i] : recvAllocs[i]).slice(offset, length);
        }
    }
}
