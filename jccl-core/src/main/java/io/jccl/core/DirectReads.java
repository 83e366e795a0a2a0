package io.jccl.core;

import io.jccl.schedules.BufferKind;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;
import io.jccl.transport.SendConnector;
import io.jccl.transport.InPlaceReads;

import java.util.List;

/**
 * The direct-read placement of one {@link RankExecution}: which of its steps publish the data they send in place,
 * as a reference into this rank's buffer that the receiver reads (P2P with SIMPLE, see
 * {@link SendConnector#publishDirect}), instead of copying it into the slot. The marks are worked out per (worker,
 * step) when a call's placement differs from the last call's (the input's offset from the output, the element counts
 * and size, and between processes the shared buffers that hold them), and the executor asks {@link #isDirect} per
 * step; a call that reuses its buffers costs one comparison of the placement.
 * <p>
 * Made once with its executor, reading the executor's chunk layout (the arrays it fills in place), and used only
 * through it: by one thread at a time, the one holding the rank's claim ({@link LocalCommunicator}). Nothing here is
 * shared between threads.
 */
final class DirectReads
{
    /**
     * Chunks smaller than this are staged even where the receiver could read them in place: copying a few KiB costs
     * less than the sender waiting, before it completes, for the receiver to say it has read them (one more message
     * latency on the call's critical path).
     */
    static final int DIRECT_MIN_BYTES = 4 * 1024;
    /**
     * The same threshold where processes of one rank outnumber the host's cores: the receiver's read waits for its
     * process to be switched in, and the sender waits for that before it completes, where a staged chunk lets it
     * complete and go on. With 4 processes on 2 CPUs (medians of 2-3 interleaved launches each way) Broadcast read
     * 1.6-1.9 us a call at 4 KiB with chunks staged against 7.4-7.6 read in place, 2.5-3.3 against 6.3-10.4 at
     * 16 KiB; Reduce 2.9-3.7 against 10-91 at 8 KiB, 8-9 against 12-16 at 32 KiB, and at 128 KiB reading in place
     * won two launches of three; AllGather 7.6-12 against 15.9-18.7 at 16 KiB; AllReduce read alike (16-64 KiB).
     */
    static final int OVERSUBSCRIBED_MIN_BYTES = 64 * 1024;
    /**
     * The threshold between processes of one rank that each have a CPU: a staged chunk crosses between the two cores
     * twice (the sender's copy takes the slot's lines from the receiver's cache, the receiver's read takes them
     * back), a chunk read in place once, and from 2 KiB that outweighs the sender's wait for the read. With 2
     * processes, AllGather (2 KiB chunks at its 4 KiB row) read 0.41-0.48 us a call staged against 0.27 read in
     * place, and staged chunks of 1 to 3.5 KiB 0.26 to 0.95 us against 0.34 for 4 KiB read in place.
     */
    static final int PROCESS_MIN_BYTES = 2 * 1024;

    private final int minBytes;
    private final Worker[] workers;
    /** Per worker, its send connector, or null when it sends nothing. */
    private final SendConnector[] sends;
    /** The executor's chunk layout, by {@link BufferKind} ordinal: read here, filled by the executor. */
    private final long[] baseAddress;
    private final long[][] chunkStart;
    private final long[][] chunkLength;
    /** Per worker and step: the step may publish its data in place (see {@link #findDirectSteps()}). */
    private final boolean[][] directStep;
    /** The buffer placement {@link #directStep} was computed for. */
    private long directInputDelta = Long.MIN_VALUE;
    private long directLayoutKey = Long.MIN_VALUE;
    private int elementSize;
    /** Which memory the receivers read in place: any in one process, jccl's shared buffers between processes. */
    private final InPlaceReads inPlaceReads;
    /**
     * The regions ({@link InPlaceReads#region}) that held the input and output when {@link #directStep} was worked
     * out; {@link Long#MIN_VALUE} before the first call.
     */
    private long directInputSegment = Long.MIN_VALUE;
    private long directOutputSegment = Long.MIN_VALUE;
    /** Whether the bound call premultiplies its input: a copy of the input onto itself then writes it. */
    private boolean premul;

    /**
     * @param workers       the rank's workers.
     * @param sends         per worker, its send connector, or null when it sends nothing.
     * @param inPlaceReads  which memory the receivers read in place (the connections say).
     * @param baseAddress   the executor's address of each buffer, by {@link BufferKind} ordinal.
     * @param chunkStart    the executor's first element of each chunk of each buffer.
     * @param chunkLength   the executor's elements of each chunk of each buffer.
     * @param minBytes      the smallest chunk read in place ({@link #minBytes(boolean, int, int)}).
     */
    DirectReads(final List<Worker> workers, final SendConnector[] sends, final InPlaceReads inPlaceReads,
        final long[] baseAddress, final long[][] chunkStart, final long[][] chunkLength, final int minBytes)
    {
        this.minBytes = minBytes;
        this.workers = workers.toArray(new Worker[0]);
        this.sends = sends;
        this.inPlaceReads = inPlaceReads;
        this.baseAddress = baseAddress;
        this.chunkStart = chunkStart;
        this.chunkLength = chunkLength;
        this.directStep = new boolean[this.workers.length][];
        for (int w = 0; w < this.workers.length; w++)
        {
            directStep[w] = new boolean[this.workers[w].stepCount()];
        }
    }

    /**
     * @param processPerRank true when each rank of the group is a process of its own.
     * @param ranksPerHost   the group's ranks on one host (the most on any).
     * @param cores          the CPUs the host's ranks share (the cost model's calibration, {@code
     *                       HostCpus.sharedByRanks()}).
     * @return the smallest chunk a receiver reads in place: {@link #OVERSUBSCRIBED_MIN_BYTES} where the processes
     *         outnumber the CPUs, {@link #PROCESS_MIN_BYTES} where they do not, {@link #DIRECT_MIN_BYTES} for ranks
     *         of one process.
     */
    static int minBytes(final boolean processPerRank, final int ranksPerHost, final int cores)
    {
        if (!processPerRank)
        {
            return DIRECT_MIN_BYTES;
        }
        return ranksPerHost > cores ? OVERSUBSCRIBED_MIN_BYTES : PROCESS_MIN_BYTES;
    }

    /**
     * @param worker a worker of the rank.
     * @param step   one of its steps.
     * @return true when the step publishes the data it sends in place (the bound call's placement).
     */
    boolean isDirect(final int worker, final int step)
    {
        return directStep[worker][step];
    }

    /**
     * Takes a call's placement, once the executor has bound its buffers and laid out its chunks, and works the marks
     * out again when it differs from the placement they were computed for. Per call; only on a rank with a direct
     * connector.
     *
     * @param inputAddress   address of the input, 0 if none.
     * @param outputAddress  address of the output, 0 if none.
     * @param inputElements  elements of the input buffer.
     * @param outputElements elements of the output buffer.
     * @param size           bytes per element.
     * @param premulInput    true when reads of the input are premultiplied: a copy of it onto itself then writes.
     */
    void bind(final long inputAddress, final long outputAddress, final long inputElements, final long outputElements,
        final int size, final boolean premulInput)
    {
        final long inputDelta = inputAddress == 0 || outputAddress == 0 ? 0 : inputAddress - outputAddress;
        final long layoutKey = (inputElements * 31 + outputElements * 17 + size) * 2 + (premulInput ? 1 : 0);
        premul = premulInput;
        final long inputSegment = region(inputAddress, inputElements * size);
        final long outputSegment = region(outputAddress, outputElements * size);
        if (inputDelta != directInputDelta || layoutKey != directLayoutKey ||
            inputSegment != directInputSegment || outputSegment != directOutputSegment)
        {
            directInputDelta = inputDelta;
            directLayoutKey = layoutKey;
            directInputSegment = inputSegment;
            directOutputSegment = outputSegment;
            elementSize = size;
            findDirectSteps();
        }
    }

    /**
     * @return the region of memory the receivers read in place that holds a whole call buffer
     *         ({@link InPlaceReads#ANYWHERE} in one process; 0 for memory they cannot read, and for no buffer).
     */
    private long region(final long address, final long length)
    {
        return address == 0 ? 0 : inPlaceReads.region(address, length);
    }

    /**
     * Marks the steps that may publish their data in place instead of copying it into the slot: SEND (its source),
     * RECV_COPY_SEND and RECV_REDUCE_COPY_SEND (their destination), on a direct connector, moving one chunk, where no
     * other step of this rank writes memory of that chunk during the call. The receiver reads the range while the
     * sender runs on, so a later write there would race; such steps stage, and the ranks can never wait on each
     * other's reads in a cycle. A receiver in another process reads only jccl's shared buffers, so there the chunk
     * must lie in one ({@link SendConnector#readableInPlace}). Computed when the buffers' relative placement, sizes
     * or shared buffers change (in place or not).
     */
    private void findDirectSteps()
    {
        for (int w = 0; w < workers.length; w++)
        {
            final Worker worker = workers[w];
            final SendConnector send = sends[w];
            for (int s = 0; s < worker.stepCount(); s++)
            {
                final Opcode op = worker.opcode(s);
                final boolean shape = send != null && send.direct() &&
                    worker.field(s, StepDescriptor.CHUNK_COUNT) == 1 && (op == Opcode.SEND ||
                    op == Opcode.RECV_COPY_SEND || op == Opcode.RECV_REDUCE_COPY_SEND);
                final int bufferField = op == Opcode.SEND ? StepDescriptor.SRC_BUFFER : StepDescriptor.DST_BUFFER;
                final int chunkField = op == Opcode.SEND ? StepDescriptor.SRC_CHUNK : StepDescriptor.DST_CHUNK;
                final int buffer = worker.field(s, bufferField);
                final int chunk = worker.field(s, chunkField);
                directStep[w][s] = shape && chunkLength[buffer][chunk] * elementSize >= minBytes &&
                    !writtenElsewhere(w, s, bufferField, chunkField) && readableInPlace(send, buffer, chunk);
            }
        }
    }

    /**
     * @return true when the sender's receiver can read the whole chunk in place. Between processes the whole call
     *         buffer must lie in one shared buffer, as {@link #bind} keys {@link #directStep} on those buffers: a
     *         buffer that only overlaps one could shift against it from call to call without the key changing.
     */
    private boolean readableInPlace(final SendConnector send, final int buffer, final int chunk)
    {
        final boolean wholeBufferShared = inPlaceReads.anywhere() ||
            buffer == BufferKind.INPUT.ordinal() && directInputSegment != 0 ||
            buffer == BufferKind.OUTPUT.ordinal() && directOutputSegment != 0;
        return wholeBufferShared && send.readableInPlace(baseAddress[buffer] +
            chunkStart[buffer][chunk] * elementSize, chunkLength[buffer][chunk] * elementSize);
    }

    /** @return true when a step other than (w, s) writes memory of the chunk step (w, s) names in its fields. */
    private boolean writtenElsewhere(final int w, final int s, final int bufferField, final int chunkField)
    {
        final Worker worker = workers[w];
        final int buffer = worker.field(s, bufferField);
        final int chunk = worker.field(s, chunkField);
        final long start = byteStart(buffer, chunk);
        final long end = start + chunkLength[buffer][chunk] * elementSize;
        for (int w2 = 0; w2 < workers.length; w2++)
        {
            final Worker other = workers[w2];
            for (int s2 = 0; s2 < other.stepCount(); s2++)
            {
                if (!other.opcode(s2).writesDestination() || (w2 == w && s2 == s && bufferField ==
                    StepDescriptor.DST_BUFFER) || copiesOntoItself(other, s2))
                {
                    continue;
                }
                final int b2 = other.field(s2, StepDescriptor.DST_BUFFER);
                final int c2 = other.field(s2, StepDescriptor.DST_CHUNK);
                for (int j = 0; j < other.field(s2, StepDescriptor.CHUNK_COUNT); j++)
                {
                    final long start2 = byteStart(b2, c2 + j);
                    if (start2 < end && start < start2 + chunkLength[b2][c2 + j] * elementSize)
                    {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * @return true for a copy whose every chunk is its own source (an in-place AllGather's or Broadcast's own block),
     *         which the executor skips: it writes nothing, unless it premultiplies.
     */
    private boolean copiesOntoItself(final Worker worker, final int step)
    {
        if (premul || worker.opcode(step) != Opcode.COPY)
        {
            return false;
        }
        final int src = worker.field(step, StepDescriptor.SRC_BUFFER);
        final int srcChunk = worker.field(step, StepDescriptor.SRC_CHUNK);
        final int dst = worker.field(step, StepDescriptor.DST_BUFFER);
        final int dstChunk = worker.field(step, StepDescriptor.DST_CHUNK);
        for (int j = 0; j < worker.field(step, StepDescriptor.CHUNK_COUNT); j++)
        {
            if (byteStart(src, srcChunk + j) != byteStart(dst, dstChunk + j) ||
                chunkLength[src][srcChunk + j] != chunkLength[dst][dstChunk + j])
            {
                return false;
            }
        }
        return true;
    }

    /** @return the address of a chunk, or its offset when its buffer has no address (scratch is never aliased). */
    private long byteStart(final int buffer, final int chunk)
    {
        final long base = buffer == BufferKind.SCRATCH.ordinal() ? Long.MIN_VALUE / 2 : baseAddress[buffer];
        return base + chunkStart[buffer][chunk] * elementSize;
    }
}
