package io.jccl.kernels.cuda;

import io.jccl.DataType;
import io.jccl.JcclSystemException;
import io.jccl.ReduceOp;
import io.jccl.kernels.HostReducer;
import org.agrona.UnsafeApi;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A device double for machines without a GPU: "device" memory is host memory, streams are queues of operations run
 * in order, and a launch of one of jccl's kernels is run in Java over the same memory the kernel would read (the
 * interpreter kernels by {@link EmulatedInterpreter}, the elementwise kernels by the host reducers). Work advances
 * whenever a thread queries an event or synchronises a stream, one thread at a time, so ranks that wait on each other
 * through their FIFOs all move. Everything above the launch (record encoding, FIFO layout, stream and event order,
 * IPC handle exchange) runs as it would on a GPU. With {@link #runKernelSource} the interpreter launches run the
 * kernel's own source instead, built for the CPU ({@link HostBuiltInterpreter}), on threads of their own.
 * <p>
 * Over 600 lines on purpose: one job, the device double of the whole {@link CudaApi}, one method for each of the
 * driver's calls jccl makes, plus the test hooks a driver has no call for ({@link #hold}, {@link #capture}). The
 * kernels' work lives elsewhere: the Java model in {@link EmulatedInterpreter}, the kernel source's runner in
 * {@link HostBuiltInterpreter}; this class only queues their launches on its streams. Memory other processes map
 * (CUDA IPC) is {@link EmulatedIpc}'s.
 */
public final class EmulatedCuda implements CudaApi
{
    private static final String INTERPRETER = "jccl_interp_";
    /** The driver's limit on any block. */
    private static final int MAX_THREADS = PtxResources.MAX_THREADS_PER_BLOCK;

    private final int devices;
    /** The memory other processes map, and theirs mapped here. */
    private final EmulatedIpc ipc;
    private final int multiprocessors;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicLong nextHandle = new AtomicLong(1);
    private final Map<Long, Long> rawByAligned = new ConcurrentHashMap<>();
    private final Map<Long, EmulatedStream> streams = new ConcurrentHashMap<>();
    private final Map<Long, Long> wrapped = new ConcurrentHashMap<>();
    private final Map<Long, Event> events = new ConcurrentHashMap<>();
    private final Map<Long, String> functions = new ConcurrentHashMap<>();
    private final Map<String, Integer> launchBounds = new ConcurrentHashMap<>();
    private final Map<Long, List<String>> modules = new ConcurrentHashMap<>();
    private final EmulatedStream defaultStream = new EmulatedStream();
    /** The kernel's own source built for the CPU, or null: launches of the interpreter run its Java model. */
    private volatile HostBuiltInterpreter kernelSource;
    /** Host threads per block of a launch through {@link #kernelSource}. */
    private volatile int kernelSourceThreads;
    /** Set when a running kernel moved without finishing: its peers may move now (guarded by the lock). */
    private boolean moved;
    /** Module loads and kernel lookups so far ({@link #loads()}). */
    private final AtomicLong loads = new AtomicLong();
    private final AtomicLong interpreterLaunches = new AtomicLong();
    /** Per thread, its current context ({@link #currentContext}): the primary context's device plus 1, 0 for none. */
    private final ThreadLocal<Long> current = ThreadLocal.withInitial(() -> 0L);
    private final AtomicLong nextContext = new AtomicLong();
    /** Device allocations by address: {bytes, the context current when made}. */
    private final java.util.concurrent.ConcurrentSkipListMap<Long, long[]> allocations =
        new java.util.concurrent.ConcurrentSkipListMap<>();
    /** When queued work last completed or moved ({@link #progress}). */
    private volatile long movedAtNanos = System.nanoTime();
    /** How long {@link #awaitIdle} lets queued work stand still before calling it a hang. */
    private static final long STALL_NANOS = 5_000_000_000L;

    /** One device with 132 multiprocessors (an H200's count). */
    public EmulatedCuda()
    {
        this(1, 132);
    }

    /**
     * @param devices         devices to report.
     * @param multiprocessors multiprocessors per device.
     */
    public EmulatedCuda(final int devices, final int multiprocessors)
    {
        this(devices, multiprocessors, null);
    }

    private EmulatedCuda(final int devices, final int multiprocessors, final java.nio.file.Path shareDirectory)
    {
        this.devices = devices;
        this.multiprocessors = multiprocessors;
        this.ipc = new EmulatedIpc(shareDirectory);
    }

    /**
     * A double whose device memory other processes can map, as CUDA IPC maps a device allocation into another
     * process: each {@link #malloc} is a file in the directory (named after this process's pid, deleted when freed,
     * and deleted by the next such double when its process died), so {@link #ipcHandle} and {@link #ipcOpen} work
     * across processes. Pinned host memory stays private.
     *
     * @param directory where the allocations live, {@code /dev/shm} for memory.
     * @return one device with 132 multiprocessors.
     */
    public static EmulatedCuda shareable(final java.nio.file.Path directory)
    {
        return new EmulatedCuda(1, 132, directory);
    }

    /**
     * Runs launches of the interpreter kernel through its own source built for the CPU instead of
     * {@link EmulatedInterpreter}'s model: every block's threads as host threads, all at once, as a GPU runs them.
     *
     * @param interpreter the built kernel source.
     * @param threads     host threads per block, at most the launch's own count: the kernel covers its work with
     *                    any count, and a test machine's few cores run a few threads per block far sooner than 512.
     * @return this.
     */
    public EmulatedCuda runKernelSource(final HostBuiltInterpreter interpreter, final int threads)
    {
        if (threads < 1)
        {
            throw new IllegalArgumentException("threads=" + threads + " must be at least 1");
        }
        this.kernelSourceThreads = threads;
        this.kernelSource = interpreter;
        return this;
    }

    @Override
    public String name()
    {
        return "emulated-cuda";
    }

    @Override
    public int driverVersion()
    {
        return 12060;
    }

    @Override
    public int deviceCount()
    {
        return devices;
    }

    @Override
    public String deviceName(final int device)
    {
        checkDevice(device);
        return "emulated device " + device;
    }

    @Override
    public int multiprocessorCount(final int device)
    {
        checkDevice(device);
        return multiprocessors;
    }

    @Override
    public String pciBusId(final int device)
    {
        checkDevice(device);
        return String.format(java.util.Locale.ROOT, "0000:%02x:00", device);
    }

    @Override
    public void setDevice(final int device)
    {
        checkDevice(device);
        current.set((long)device + 1);
    }

    /** @return the calling thread's current device's primary context, as a token: the device plus 1, 0 for none. */
    @Override
    public long currentContext()
    {
        return current.get();
    }

    @Override
    public void makeCurrent(final long context)
    {
        if (context != 0)
        {
            checkDevice((int)context - 1);
        }
        current.set(context);
    }

    @Override
    public long primaryContext(final int device)
    {
        checkDevice(device);
        return device + 1;
    }

    /**
     * Emulates {@code cuCtxCreate}: a context of the device other than its primary one, for tests of memory allocated
     * there. Its token's low 32 bits are the device plus 1, as the primary context's token is.
     *
     * @param device the device.
     * @return the new context's token, for {@link #makeCurrent}.
     */
    public long createContext(final int device)
    {
        checkDevice(device);
        return (nextContext.incrementAndGet() << 32) | (device + 1);
    }

    @Override
    public long pointerContext(final long address)
    {
        final Map.Entry<Long, long[]> allocation = allocations.floorEntry(address);
        return allocation != null && address < allocation.getKey() + allocation.getValue()[0] ?
            allocation.getValue()[1] : 0;
    }

    private void checkDevice(final int device)
    {
        if (device < 0 || device >= devices)
        {
            throw new JcclSystemException("emulated CUDA: device " + device + " does not exist (" + devices +
                " devices)");
        }
    }

    @Override
    public long malloc(final long bytes)
    {
        if (bytes < 1)
        {
            throw new JcclSystemException("emulated CUDA: malloc of " + bytes + " bytes");
        }
        final long mapped = ipc.allocate(bytes);
        final long address = mapped != 0 ? mapped : privateMemory(bytes);
        allocations.put(address, new long[] {bytes, current.get()});
        return address;
    }

    private long privateMemory(final long bytes)
    {
        final long raw = UnsafeApi.allocateMemory(bytes + 256);
        final long aligned = (raw + 255) & -256L;
        // device memory is not zeroed; fill it with a pattern so that code relying on zeros fails here too
        UnsafeApi.setMemory(aligned, bytes, EmulatedIpc.FILL);
        rawByAligned.put(aligned, raw);
        return aligned;
    }

    @Override
    public void free(final long pointer)
    {
        if (pointer == 0)
        {
            return;
        }
        awaitIdle("cuMemFree");
        if (ipc.free(pointer))
        {
            allocations.remove(pointer);
            return;
        }
        final Long raw = rawByAligned.remove(pointer);
        if (raw == null)
        {
            throw new JcclSystemException("emulated CUDA: free of 0x" + Long.toHexString(pointer) +
                ", not an allocation");
        }
        allocations.remove(pointer);
        UnsafeApi.freeMemory(raw);
    }

    @Override
    public long mallocHost(final long bytes)
    {
        if (bytes < 1)
        {
            throw new JcclSystemException("emulated CUDA: mallocHost of " + bytes + " bytes");
        }
        return privateMemory(bytes);
    }

    @Override
    public void freeHost(final long address)
    {
        free(address);
    }

    /**
     * Work on the legacy default stream (0) waits here until the device has run everything queued on it. CUDA
     * documents that only for blocking streams, but an H200 hung where one rank zeroed a new FIFO on stream 0 while
     * another rank's kernel (on a non-blocking stream) waited for this rank's: treated as a wait for the device.
     */
    private void legacyStreamWaits(final long stream, final String call)
    {
        if (stream == 0)
        {
            awaitIdle(call + " on the legacy default stream");
        }
    }

    /**
     * @return how many modules were loaded and kernels looked up on this double: each of them waits until the device
     *         is idle on a real one, so code that must not wait then can count them.
     */
    public long loads()
    {
        return loads.get();
    }

    /**
     * As cuMemFree, cuMemFreeHost and module loading do, waits until the device has run everything queued on it.
     * Queued work that cannot finish (a kernel waiting for a peer's kernel that the caller has not launched yet) would
     * hang a real device there; here it is an error once nothing has moved for {@link #STALL_NANOS}.
     */
    private void awaitIdle(final String call)
    {
        while (!defaultStream.isEmpty() || streams.values().stream().anyMatch(s -> !s.isEmpty()))
        {
            if (progress() == 0)
            {
                if (System.nanoTime() - movedAtNanos > STALL_NANOS)
                {
                    throw new JcclSystemException("emulated CUDA: " + call + " waits until the device is idle, " +
                        "and the kernels queued on it cannot finish: a real device hangs here (a kernel waiting " +
                        "for a peer's kernel that is not launched yet)");
                }
                Thread.yield();
            }
        }
    }

    @Override
    public void memcpyAsync(final long dst, final long src, final long bytes, final long stream)
    {
        legacyStreamWaits(stream, "cuMemcpyAsync");
        stream(stream).add(() ->
        {
            UnsafeApi.copyMemory(src, dst, bytes);
            return true;
        });
    }

    @Override
    public void memsetAsync(final long dst, final int value, final long bytes, final long stream)
    {
        legacyStreamWaits(stream, "cuMemsetD8Async");
        stream(stream).add(() ->
        {
            UnsafeApi.setMemory(dst, bytes, (byte)value);
            return true;
        });
    }

    @Override
    public long streamCreate()
    {
        final long handle = nextHandle.getAndIncrement();
        streams.put(handle, new EmulatedStream());
        return handle;
    }

    @Override
    public long wrapStream(final long nativeHandle)
    {
        if (nativeHandle == 0)
        {
            throw new JcclSystemException("emulated CUDA: wrapStream(0): the legacy default stream is 0 already");
        }
        return wrapped.computeIfAbsent(nativeHandle, n -> streamCreate());
    }

    @Override
    public void streamDestroy(final long stream)
    {
        if (stream != 0)
        {
            streams.remove(stream);
        }
    }

    @Override
    public void streamSynchronize(final long stream)
    {
        final EmulatedStream s = stream(stream);
        while (!s.isEmpty())
        {
            if (progress() == 0)
            {
                Thread.yield();
            }
        }
    }

    @Override
    public long eventCreate(final boolean timing)
    {
        final long handle = nextHandle.getAndIncrement();
        final Event event = new Event();
        event.timing = timing;
        events.put(handle, event);
        return handle;
    }

    @Override
    public void eventDestroy(final long event)
    {
        events.remove(event);
    }

    @Override
    public void eventRecord(final long event, final long stream)
    {
        final Event e = event(event);
        e.pending.incrementAndGet();
        stream(stream).add(() ->
        {
            e.atNanos = System.nanoTime();
            e.pending.decrementAndGet();
            return true;
        });
    }

    @Override
    public boolean eventQuery(final long event)
    {
        final Event e = event(event);
        if (e.pending.get() != 0)
        {
            progress();
        }
        return e.pending.get() == 0;
    }

    @Override
    public float eventElapsedMs(final long start, final long end)
    {
        final Event first = event(start);
        final Event last = event(end);
        if (!first.timing || !last.timing)
        {
            throw new JcclSystemException("emulated CUDA: cuEventElapsedTime failed: CUDA_ERROR_INVALID_HANDLE (an " +
                "event made without timing)");
        }
        return (last.atNanos - first.atNanos) / 1e6f;
    }

    @Override
    public void streamWaitEvent(final long stream, final long event)
    {
        final Event e = event(event);
        if (e.pending.get() == 0)
        {
            return;
        }
        // waits for the event's pending records as queued now (an approximation of CUDA's "most recent record")
        stream(stream).add(() -> e.pending.get() == 0);
    }

    @Override
    public long moduleLoad(final String ptx)
    {
        awaitIdle("cuModuleLoadData");
        loads.incrementAndGet();
        final Map<String, Integer> bounds = PtxResources.launchBounds(ptx);
        launchBounds.putAll(bounds);
        final List<String> names = new ArrayList<>(bounds.keySet());
        final long handle = nextHandle.getAndIncrement();
        modules.put(handle, names);
        return handle;
    }

    @Override
    public long function(final long module, final String name)
    {
        // under lazy loading a kernel is loaded when first looked up or launched, which waits as a module load does
        awaitIdle("cuModuleGetFunction");
        loads.incrementAndGet();
        final List<String> names = modules.get(module);
        if (names == null || !names.contains(name))
        {
            throw new JcclSystemException("emulated CUDA: cuModuleGetFunction(" + name +
                ") failed: CUDA_ERROR_NOT_FOUND");
        }
        final long handle = nextHandle.getAndIncrement();
        functions.put(handle, name);
        return handle;
    }

    @Override
    public int maxThreadsPerBlock(final long function)
    {
        final String name = functions.get(function);
        if (name == null)
        {
            throw new JcclSystemException("emulated CUDA: cuFuncGetAttribute of an unknown function " + function);
        }
        return launchBounds.getOrDefault(name, MAX_THREADS);
    }

    @Override
    public void launch(final long function, final int blocks, final int threads, final int sharedBytes,
        final long stream, final long... args)
    {
        final String name = functions.get(function);
        if (name == null)
        {
            throw new JcclSystemException("emulated CUDA: launch of an unknown function " + function);
        }
        if (blocks < 1 || threads < 1 || threads > maxThreadsPerBlock(function))
        {
            throw new JcclSystemException("emulated CUDA: cuLaunchKernel(" + name + ", blocks=" + blocks +
                ", threads=" + threads + ") failed: CUDA_ERROR_INVALID_VALUE");
        }
        if (name.startsWith(INTERPRETER))
        {
            throw new JcclSystemException("emulated CUDA: " + name + " takes a launch set by value " +
                "(launchInterpreter), not " + args.length + " 8-byte parameters");
        }
        stream(stream).add(kernel(name, args));
    }

    @Override
    public void launchInterpreter(final long function, final int blocks, final int threads, final long stream,
        final long[] launchSet)
    {
        final String name = functions.get(function);
        if (name == null || !name.startsWith(INTERPRETER))
        {
            throw new JcclSystemException("emulated CUDA: launchInterpreter of " + (name == null ? "an unknown " +
                "function " + function : name + ", not an interpreter kernel"));
        }
        if (blocks < 1 || threads < 1 || threads > maxThreadsPerBlock(function))
        {
            throw new JcclSystemException("emulated CUDA: cuLaunchCooperativeKernel(" + name + ", blocks=" + blocks +
                ", threads=" + threads + ") failed: CUDA_ERROR_INVALID_VALUE");
        }
        // one block of an interpreter kernel per multiprocessor (its launch bound's minimum of 1 with the registers
        // it uses): a larger cooperative grid could not be resident at once, and the driver refuses it
        if (blocks > multiprocessors)
        {
            throw new JcclSystemException("emulated CUDA: cuLaunchCooperativeKernel(" + name + ", blocks=" + blocks +
                ", threads=" + threads + ") failed: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (" + multiprocessors +
                " multiprocessors)");
        }
        interpreterLaunches.incrementAndGet();
        stream(stream).add(interpreter(name, blocks, threads, launchSet.clone()));
    }

    /** @return how many interpreter kernels were launched ({@link #launchInterpreter}), each one grid. */
    public long interpreterLaunches()
    {
        return interpreterLaunches.get();
    }

    @Override
    public byte[] ipcHandle(final long pointer)
    {
        if (!rawByAligned.containsKey(pointer) && !ipc.maps(pointer))
        {
            throw new JcclSystemException("emulated CUDA: cuIpcGetMemHandle of 0x" + Long.toHexString(pointer) +
                ", not the start of an allocation");
        }
        return ipc.handle(pointer);
    }

    @Override
    public long ipcOpen(final byte[] handle)
    {
        return ipc.open(handle);
    }

    @Override
    public void ipcClose(final long pointer)
    {
        ipc.close(pointer);
    }

    @Override
    public boolean enablePeerAccess(final int peer)
    {
        checkDevice(peer);
        return true;
    }

    /**
     * Holds or releases a stream's queue (a test hook, as a stream waiting on a value would): while held, nothing
     * queued on it runs, so tests can prove what was ordered behind what.
     *
     * @param stream a stream handle.
     * @param held   true to hold it, false to let it run.
     */
    public void hold(final long stream, final boolean held)
    {
        stream(stream).held = held;
    }

    /**
     * Marks a stream as capturing into a CUDA graph or not (a test hook, as {@code cudaStreamBeginCapture} would).
     *
     * @param stream    a stream handle.
     * @param capturing whether it captures.
     */
    public void capture(final long stream, final boolean capturing)
    {
        stream(stream).capturing = capturing;
    }

    @Override
    public boolean streamCapturing(final long stream)
    {
        return stream(stream).capturing;
    }

    /**
     * Runs queued work as far as it goes, if no other thread is doing so.
     *
     * @return operations completed.
     */
    public int progress()
    {
        if (!lock.tryLock())
        {
            return 0;
        }
        try
        {
            int total = 0;
            int done;
            do
            {
                moved = false;
                done = defaultStream.advance();
                for (final EmulatedStream s : streams.values())
                {
                    done += s.advance();
                }
                total += done;
                if (done > 0 || moved)
                {
                    movedAtNanos = System.nanoTime();
                }
            }
            while (done > 0 || moved);
            return total;
        }
        finally
        {
            lock.unlock();
        }
    }

    private EmulatedStream stream(final long stream)
    {
        if (stream == 0)
        {
            return defaultStream;
        }
        final EmulatedStream s = streams.get(stream);
        if (s == null)
        {
            throw new JcclSystemException("emulated CUDA: stream " + stream + " does not exist");
        }
        return s;
    }

    private Event event(final long event)
    {
        final Event e = events.get(event);
        if (e == null)
        {
            throw new JcclSystemException("emulated CUDA: event " + event + " does not exist");
        }
        return e;
    }

    private Operation interpreter(final String name, final int blocks, final int threads, final long[] set)
    {
        final HostBuiltInterpreter source = kernelSource;
        if (source != null)
        {
            final int hostThreads = Math.min(threads, kernelSourceThreads);
            final long[] run = new long[1];
            return () ->
            {
                // started when it reaches the head of its stream, after the copies queued before it
                if (run[0] == 0)
                {
                    run[0] = source.start(name, set, blocks, hostThreads);
                }
                if (!source.done(run[0]))
                {
                    // it runs on threads of its own: not a stall while it does
                    movedAtNanos = System.nanoTime();
                    return false;
                }
                source.join(run[0]);
                return true;
            };
        }
        final String[] parts = name.substring(INTERPRETER.length()).split("_");
        final int protocol = "simple".equals(parts[0]) ? 0 : 1;
        final DataType type = "copy".equals(parts[1]) ? null : KernelNames.type(parts[1]);
        final ReduceOp.Kind kind = type == null ? null : KernelNames.kind(parts[2]);
        final long[] launches = DeviceLayout.launchesOf(set);
        final int[] blocksOf = DeviceLayout.blocksOf(set, blocks);
        final EmulatedInterpreter[] ranks = new EmulatedInterpreter[launches.length];
        return () ->
        {
            // the launch records are read when the kernel starts, after the copies queued before it
            boolean done = true;
            for (int r = 0; r < ranks.length; r++)
            {
                if (ranks[r] == null)
                {
                    ranks[r] = new EmulatedInterpreter(protocol, type, kind, launches[r], blocksOf[r]);
                }
                done &= ranks[r].advance();
                moved |= ranks[r].moved();
            }
            return done;
        };
    }

    private Operation kernel(final String name, final long[] args)
    {
        if ("jccl_copy".equals(name))
        {
            return () ->
            {
                UnsafeApi.copyMemory(args[0], args[1], args[2]);
                return true;
            };
        }
        final String[] parts = name.split("_");
        final DataType type = KernelNames.type(parts[2]);
        return switch (parts[1])
        {
            case "reduce" -> () ->
            {
                final ReduceOp.Kind kind = KernelNames.kind(parts[3]);
                final HostReducer reducer = HostReducer.of(type, kind, Double.longBitsToDouble(args[4]));
                reducer.reduce(args[0], true, args[1], true, args[2], args[3]);
                return true;
            };
            case "scale" -> () ->
            {
                HostReducer.of(type, ReduceOp.Kind.PREMULSUM, Double.longBitsToDouble(args[3]))
                    .copy(args[0], true, args[1], args[2]);
                return true;
            };
            case "divide" -> () ->
            {
                HostReducer.of(type, ReduceOp.Kind.SUM, 0).divide(args[0], args[1], args[2]);
                return true;
            };
            default -> throw new JcclSystemException("emulated CUDA: no emulation of kernel " + name);
        };
    }

    /** Queued work: returns true when done, false when it must wait (it is retried). */
    @FunctionalInterface
    interface Operation
    {
        boolean run();
    }

    private static final class Event
    {
        final AtomicLong pending = new AtomicLong();
        volatile long atNanos;
        boolean timing;
    }

    private static final class EmulatedStream
    {
        private final ArrayDeque<Operation> queue = new ArrayDeque<>();
        volatile boolean held;
        volatile boolean capturing;

        synchronized void add(final Operation op)
        {
            queue.add(op);
        }

        synchronized boolean isEmpty()
        {
            return queue.isEmpty();
        }

        /** Runs head operations until one must wait; called under the emulator's lock. */
        int advance()
        {
            int done = 0;
            while (!held)
            {
                final Operation head;
                synchronized (this)
                {
                    head = queue.peek();
                }
                if (head == null || !head.run())
                {
                    return done;
                }
                synchronized (this)
                {
                    queue.poll();
                }
                done++;
            }
            return done;
        }
    }
}
