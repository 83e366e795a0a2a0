package io.jccl.core;

import io.jccl.JcclException;
import io.jccl.JcclRemoteException;
import io.jccl.JcclTimeoutException;
import io.jccl.TransportKind;
import io.jccl.kernels.HostReducer;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.ChunkLayout;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.Program;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;
import io.jccl.transport.Connections;
import io.jccl.transport.RecvConnector;
import io.jccl.transport.SendConnector;

import java.util.List;

/**
 * The executor of one rank's part of a {@link Program} (DESIGN.md, "Execution model: steps never block"). Every
 * worker is a state machine over (pipeline iteration, step); {@link #doWork()} moves each worker as far as its
 * dependencies, its receive peer's slots and its send peer's free slots allow, and returns how much it did.
 * Made once per (communicator, program) and rebound for every call; the hot path allocates nothing. Its
 * {@link DirectReads} decides which sending steps publish their data in place for the receiver to read rather than
 * staging it in the slot.
 * <p>
 * Pipelining: every chunk of every buffer is cut into pieces of {@code pieceCount} elements; iteration {@code p}
 * runs every step of a worker on piece {@code p} of the chunks the step names.
 * <p>
 * Over 600 lines on purpose: one job, the step machine; cutting it further would spread its per-step state over
 * classes on the hot path ({@link DirectReads} already holds the placement of direct reads).
 */
final class RankExecution implements Execution
{
    private static final int BUFFERS = 3;
    /** Steps that store and forward the same data do it in blocks this large, the second pass from L1/L2. */
    private static final int BLOCK_BYTES = 16 * 1024;
    private static final int SMALL_COPY_BYTES = 64;

    private final Program program;
    private final io.jccl.Protocol protocol;
    private final TransportKind transport;
    private final Connections connectors;
    private final int rank;
    /** True when a step of this rank's part writes its input buffer (schedules may; built-in programs never do). */
    private final boolean writesInput;
    /** Another executor of the same Program and connectors, for a call that runs ahead while this one is busy. */
    private RankExecution spare;
    /**
     * While the call runs ahead of an earlier call of its rank ({@link #runAhead}): the buffers (bits by
     * {@link BufferKind} ordinal) its steps may read and write, those no earlier unfinished call writes or uses.
     */
    private boolean ahead;
    private int aheadReadable;
    private int aheadWritable;
    private final WorkerState[] workers;
    private final long[][] chunkStart = new long[BUFFERS][];
    private final long[][] chunkLength = new long[BUFFERS][];
    private final long[] baseAddress = new long[BUFFERS];
    private final long[] elements = new long[BUFFERS];
    private final int maxChunkCount;
    private final int slotLength;
    private final int channels;
    /** Send connectors whose receivers read this rank's buffers directly (P2P with SIMPLE); empty otherwise. */
    private final SendConnector[] directSenders;
    /** Which steps publish their data in place, for the bound call's placement (on a direct connector only). */
    private final DirectReads directReads;
    /** The smallest chunk read in place ({@link DirectReads#minBytes}). */
    private final int directMinBytes;

    /** Per input chunk, the last pipeline iteration in which it was overwritten (PreMulSum on raw input only). */
    private final long[] inputWritten;
    /** Per output chunk, the input chunk at the same address (in place), else -1. */
    private final int[] outputAlias;

    private Call call;
    private HostReducer reducer;
    private boolean premulInput;
    private int elementSize;
    private int chunkBytes;
    private long pieceCount;
    private long iterations;
    private long planHash;
    private int workersDone;
    private long slotsSent;
    private long bytesStaged;
    private long bytesDirect;

    RankExecution(final Program program, final io.jccl.Protocol protocol, final TransportKind transportKind,
        final int rank, final Connections transport, final int directMinBytes)
    {
        this.directMinBytes = directMinBytes;
        this.protocol = protocol;
        this.transport = transportKind;
        this.connectors = transport;
        this.program = program;
        this.rank = rank;
        this.maxChunkCount = program.maxChunkCount();
        this.slotLength = Connections.slotLength(protocol);
        this.channels = program.channels();
        final List<Worker> rankWorkers = program.workers(rank);
        this.workers = new WorkerState[rankWorkers.size()];
        for (int w = 0; w < workers.length; w++)
        {
            final Worker worker = rankWorkers.get(w);
            workers[w] = new WorkerState(w, worker,
                worker.sendPeer() == Worker.NO_PEER ? null :
                    transport.sender(rank, worker.sendPeer(), worker.channel(), protocol, transportKind),
                worker.recvPeer() == Worker.NO_PEER ? null :
                    transport.receiver(worker.recvPeer(), rank, worker.channel(), protocol, transportKind));
        }
        final SendConnector[] sends = java.util.Arrays.stream(workers).map(w -> w.send).toArray(SendConnector[]::new);
        this.directSenders = java.util.Arrays.stream(sends)
            .filter(c -> c != null && c.direct()).distinct().toArray(SendConnector[]::new);
        this.directReads = new DirectReads(rankWorkers, sends, transport.inPlaceReads(), baseAddress, chunkStart,
            chunkLength, directMinBytes);
        for (final BufferKind kind : BufferKind.values())
        {
            final ChunkLayout layout = program.layout(kind);
            final int chunks = layout == null ? 0 : layout.chunks();
            chunkStart[kind.ordinal()] = new long[chunks];
            chunkLength[kind.ordinal()] = new long[chunks];
        }
        inputWritten = new long[chunkStart[BufferKind.INPUT.ordinal()].length];
        outputAlias = new int[chunkStart[BufferKind.OUTPUT.ordinal()].length];
        boolean writes = false;
        for (final Worker worker : rankWorkers)
        {
            for (int s = 0; s < worker.stepCount(); s++)
            {
                writes |= worker.opcode(s).writesDestination() &&
                    worker.field(s, StepDescriptor.DST_BUFFER) == BufferKind.INPUT.ordinal();
            }
        }
        this.writesInput = writes;
    }

    /**
     * @return this executor, or when it runs a call that has not finished, another of the same Program and
     *         connectors (made on first need; there are as many as calls run at once).
     */
    RankExecution idleInstance()
    {
        RankExecution e = this;
        while (e.call != null && !e.call.isComplete())
        {
            if (e.spare == null)
            {
                e.spare = new RankExecution(program, protocol, transport, rank, connectors, directMinBytes);
            }
            e = e.spare;
        }
        return e;
    }

    /** @return true when a step of this rank's part writes the input buffer. */
    boolean writesInput()
    {
        return writesInput;
    }

    /**
     * Lets the bound call run ahead of the earlier calls of its rank that have not finished: only the steps that
     * receive nothing, send no direct slot, touch no scratch, read only buffers in {@code readable} and write only
     * buffers in {@code writable} run until {@link #caughtUp()}. Its sends then follow every send of the earlier calls
     * on each connection (they had all sent, see {@link #sendsDone()}), and no receive can take an earlier call's
     * slot.
     *
     * @param readable bits by {@link BufferKind} ordinal: buffers no earlier unfinished call writes.
     * @param writable bits: buffers no earlier unfinished call reads or writes.
     */
    void runAhead(final int readable, final int writable)
    {
        ahead = true;
        aheadReadable = readable;
        aheadWritable = writable;
    }

    /**
     * The call is now the oldest unfinished one of its rank: every step may run.
     *
     * @return true when it had run ahead ({@link #runAhead}).
     */
    boolean caughtUp()
    {
        final boolean wasAhead = ahead;
        ahead = false;
        return wasAhead;
    }

    /** @return true when the bound call has published every slot it sends (its remaining steps only receive). */
    boolean sendsDone()
    {
        for (final WorkerState w : workers)
        {
            if (w.lastSend >= 0 && w.iteration < iterations &&
                (w.iteration < iterations - 1 || w.step <= w.lastSend))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Binds a call: its buffers, element counts and pipelining grain. Per call, not per chunk.
     *
     * @param call           the call.
     * @param reducer        the arithmetic, or null for collectives that only move data.
     * @param premulInput    true when reads of the input buffer are premultiplied (PreMulSum, AVG on floats).
     * @param inputAddress   address of the input, 0 if none.
     * @param outputAddress  address of the output, 0 if none.
     * @param scratchAddress address of scratch memory of {@link Program#scratchElements(long)} elements, 0 if none.
     * @param inputElements  elements of the input buffer.
     * @param outputElements elements of the output buffer.
     * @param chunkBytes     the plan's pipelining grain.
     * @param planHash       the plan's hash, carried in slot headers.
     */
    @Override
    public void bind(final Call call, final HostReducer reducer, final boolean premulInput, final long inputAddress,
        final long outputAddress, final long scratchAddress, final long inputElements, final long outputElements,
        final int chunkBytes, final long planHash)
    {
        this.call = call;
        this.reducer = reducer;
        this.premulInput = premulInput;
        this.ahead = false;
        this.planHash = planHash;
        baseAddress[BufferKind.INPUT.ordinal()] = inputAddress;
        baseAddress[BufferKind.OUTPUT.ordinal()] = outputAddress;
        baseAddress[BufferKind.SCRATCH.ordinal()] = scratchAddress;
        final int size = call.type.byteSize();
        if (inputElements != elements[BufferKind.INPUT.ordinal()] ||
            outputElements != elements[BufferKind.OUTPUT.ordinal()] || size != elementSize ||
            chunkBytes != this.chunkBytes)
        {
            layout(inputElements, outputElements, size, chunkBytes);
        }
        if (premulInput)
        {
            trackRawInput();
        }
        if (directSenders.length > 0)
        {
            directReads.bind(inputAddress, outputAddress, inputElements, outputElements, size, premulInput);
        }
        workersDone = 0;
        slotsSent = 0;
        bytesStaged = 0;
        bytesDirect = 0;
        for (final WorkerState w : workers)
        {
            w.reset();
        }
    }

    /**
     * PreMulSum multiplies a rank's input when it is first read, as NCCL does: a read premultiplies only while the
     * piece still holds the caller's input, that is, until a step of this call overwrote it (in place, through the
     * output chunk at the same address). Computed per call, only for PreMulSum and floating AVG.
     */
    private void trackRawInput()
    {
        java.util.Arrays.fill(inputWritten, -1);
        final int in = BufferKind.INPUT.ordinal();
        final int out = BufferKind.OUTPUT.ordinal();
        outputAliases(baseAddress[in], baseAddress[out], elementSize, chunkStart[in], chunkLength[in], chunkStart[out],
            chunkLength[out], outputAlias);
    }

    /**
     * Finds a call's in-place chunks, for the premultiplication rule of both executors.
     *
     * @param input       the input's address.
     * @param output      the output's address.
     * @param elementSize bytes per element.
     * @param inStart     first element of each input chunk.
     * @param inLength    elements of each input chunk.
     * @param outStart    first element of each output chunk.
     * @param outLength   elements of each output chunk.
     * @param alias       filled: per output chunk, the input chunk at the same address with the same non-zero length,
     *                    else -1.
     */
    static void outputAliases(final long input, final long output, final int elementSize, final long[] inStart,
        final long[] inLength, final long[] outStart, final long[] outLength, final int[] alias)
    {
        for (int j = 0; j < alias.length; j++)
        {
            final long address = output + outStart[j] * elementSize;
            alias[j] = -1;
            for (int k = 0; k < inStart.length && alias[j] < 0; k++)
            {
                if (input + inStart[k] * elementSize == address && inLength[k] == outLength[j] && inLength[k] > 0)
                {
                    alias[j] = k;
                }
            }
        }
    }

    /** @return the input chunk a (buffer, chunk) shares memory with, or -1. */
    private int inputChunkOf(final int buffer, final int chunk)
    {
        return buffer == BufferKind.INPUT.ordinal() ? chunk :
            buffer == BufferKind.OUTPUT.ordinal() ? outputAlias[chunk] : -1;
    }

    /** Cuts the buffers into chunks and the chunks into pieces; only when the counts or the grain change. */
    private void layout(final long inputElements, final long outputElements, final int elementSize,
        final int chunkBytes)
    {
        this.elementSize = elementSize;
        this.chunkBytes = chunkBytes;
        elements[BufferKind.INPUT.ordinal()] = inputElements;
        elements[BufferKind.OUTPUT.ordinal()] = outputElements;
        elements[BufferKind.SCRATCH.ordinal()] = program.scratchElements(inputElements);
        long longestChunk = 0;
        for (final BufferKind kind : BufferKind.values())
        {
            final ChunkLayout layout = program.layout(kind);
            final int b = kind.ordinal();
            for (int c = 0; c < chunkStart[b].length; c++)
            {
                chunkStart[b][c] = layout.start(elements[b], c);
                chunkLength[b][c] = layout.length(elements[b], c);
                longestChunk = Math.max(longestChunk, chunkLength[b][c]);
            }
        }
        final int pieceBytes = Math.min(chunkBytes, slotLength / maxChunkCount);
        pieceCount = Math.max(1, pieceBytes / elementSize);
        iterations = Math.max(1, (longestChunk + pieceCount - 1) / pieceCount);
    }

    /**
     * @return true when every worker ran every step of every iteration and every receiver released the direct slots
     * that reference this rank's buffers (until then the caller may not touch them).
     */
    @Override
    public boolean isComplete()
    {
        return workersDone == workers.length && undrainedSender() == null;
    }

    private SendConnector undrainedSender()
    {
        for (final SendConnector c : directSenders)
        {
            if (!c.drained())
            {
                return c;
            }
        }
        return null;
    }

    @Override
    public io.jccl.Protocol protocol()
    {
        return protocol;
    }

    @Override
    public TransportKind transport()
    {
        return transport;
    }

    @Override
    public int channels()
    {
        return channels;
    }

    @Override
    public long bytesDirect()
    {
        return bytesDirect;
    }

    @Override
    public long slotsSent()
    {
        return slotsSent;
    }

    @Override
    public long bytesStaged()
    {
        return bytesStaged;
    }

    /**
     * Moves every worker as far as it can.
     *
     * @return steps executed; 0 if every unfinished worker waits on a peer or a dependency.
     * @throws JcclException if a slot from another call or plan arrives.
     */
    @Override
    public int doWork()
    {
        int work = 0;
        for (final WorkerState w : workers)
        {
            if (w.iteration < iterations)
            {
                work += w.doWork();
            }
        }
        return work;
    }

    /** @return a timeout naming the collective, this rank, the first stuck worker's peer and step. */
    @Override
    public JcclTimeoutException timeout(final long timeoutMs)
    {
        final WorkerState w = firstUnfinished();
        if (w != null)
        {
            final Opcode op = w.worker.opcode(w.step);
            final int peer = waitsOn(w);
            final String waitsOn;
            if (op.receives() && !w.recv.hasData())
            {
                waitsOn = "to receive from peer rank " + peer;
            }
            else if (op.sends() && !w.send.hasSpace())
            {
                waitsOn = "for a free slot at peer rank " + peer;
            }
            else
            {
                waitsOn = "for step " + w.worker.field(w.step, StepDescriptor.DEP_STEP) + " of worker " +
                    w.worker.field(w.step, StepDescriptor.DEP_WORKER) + (peer < 0 ? "" : ", which waits on peer rank " +
                    peer);
            }
            return new JcclTimeoutException(call.describe() + " timed out after " + timeoutMs +
                " ms on rank " + rank + ": worker " + w.index + " (channel " + w.worker.channel() +
                ") waits at step " + w.step + " (" + op.mscclName() + ") of piece " + (w.iteration + 1) + " of " +
                iterations + " " + waitsOn + " (" + program.name() + " program)");
        }
        final SendConnector undrained = undrainedSender();
        return new JcclTimeoutException(call.describe() + " timed out after " + timeoutMs + " ms on rank " + rank +
            (undrained == null ? "" : ": peer rank " + undrained.peer() + " has not read this rank's buffer (direct)"));
    }

    @Override
    public int waitsOn()
    {
        final WorkerState w = firstUnfinished();
        if (w != null)
        {
            return waitsOn(w);
        }
        final SendConnector undrained = undrainedSender();
        return undrained == null ? -1 : undrained.peer();
    }

    /** @return the first worker that has pieces left, or null. */
    private WorkerState firstUnfinished()
    {
        for (final WorkerState w : workers)
        {
            if (w.iteration < iterations)
            {
                return w;
            }
        }
        return null;
    }

    /**
     * @return the peer a worker's step waits on: to receive from it, or for a free slot at it; where the step waits
     *         for a step of another worker of this rank, the peer that worker waits on (a direct program's reduction
     *         chain waits on the worker that receives from the late peer); -1 if none.
     */
    private int waitsOn(final WorkerState start)
    {
        WorkerState w = start;
        for (int hops = 0; hops < workers.length && w.iteration < iterations; hops++)
        {
            final Opcode op = w.worker.opcode(w.step);
            if (op.receives() && !w.recv.hasData())
            {
                return w.recv.peer();
            }
            if (op.sends() && !w.send.hasSpace())
            {
                return w.send.peer();
            }
            final int dependency = w.worker.field(w.step, StepDescriptor.DEP_WORKER);
            if (dependency < 0)
            {
                return -1;
            }
            w = workers[dependency];
        }
        return -1;
    }

    /**
     * Copies {@code bytes} between ranges that do not overlap. Up to {@value #SMALL_COPY_BYTES} bytes move in longs:
     * the copy stub's entry costs more than the data (an 8-byte call copies its one element three times).
     */
    private static void copyBytes(final long src, final long dst, final long bytes)
    {
        if (bytes > SMALL_COPY_BYTES)
        {
            org.agrona.UnsafeApi.copyMemory(src, dst, bytes);
            return;
        }
        long i = 0;
        for (; i + Long.BYTES <= bytes; i += Long.BYTES)
        {
            org.agrona.UnsafeApi.putLong(dst + i, org.agrona.UnsafeApi.getLong(src + i));
        }
        for (; i < bytes; i++)
        {
            org.agrona.UnsafeApi.putByte(dst + i, org.agrona.UnsafeApi.getByte(src + i));
        }
    }

    @Override
    public boolean ownScratch()
    {
        return false;
    }

    @Override
    public boolean dividesAverage()
    {
        return false;
    }

    private final class WorkerState
    {
        final int index;
        final Worker worker;
        final SendConnector send;
        final RecvConnector recv;
        final int stepCount;
        /** The last step that sends, or -1. */
        final int lastSend;
        long iteration;
        int step;

        WorkerState(final int index, final Worker worker, final SendConnector send, final RecvConnector recv)
        {
            this.index = index;
            this.worker = worker;
            this.send = send;
            this.recv = recv;
            this.stepCount = worker.stepCount();
            int last = -1;
            for (int s = 0; s < stepCount; s++)
            {
                last = worker.opcode(s).sends() ? s : last;
            }
            this.lastSend = last;
        }

        void reset()
        {
            iteration = 0;
            step = 0;
            if (stepCount == 0)
            {
                iteration = iterations;
                workersDone++;
            }
        }

        boolean completed(final long atIteration, final int atStep)
        {
            return iteration > atIteration || (iteration == atIteration && step > atStep);
        }

        int doWork()
        {
            int work = 0;
            while (iteration < iterations)
            {
                final int depWorker = worker.field(step, StepDescriptor.DEP_WORKER);
                if (depWorker != StepDescriptor.NO_DEPENDENCY &&
                    !workers[depWorker].completed(iteration, worker.field(step, StepDescriptor.DEP_STEP)))
                {
                    break;
                }
                final Opcode op = worker.opcode(step);
                if (ahead && !mayRunAhead(op))
                {
                    break;
                }
                if (op.receives() && !recv.hasData())
                {
                    break;
                }
                if (op.sends() && !send.hasSpace())
                {
                    break;
                }
                execute(op);
                work++;
                if (++step == stepCount)
                {
                    step = 0;
                    if (++iteration == iterations)
                    {
                        workersDone++;
                    }
                }
            }
            return work;
        }

        /** @return true when the step may run while the call runs ahead (see {@link #runAhead}). */
        private boolean mayRunAhead(final Opcode op)
        {
            if (op == Opcode.NOP)
            {
                return true;
            }
            final int src = worker.field(step, StepDescriptor.SRC_BUFFER);
            final int dst = worker.field(step, StepDescriptor.DST_BUFFER);
            // a direct slot would hold this call back until the peer read it, and the peer's reading call may be
            // waiting for an earlier call of this rank: each side's calls would wait on the other's
            return !op.receives() && !(op.sends() && directReads.isDirect(index, step)) &&
                (!op.readsSource() || (aheadReadable & 1 << src) != 0) &&
                (!op.writesDestination() || (aheadWritable & 1 << dst) != 0) &&
                (op != Opcode.REDUCE || (aheadReadable & 1 << dst) != 0);
        }

        private void execute(final Opcode op)
        {
            if (op == Opcode.NOP)
            {
                return;
            }
            final int srcBuffer = worker.field(step, StepDescriptor.SRC_BUFFER);
            final int dstBuffer = worker.field(step, StepDescriptor.DST_BUFFER);
            final int srcChunk = worker.field(step, StepDescriptor.SRC_CHUNK);
            final int dstChunk = worker.field(step, StepDescriptor.DST_CHUNK);
            final int chunkCount = worker.field(step, StepDescriptor.CHUNK_COUNT);
            final long inSlot = op.receives() ? checkedSlot(op) : 0;
            // a step whose sent data ends up in one range of a buffer publishes that range instead of copying it
            final long directFrom = op.sends() && directReads.isDirect(index, step) ? directSource(op) : 0;
            final long outSlot = directFrom != 0 || !op.sends() ? 0 :
                send.slotAddress((int)stepBytes(op, srcBuffer, srcChunk, dstBuffer, dstChunk, chunkCount));
            long slotOffset = 0;
            for (int j = 0; j < chunkCount; j++)
            {
                final long n;
                final long src;
                final long dst;
                if (op.readsSource())
                {
                    n = pieceOf(srcBuffer, srcChunk + j);
                    src = address(srcBuffer, srcChunk + j);
                }
                else
                {
                    n = pieceOf(dstBuffer, dstChunk + j);
                    src = 0;
                }
                dst = op.writesDestination() ? address(dstBuffer, dstChunk + j) : 0;
                final boolean premulSrc = premulInput && op.readsSource() && rawInput(srcBuffer, srcChunk + j);
                final long bytes = n * elementSize;
                final long in = inSlot + slotOffset;
                final long out = outSlot + slotOffset;
                switch (op)
                {
                    case SEND -> copy(src, premulSrc, directFrom != 0 ? src : out, n);
                    case RECV -> copy(in, false, dst, n);
                    case RECV_COPY_SEND -> copyTwice(in, dst, directFrom != 0 ? 0 : out, n);
                    case RECV_REDUCE_SEND -> reducer.reduce(in, false, src, premulSrc, out, n);
                    case RECV_REDUCE_COPY -> reducer.reduce(in, false, src, premulSrc, dst, n);
                    case RECV_REDUCE_COPY_REVERSED -> reducer.reduce(src, premulSrc, in, false, dst, n);
                    case RECV_REDUCE_COPY_SEND -> reduceTwice(in, src, premulSrc, dst, directFrom != 0 ? 0 : out, n);
                    case COPY -> copy(src, premulSrc, dst, n);
                    case REDUCE -> reducer.reduce(dst, premulInput && rawInput(dstBuffer, dstChunk + j), src,
                        premulSrc, dst, n);
                    default -> throw new IllegalStateException("unreachable: " + op);
                }
                slotOffset += bytes;
                if (premulInput && op.writesDestination())
                {
                    final int written = inputChunkOf(dstBuffer, dstChunk + j);
                    if (written >= 0)
                    {
                        inputWritten[written] = Math.max(inputWritten[written], iteration);
                    }
                }
            }
            if (op.receives())
            {
                if (recv.dataLength() != slotOffset)
                {
                    throw mismatch("a slot of " + recv.dataLength() + " bytes where this rank expects " +
                        slotOffset);
                }
                recv.release();
            }
            if (directFrom != 0)
            {
                send.publishDirect(directFrom, (int)slotOffset, call.seq, call.shape, planHash);
                slotsSent++;
                bytesDirect += slotOffset;
            }
            else if (op.sends())
            {
                send.publish((int)slotOffset, call.seq, call.shape, planHash);
                slotsSent++;
                bytesStaged += slotOffset;
            }
        }

        /** @return the bytes the step moves: its pieces of the source chunks, or of the destination's. */
        private long stepBytes(final Opcode op, final int srcBuffer, final int srcChunk, final int dstBuffer,
            final int dstChunk, final int chunkCount)
        {
            long n = 0;
            for (int j = 0; j < chunkCount; j++)
            {
                n += op.readsSource() ? pieceOf(srcBuffer, srcChunk + j) : pieceOf(dstBuffer, dstChunk + j);
            }
            return n * elementSize;
        }

        /**
         * @return where the data this step sends will lie once it ran (its source for a plain SEND, its destination
         * for the forwarding ops), or 0 when it exists only in the slot (RECV_REDUCE_SEND, a premultiplied read,
         * an empty piece).
         */
        private long directSource(final Opcode op)
        {
            final int srcBuffer = worker.field(step, StepDescriptor.SRC_BUFFER);
            final int dstBuffer = worker.field(step, StepDescriptor.DST_BUFFER);
            final int srcChunk = worker.field(step, StepDescriptor.SRC_CHUNK);
            final int dstChunk = worker.field(step, StepDescriptor.DST_CHUNK);
            return switch (op)
            {
                case SEND -> premulInput && rawInput(srcBuffer, srcChunk) || pieceOf(srcBuffer, srcChunk) == 0 ? 0 :
                    address(srcBuffer, srcChunk);
                case RECV_COPY_SEND, RECV_REDUCE_COPY_SEND -> pieceOf(dstBuffer, dstChunk) == 0 ? 0 :
                    address(dstBuffer, dstChunk);
                default -> 0;
            };
        }

        private long checkedSlot(final Opcode op)
        {
            if (recv.seq() != call.seq || recv.shape() != call.shape || recv.plan() != planHash)
            {
                throw mismatch("a slot of call #" + recv.seq() + (recv.shape() != call.shape ?
                    " with another collective, type, op, count or root" : "") +
                    (recv.plan() != planHash ? " under another plan" : ""));
            }
            return recv.slotAddress();
        }

        private JcclRemoteException mismatch(final String what)
        {
            return new JcclRemoteException(call.describe() + " on rank " + rank + ": worker " + index +
                " at step " + step + " (" + worker.opcode(step).mscclName() + ") received from rank " +
                recv.peer() + " on channel " + worker.channel() + " " + what +
                ": the ranks do not run the same sequence of calls");
        }

        /** @return true while piece {@code iteration} of a chunk still holds the caller's input. */
        private boolean rawInput(final int buffer, final int chunk)
        {
            final int k = inputChunkOf(buffer, chunk);
            return k >= 0 && inputWritten[k] < iteration;
        }

        /** @return elements of piece {@code iteration} of a chunk (0 when the chunk is shorter). */
        private long pieceOf(final int buffer, final int chunk)
        {
            final long remaining = chunkLength[buffer][chunk] - iteration * pieceCount;
            return remaining <= 0 ? 0 : Math.min(remaining, pieceCount);
        }

        private long address(final int buffer, final int chunk)
        {
            return baseAddress[buffer] + (chunkStart[buffer][chunk] + iteration * pieceCount) * elementSize;
        }

        /**
         * {@code dst = out = in}, a cache-sized block at a time, so the second copy reads from cache; {@code out} 0
         * when the slot is direct.
         */
        private void copyTwice(final long in, final long dst, final long out, final long n)
        {
            if (out == 0)
            {
                copy(in, false, dst, n);
                return;
            }
            final long block = BLOCK_BYTES / elementSize;
            for (long done = 0; done < n; done += block)
            {
                final long offset = done * elementSize;
                final long count = Math.min(block, n - done);
                copy(in + offset, false, dst + offset, count);
                copy(dst + offset, false, out + offset, count);
            }
        }

        /**
         * {@code dst = out = op(in, pre(src))}, a cache-sized block at a time; {@code out} 0 when the slot is direct.
         */
        private void reduceTwice(final long in, final long src, final boolean premulSrc, final long dst,
            final long out, final long n)
        {
            if (out == 0)
            {
                reducer.reduce(in, false, src, premulSrc, dst, n);
                return;
            }
            final long block = BLOCK_BYTES / elementSize;
            for (long done = 0; done < n; done += block)
            {
                final long offset = done * elementSize;
                final long count = Math.min(block, n - done);
                reducer.reduce(in + offset, false, src + offset, premulSrc, dst + offset, count);
                copy(dst + offset, false, out + offset, count);
            }
        }

        private void copy(final long src, final boolean premul, final long dst, final long n)
        {
            if (n == 0)
            {
                return;
            }
            if (premul)
            {
                reducer.copy(src, true, dst, n);
            }
            else if (src != dst)
            {
                copyBytes(src, dst, n * elementSize);
            }
        }
    }
}
