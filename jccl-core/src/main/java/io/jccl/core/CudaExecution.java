package io.jccl.core;

import io.jccl.Collective;
import io.jccl.JcclInvalidUsageException;
import io.jccl.JcclRemoteException;
import io.jccl.JcclTimeoutException;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.TransportKind;
import io.jccl.kernels.HostReducer;
import io.jccl.kernels.cuda.CudaApi;
import io.jccl.kernels.cuda.DeviceLayout;
import io.jccl.kernels.cuda.KernelNames;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.ChunkLayout;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.Program;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;
import io.jccl.transport.cuda.CudaProxy;
import org.agrona.UnsafeApi;

import java.util.List;

import static io.jccl.kernels.cuda.DeviceLayout.*;

/**
 * One rank's executor of a Program on a CUDA device: a call writes the launch record, the block records and the chunk
 * tables into pinned host memory, copies them to the device on the rank's stream (the step records, which no call
 * changes, go with the first call only), launches the interpreter kernel with one block per worker and records an
 * event; the call is complete when the event is. Ranks of this process that share the device launch their blocks
 * together, in one grid ({@link DeviceLaunch}). The records are the Program's own ({@link StepDescriptor}), read by
 * the kernel as the Java executor reads them; peers' FIFOs come from the {@link CudaGroup}. Made once per
 * (communicator, program, protocol) and rebound per call; binding allocates nothing once the first call of a size
 * has run.
 * <p>
 * Over 600 lines on purpose: one job, a launch's life (records, launch, proxies, completion, errors); the record
 * layout itself is generated ({@code DeviceWire}), the FIFOs are the transport's ({@code CudaTransport}), the grid
 * of the ranks sharing a device is {@link DeviceLaunch}'s and the report of a stopped kernel
 * {@link CudaKernelReport}'s.
 */
final class CudaExecution implements Execution
{
    private static final int BUFFERS = 3;
    /** Threads per block unless JCCL_NTHREADS pins them: NCCL's SIMPLE default. */
    static final int DEFAULT_THREADS = 512;
    /** How long a timeout waits for its aborted kernel to return before calling it never started. */
    private static final long ABORT_WAIT_NANOS = 2_000_000_000L;
    /** A receive FIFO whose sender (another process, CUDA IPC) has not sent its handle yet. */
    private static final long UNRESOLVED = -1;

    private final Program program;
    private final Protocol protocol;
    private final int rank;
    private final int ranks;
    private final CudaGroup group;
    private final CudaApi api;
    private final int device;
    private final Worker[] workers;
    private final long[] sendFifo;
    private final long[] recvFifo;
    /** The proxies of this rank's connections to other processes (outboxes and inboxes), possibly none. */
    private final CudaProxy[] proxies;
    private final int threads;
    private final int maxChunkCount;
    private final int totalSteps;
    /** The rank's stream (its communicator's, shared by its programs), where calls without a stream of theirs run. */
    private final long stream;
    /** The stream the latest call was launched on: {@link #stream} or the caller's. */
    private long active;
    private final long done;
    /** Pinned host words the kernel polls and writes: the abort flag at 0, the error word at 8. */
    private final long control;
    /** What a timeout says of where the kernel's workers stood. */
    private final CudaKernelReport report;

    // offsets in the area (host staging and device copy alike): what a call writes, then the step records
    private final long blocksOffset;
    private final long rankTableOffset;
    private final long chunkTablesOffset;
    private final long recordsOffset;
    private final long flagsOffset;
    private final long progressOffset;
    private final long clockOffset;
    private final long areaBytes;
    private final long staging;
    private final long area;
    /** Whether the step records are on the device: copied with the first launch, which calls after it leave out. */
    private boolean recordsCopied;

    /** Per input chunk: written by an earlier step of this call (premultiplication flags only). */
    private final boolean[] inputWritten;
    /** Per buffer and chunk, the latest call's first element and element count; per output chunk its in-place alias. */
    private final long[][] chunkStart = new long[BufferKind.values().length][];
    private final long[][] chunkLength = new long[BufferKind.values().length][];
    private final int[] outputAlias;
    private long scratch;
    private long scratchBytes;
    /** Scratch outgrown by a larger call, freed with the executor; together smaller than {@link #scratch}. */
    private final java.util.List<Long> retiredScratch = new java.util.ArrayList<>();
    /** Set by whichever thread launched the call: this rank's, or the last of the ranks sharing its device. */
    private volatile boolean launched;
    /** The launch of the ranks of this process sharing the device, or null when this rank has it alone. */
    private final DeviceLaunch shared;
    /** The abort flag the launch record names: {@link #control}'s, or the one of the shared launch. */
    private final long abortWord;
    /** Recorded on the call's stream once its records are copied (shared launches only, else 0). */
    private final long ready;
    /** The kernel's parameter when this rank launches alone. */
    private final long[] soloSet;
    private long function;
    /** Bound, waiting for a peer's IPC handle before it can launch. */
    private boolean pendingLaunch;
    private String kernel;
    /** Integer AVG's division after the kernel (null when none), its buffer and count. */
    private String divideKernel;
    private long divideAddress;
    private long divideCount;
    /** The running call's sequence, shape and plan, which the proxies put in the host slot headers. */
    private long seq;
    private long shape;
    private long planHash;

    CudaExecution(final Program program, final Protocol protocol, final int rank, final CudaGroup group,
        final long stream, final int requestedThreads)
    {
        if (protocol != Protocol.SIMPLE && protocol != Protocol.LL)
        {
            throw new JcclInvalidUsageException("protocol " + protocol + " does not run on CUDA yet (SIMPLE and LL " +
                "do): set JCCL_PROTO=SIMPLE or LL");
        }
        this.program = program;
        this.protocol = protocol;
        this.rank = rank;
        this.ranks = program.ranks();
        this.group = group;
        this.api = group.api();
        this.device = group.device(rank);
        final List<Worker> rankWorkers = program.workers(rank);
        this.workers = rankWorkers.toArray(new Worker[0]);
        final int sms = api.multiprocessorCount(device);
        if ((long)workers.length * group.ranksSharing(rank) > sms)
        {
            throw new JcclInvalidUsageException("the " + program.name() + " program runs " + workers.length +
                " workers per rank and " + group.ranksSharing(rank) + " ranks share CUDA device " + device +
                ", which has " + sms + " multiprocessors: their kernels could not all be resident at once " +
                "(lower JCCL_MAX_NCHANNELS or the rank count per device)");
        }
        this.threads = requestedThreads >= 32 && requestedThreads <= 1024 ? requestedThreads / 32 * 32 :
            DEFAULT_THREADS;
        this.maxChunkCount = program.maxChunkCount();
        this.sendFifo = new long[workers.length];
        this.recvFifo = new long[workers.length];
        int steps = 0;
        for (int w = 0; w < workers.length; w++)
        {
            final Worker worker = workers[w];
            steps += worker.stepCount();
            sendFifo[w] = worker.sendPeer() == Worker.NO_PEER ? 0 :
                group.fifo(rank, worker.sendPeer(), worker.channel(), protocol);
        }
        // receiving ends after every sending end: a receiver in another process may wait for the sender's IPC
        // handle, which every rank sends before it waits for any
        for (int w = 0; w < workers.length; w++)
        {
            final Worker worker = workers[w];
            final long fifo = worker.recvPeer() == Worker.NO_PEER ? 0 :
                group.fifo(worker.recvPeer(), rank, worker.channel(), protocol);
            recvFifo[w] = worker.recvPeer() != Worker.NO_PEER && fifo == 0 ? UNRESOLVED : fifo;
        }
        this.totalSteps = steps;
        final java.util.List<CudaProxy> found = new java.util.ArrayList<>();
        for (final Worker worker : workers)
        {
            final CudaProxy out = worker.sendPeer() == Worker.NO_PEER ? null :
                group.proxy(rank, worker.sendPeer(), worker.channel(), protocol);
            final CudaProxy in = worker.recvPeer() == Worker.NO_PEER ? null :
                group.proxy(worker.recvPeer(), rank, worker.channel(), protocol);
            for (final CudaProxy p : new CudaProxy[] {out, in})
            {
                if (p != null && !found.contains(p))
                {
                    found.add(p);
                }
            }
        }
        this.proxies = found.toArray(new CudaProxy[0]);
        this.inputWritten = new boolean[program.layout(BufferKind.INPUT).chunks()];
        this.outputAlias = new int[program.layout(BufferKind.OUTPUT).chunks()];
        for (final BufferKind kind : BufferKind.values())
        {
            final ChunkLayout layout = program.layout(kind);
            chunkStart[kind.ordinal()] = new long[layout == null ? 0 : layout.chunks()];
            chunkLength[kind.ordinal()] = new long[layout == null ? 0 : layout.chunks()];
        }
        int chunks = 0;
        for (final BufferKind kind : BufferKind.values())
        {
            final ChunkLayout layout = program.layout(kind);
            chunks += layout == null ? 0 : layout.chunks();
        }
        blocksOffset = RECORD_BYTES;
        rankTableOffset = blocksOffset + (long)RECORD_BYTES * workers.length;
        chunkTablesOffset = rankTableOffset + 128;
        flagsOffset = chunkTablesOffset + 16L * chunks;
        progressOffset = (flagsOffset + totalSteps + 7) & -8L;
        clockOffset = progressOffset + 8L * workers.length;
        // the step records last: no call changes them, so after the first call only the area before them is copied
        recordsOffset = clockOffset + 16L * workers.length;
        areaBytes = recordsOffset + 4L * StepDescriptor.WIDTH * totalSteps;
        api.setDevice(device);
        this.stream = stream;
        this.active = stream;
        // completion only: an event without timing records for less
        this.done = api.eventCreate(false);
        this.staging = api.mallocHost(areaBytes);
        this.area = api.malloc(areaBytes);
        this.control = api.mallocHost(64);
        this.report = new CudaKernelReport(api, workers);
        this.shared = group.deviceLaunch(device);
        this.abortWord = shared == null ? control : shared.abortWord();
        this.ready = shared == null ? 0 : api.eventCreate(false);
        this.soloSet = DeviceLayout.launchSet(new long[] {area}, new int[] {workers.length});
        UnsafeApi.setMemory(staging, areaBytes, (byte)0);
        UnsafeApi.setMemory(control, 64, (byte)0);
        writeStatic();
    }

    /** The parts of the area no call changes: block records and step records. */
    private void writeStatic()
    {
        long records = recordsOffset;
        long flags = flagsOffset;
        for (int w = 0; w < workers.length; w++)
        {
            final Worker worker = workers[w];
            final long block = staging + blocksOffset + (long)RECORD_BYTES * w;
            UnsafeApi.putLong(block + B_STEPS, area + records);
            UnsafeApi.putLong(block + B_STEP_COUNT, worker.stepCount());
            UnsafeApi.putLong(block + B_FLAGS, area + flags);
            UnsafeApi.putLong(block + B_SEND_FIFO, sendFifo[w]);
            UnsafeApi.putLong(block + B_RECV_FIFO, recvFifo[w] == UNRESOLVED ? 0 : recvFifo[w]);
            UnsafeApi.putLong(block + B_PROGRESS, area + progressOffset);
            UnsafeApi.putLong(block + B_WORKER_INDEX, w);
            UnsafeApi.putLong(block + B_RANK_TABLE, area + rankTableOffset);
            UnsafeApi.putLong(block + B_CLOCK, area + clockOffset + 16L * w);
            final int[] steps = worker.records();
            for (int i = 0; i < steps.length; i++)
            {
                UnsafeApi.putInt(staging + records + 4L * i, steps[i]);
            }
            records += 4L * steps.length;
            flags += worker.stepCount();
        }
        long table = chunkTablesOffset;
        for (final BufferKind kind : BufferKind.values())
        {
            final ChunkLayout layout = program.layout(kind);
            final int chunks = layout == null ? 0 : layout.chunks();
            UnsafeApi.putLong(staging + rankTableOffset + 8L * (3 + kind.ordinal()), area + table);
            UnsafeApi.putLong(staging + rankTableOffset + 8L * (6 + kind.ordinal()), area + table + 8L * chunks);
            table += 16L * chunks;
        }
    }

    @Override
    public void bind(final Call call, final HostReducer reducer, final boolean premulInput, final long inputAddress,
        final long outputAddress, final long scratchAddress, final long inputElements, final long outputElements,
        final int chunkBytes, final long planHash)
    {
        final int elemSize = call.type.byteSize();
        final long[] elements = {inputElements, outputElements, program.scratchElements(inputElements)};
        final long[] bases = {inputAddress, outputAddress, deviceScratch(elements[2] * elemSize)};
        long longestChunk = 0;
        long table = chunkTablesOffset;
        for (final BufferKind kind : BufferKind.values())
        {
            final ChunkLayout layout = program.layout(kind);
            final int b = kind.ordinal();
            UnsafeApi.putLong(staging + rankTableOffset + 8L * b, bases[b]);
            final int chunks = layout == null ? 0 : layout.chunks();
            for (int c = 0; c < chunks; c++)
            {
                final long length = layout.length(elements[b], c);
                chunkStart[b][c] = layout.start(elements[b], c);
                chunkLength[b][c] = length;
                UnsafeApi.putLong(staging + table + 8L * c, chunkStart[b][c]);
                UnsafeApi.putLong(staging + table + 8L * (chunks + c), length);
                longestChunk = Math.max(longestChunk, length);
            }
            table += 16L * chunks;
        }
        final int payload = DeviceLayout.payloadBytes(protocol.ordinal());
        final long pieceCount = DeviceLayout.pieceCount(protocol.ordinal(), chunkBytes, maxChunkCount, elemSize);
        final long iterations = Math.max(1, (longestChunk + pieceCount - 1) / pieceCount);
        if (premulInput)
        {
            final int in = BufferKind.INPUT.ordinal();
            final int out = BufferKind.OUTPUT.ordinal();
            RankExecution.outputAliases(inputAddress, outputAddress, elemSize, chunkStart[in], chunkLength[in],
                chunkStart[out], chunkLength[out], outputAlias);
        }
        writeFlags(premulInput);
        final double scalar = call.op == null ? 0 : call.op.kind() == ReduceOp.Kind.AVG ? 1.0 / ranks :
            call.op.kind() == ReduceOp.Kind.PREMULSUM ? call.op.scalar() : 0;
        UnsafeApi.putLong(staging + L_BLOCKS, workers.length);
        UnsafeApi.putLong(staging + L_ELEM_SIZE, elemSize);
        UnsafeApi.putLong(staging + L_PIECE_COUNT, pieceCount);
        UnsafeApi.putLong(staging + L_ITERATIONS, iterations);
        UnsafeApi.putLong(staging + L_SCALAR_F, Double.doubleToRawLongBits(scalar));
        UnsafeApi.putLong(staging + L_SCALAR_I, Double.isFinite(scalar) ? HostReducer.integerScalar(scalar) : 0);
        UnsafeApi.putLong(staging + L_ABORT_ADDR, abortWord);
        UnsafeApi.putLong(staging + L_TAG, DeviceLayout.slotTag(call.seq, call.shape, planHash));
        UnsafeApi.putLong(staging + L_ERROR_ADDR, control + 8);
        UnsafeApi.putLong(staging + L_PAYLOAD_BYTES, payload);
        // progress counters and the blocks' clocks
        UnsafeApi.setMemory(staging + progressOffset, 24L * workers.length, (byte)0);
        UnsafeApi.putIntVolatile(null, control, 0);
        UnsafeApi.putLongVolatile(null, control + 8, 0);

        seq = call.seq;
        shape = call.shape;
        this.planHash = planHash;
        kernel = call.collective.isReducing() ? KernelNames.interpreter(protocol, call.type, call.op.kind()) :
            KernelNames.interpreterCopy(protocol);
        api.setDevice(device);
        // on the caller's CUDA stream when it gave one (ordered after its earlier work there, as NCCL's calls are),
        // else on this rank's own stream; ranks sharing the device may share one, as they start in one grid
        final long callerStream = call.stream.nativeHandle();
        active = callerStream == 0 ? stream : api.wrapStream(callerStream);
        final boolean divides = dividesAverage(call) && (call.collective != Collective.REDUCE || call.root == rank);
        divideKernel = divides ? KernelNames.divide(call.type) : null;
        divideAddress = outputAddress;
        divideCount = call.count;
        pendingLaunch = true;
        launchWhenConnected();
    }

    /**
     * Launches the bound call once every FIFO is known: a FIFO from a rank of another process of this host (CUDA
     * IPC) is known when that rank's handle has arrived, which can be after this rank's first call is bound; until
     * then the progress engine retries, and nothing blocks.
     *
     * @return 1 when it launched, else 0.
     */
    private int launchWhenConnected()
    {
        for (int w = 0; w < workers.length; w++)
        {
            if (recvFifo[w] == UNRESOLVED)
            {
                final long fifo = group.fifo(workers[w].recvPeer(), rank, workers[w].channel(), protocol);
                if (fifo == 0)
                {
                    return 0;
                }
                recvFifo[w] = fifo;
                UnsafeApi.putLong(staging + blocksOffset + (long)RECORD_BYTES * w + B_RECV_FIFO, fifo);
            }
        }
        api.setDevice(device);
        function = group.function(device, kernel);
        // the first launch copies the step records too; they are ordered before every later call's kernel, which
        // binds only after the calls before it completed
        api.memcpyAsync(area, staging, recordsCopied ? recordsOffset : areaBytes, active);
        recordsCopied = true;
        pendingLaunch = false;
        if (shared == null)
        {
            api.launchInterpreter(function, workers.length, blockThreads(), active, soloSet);
            followLaunch(0, active);
        }
        else
        {
            api.eventRecord(ready, active);
            shared.arrive(this, seq);
        }
        return 1;
    }

    /**
     * What follows the kernel on the call's stream: the stream waits for the grid where another stream ran it, the
     * integer average's division, and the call's completion event.
     *
     * @param gridDone   an event recorded after the grid, or 0 when it ran on this call's stream.
     * @param gridStream the stream the grid ran on.
     */
    void followLaunch(final long gridDone, final long gridStream)
    {
        if (gridDone != 0 && gridStream != active)
        {
            api.streamWaitEvent(active, gridDone);
        }
        if (divideKernel != null)
        {
            final long divide = group.function(device, divideKernel);
            api.launch(divide, Math.max(1, Math.min(1024, (int)((divideCount + 1023) / 1024))), 256, 0, active,
                divideAddress, divideCount, ranks);
        }
        api.eventRecord(done, active);
        launched = true;
    }

    /**
     * @return threads per block: no more than the kernel's launch bound (512), as JCCL_NTHREADS allows up to 640 and
     *         the driver would refuse the launch; the kernel covers its work with any count.
     */
    int blockThreads()
    {
        return Math.min(threads, api.maxThreadsPerBlock(function));
    }

    int rank()
    {
        return rank;
    }

    /** @return the bound call's kernel, once bound. */
    long function()
    {
        return function;
    }

    String kernel()
    {
        return kernel;
    }

    /** @return the device address of this rank's launch record. */
    long launchRecord()
    {
        return area;
    }

    /** @return the blocks this rank's kernel runs: one per worker. */
    int blocks()
    {
        return workers.length;
    }

    /** @return the stream of the bound call. */
    long stream()
    {
        return active;
    }

    /** @return the event recorded after the bound call's records are copied (shared launches). */
    long ready()
    {
        return ready;
    }

    private static boolean dividesAverage(final Call call)
    {
        return call.op != null && call.op.kind() == ReduceOp.Kind.AVG && !call.type.isFloatingPoint();
    }

    /**
     * Premultiplication per step, as the Java executor decides it per piece: a source (or REDUCE's destination)
     * chunk is premultiplied while it still holds the caller's input, that is until an earlier step of this rank
     * wrote it (in place, through the output chunk at the same address). Steps run in order within a worker; the
     * generators never let two workers write the chunks another reads.
     */
    private void writeFlags(final boolean premul)
    {
        final boolean[] written = inputWritten;
        java.util.Arrays.fill(written, false);
        long flags = staging + flagsOffset;
        for (final Worker worker : workers)
        {
            for (int s = 0; s < worker.stepCount(); s++)
            {
                final Opcode op = worker.opcode(s);
                int f = 0;
                final int source = premul && op.readsSource() ? inputChunkOf(worker.field(s,
                    StepDescriptor.SRC_BUFFER), worker.field(s, StepDescriptor.SRC_CHUNK)) : -1;
                final int destination = premul && op == Opcode.REDUCE ? inputChunkOf(worker.field(s,
                    StepDescriptor.DST_BUFFER), worker.field(s, StepDescriptor.DST_CHUNK)) : -1;
                if (source >= 0 && !written[source])
                {
                    f |= FLAG_PREMUL_SOURCE;
                }
                if (destination >= 0 && !written[destination])
                {
                    f |= FLAG_PREMUL_DESTINATION;
                }
                UnsafeApi.putByte(flags++, (byte)f);
                if (premul && op.writesDestination())
                {
                    for (int j = 0; j < worker.field(s, StepDescriptor.CHUNK_COUNT); j++)
                    {
                        final int k = inputChunkOf(worker.field(s, StepDescriptor.DST_BUFFER),
                            worker.field(s, StepDescriptor.DST_CHUNK) + j);
                        if (k >= 0)
                        {
                            written[k] = true;
                        }
                    }
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

    private long deviceScratch(final long bytes)
    {
        if (bytes == 0)
        {
            return 0;
        }
        if (bytes > scratchBytes)
        {
            api.setDevice(device);
            if (scratch != 0)
            {
                // not freed now: cuMemFree waits until the whole device is idle, and peers' kernels launched
                // already wait for this rank's, which is not launched yet (a hang seen on an H200)
                retiredScratch.add(scratch);
            }
            // at least doubling, so that the retired ones together stay smaller than the one in use
            final long grown = scratch == 0 ? bytes : Math.max(bytes, 2 * scratchBytes);
            scratch = api.malloc(grown);
            scratchBytes = grown;
        }
        return scratch;
    }

    @Override
    public boolean ownScratch()
    {
        return true;
    }

    @Override
    public int doWork()
    {
        int work = pendingLaunch ? launchWhenConnected() : 0;
        for (final CudaProxy proxy : proxies)
        {
            work += proxy.doWork(seq, shape, planHash);
        }
        return work;
    }

    @Override
    public boolean isComplete()
    {
        if (!launched)
        {
            return false;
        }
        // any thread may drive progress: the driver wants the device's context current on it
        api.setDevice(device);
        if (!api.eventQuery(done))
        {
            return false;
        }
        for (final CudaProxy proxy : proxies)
        {
            if (!proxy.drained())
            {
                return false;
            }
        }
        final String error = kernelError();
        if (error != null)
        {
            throw new JcclRemoteException(error);
        }
        if (shared != null && UnsafeApi.getIntVolatile(null, abortWord) != 0)
        {
            // stopped with the grid it was launched in, by another rank's kernel
            final String cause = shared.stoppedBy(this);
            throw new JcclRemoteException("the CUDA kernel " + kernel + " of rank " + rank + " was stopped before " +
                "it finished: " + (cause != null ? cause : "the launch it shares with the ranks of this process on " +
                "CUDA device " + device + " was aborted"));
        }
        launched = false;
        return true;
    }

    /** @return what the kernel found wrong with the bound call (it wrote the error word), or null. */
    String kernelError()
    {
        final long error = UnsafeApi.getLongVolatile(null, control + 8);
        return error == 0 ? null : "the CUDA kernel " + kernel + " of rank " + rank + " received from a peer " +
            (error == ERROR_TAG ? "a slot of another call or plan" : "a slot of another length") +
            ": the ranks do not run the same sequence of calls";
    }

    @Override
    public JcclTimeoutException timeout(final long timeoutMs)
    {
        if (pendingLaunch)
        {
            pendingLaunch = false;
            for (int w = 0; w < workers.length; w++)
            {
                if (recvFifo[w] == UNRESOLVED)
                {
                    return new JcclTimeoutException("rank " + rank + " waited " + timeoutMs + " ms for rank " +
                        workers[w].recvPeer() + "'s IPC handle of the FIFO from it (channel " + workers[w].channel() +
                        ") before its first CUDA kernel of the " + program.name() + " program: that rank did not " +
                        "make the same call (JCCL_CUDA_IPC=0 stages through host memory instead)");
                }
            }
        }
        final String missing = shared == null ? null : shared.withdraw(this);
        if (missing != null)
        {
            return new JcclTimeoutException("rank " + rank + " bound call #" + seq + " and waited " + timeoutMs +
                " ms for rank(s) " + missing + " of this process, which share CUDA device " + device + " with it and " +
                "start their kernels in one launch with it (" + program.name() + " program, kernel " + kernel +
                "): they did not make the same call");
        }
        // the whole grid stops where ranks share it: every rank's blocks poll the same flag
        UnsafeApi.putIntVolatile(null, abortWord, 1);
        api.setDevice(device);
        final String prefix = "the CUDA kernel " + kernel + " of rank " + rank + " on device " + device +
            " did not finish within " + timeoutMs + " ms (" + program.name() + " program)";
        if (!stoppedWithin(ABORT_WAIT_NANOS))
        {
            // an aborted kernel returns at its next poll: one that does not has not started, behind earlier work
            return new JcclTimeoutException(prefix + " and did not stop within " + ABORT_WAIT_NANOS / 1_000_000 +
                " ms of its abort: it never started, as earlier work on its stream has not finished (the caller's " +
                "work on a stream it passed, or a kernel of another process sharing the device)");
        }
        launched = false;
        return new JcclTimeoutException(prefix + ": it was aborted; a peer rank did not make the same call. Where " +
            "its workers stood: " + report.read(area + progressOffset, area + clockOffset, sendFifo, recvFifo,
            active));
    }

    /** @return whether the launched call's completion event fired within the time (polled: an abort is quick). */
    private boolean stoppedWithin(final long nanos)
    {
        final long start = System.nanoTime();
        while (!api.eventQuery(done))
        {
            if (System.nanoTime() - start > nanos)
            {
                return false;
            }
            Thread.yield();
        }
        return true;
    }

    @Override
    public void abandon()
    {
        if (shared != null)
        {
            shared.withdraw(this);
        }
        if (launched)
        {
            stopKernel();
            // bounded: a kernel that has not started (behind earlier work) returns at once when it does
            stoppedWithin(ABORT_WAIT_NANOS);
            launched = false;
        }
    }

    /**
     * Raises the abort flag while the launched call runs; not after, where ranks share the flag: a grid that finished
     * must not read as stopped to a rank that has not looked at its call yet.
     */
    private void stopKernel()
    {
        api.setDevice(device);
        if (launched && !api.eventQuery(done))
        {
            UnsafeApi.putIntVolatile(null, abortWord, 1);
        }
    }

    /** Stops a running kernel (abort) and frees the device memory of this executor. */
    void close()
    {
        if (shared != null)
        {
            shared.withdraw(this);
        }
        stopKernel();
        api.streamSynchronize(stream);
        if (active != 0 && active != stream)
        {
            api.streamSynchronize(active);
        }
        api.free(area);
        api.free(scratch);
        retiredScratch.forEach(api::free);
        retiredScratch.clear();
        api.freeHost(staging);
        api.freeHost(control);
        report.close();
        api.eventDestroy(done);
        if (ready != 0)
        {
            api.eventDestroy(ready);
        }
    }

    @Override
    public Protocol protocol()
    {
        return protocol;
    }

    @Override
    public TransportKind transport()
    {
        return TransportKind.P2P;
    }

    @Override
    public int channels()
    {
        return program.channels();
    }

    @Override
    public long slotsSent()
    {
        return 0;
    }

    @Override
    public long bytesStaged()
    {
        return 0;
    }

    @Override
    public long bytesDirect()
    {
        return 0;
    }

    @Override
    public boolean dividesAverage()
    {
        return true;
    }
}
