package io.jccl.kernels.cuda;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUipcMemHandle;
import jcuda.driver.CUipcMem_flags;
import jcuda.driver.CUmodule;
import jcuda.driver.CUpointer_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link CudaApi} over the real driver, through JCuda's driver API ({@link JCudaDriver}) with JCuda's exceptions
 * off: every {@code CUresult} is checked here and a failure becomes a {@link JcclSystemException} naming the call,
 * the CUDA error and the arguments that matter. Get the instance from {@link CudaProbe#api()}, which makes sure the
 * driver loaded and has a device.
 * <p>
 * Handles: device pointers and pinned host memory are their raw addresses (JCuda passes a {@code CUdeviceptr}'s
 * native pointer plus its byte offset, so {@code new CUdeviceptr().withByteOffset(address)} stands for any
 * address). Streams, events, modules and functions are ids (from 1; 0 is the default stream) into registries of
 * JCuda's objects. Primary contexts are retained once per device and never released: the driver frees them when the
 * process ends.
 * <p>
 * Threading: every method may be called from any thread at once. A CUDA context is current per thread, so each
 * thread calls {@link #setDevice(int)} before its first device call; a call without a current context fails with
 * {@code CUDA_ERROR_INVALID_CONTEXT} and says so. Successful calls build no strings; each still allocates a few small
 * JCuda objects, as JCuda's API requires.
 * <p>
 * Over 600 lines on purpose: one job, the whole {@link CudaApi} over JCuda's driver API, one method for each call.
 */
public final class JCudaApi implements CudaApi
{
    /** {@code CUDA_ERROR_INSUFFICIENT_DRIVER}, which JCuda 12.6.0's {@link CUresult} does not name. */
    static final int CUDA_ERROR_INSUFFICIENT_DRIVER = 35;

    /**
     * The largest pinned host allocation: JCuda's {@code cuMemHostAlloc} wraps the memory in a direct
     * {@code ByteBuffer}, whose capacity is an int.
     */
    static final long MAX_HOST_BYTES = Integer.MAX_VALUE;

    private static final int DEVICE_NAME_BYTES = 256;

    private final AtomicLong nextHandle = new AtomicLong(1);
    private final ConcurrentHashMap<Long, CUstream> streams = new ConcurrentHashMap<>();
    /** Handles of foreign streams ({@link #wrapStream}) by their native address. */
    private final ConcurrentHashMap<Long, Long> wrappedStreams = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, CUevent> events = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, CUmodule> modules = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, CUfunction> functions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Integer> maxThreadsPerBlock = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, ContextPointer> primaryContexts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, Boolean> cooperativeDevices = new ConcurrentHashMap<>();
    /** Contexts seen current on a thread, by address, to make them current again ({@link #makeCurrent}). */
    private final ConcurrentHashMap<Long, CUcontext> contexts = new ConcurrentHashMap<>();

    /**
     * Initialises the driver ({@code cuInit(0)}, harmless when already done).
     *
     * @throws JcclSystemException when the driver does not initialise.
     */
    JCudaApi()
    {
        JCudaDriver.setExceptionsEnabled(false);
        final int result = JCudaDriver.cuInit(0);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuInit(0)", result);
        }
    }

    @Override
    public String name()
    {
        return "cuda";
    }

    @Override
    public int driverVersion()
    {
        final int[] version = new int[1];
        final int result = JCudaDriver.cuDriverGetVersion(version);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuDriverGetVersion", result);
        }
        return version[0];
    }

    @Override
    public int deviceCount()
    {
        final int[] count = new int[1];
        final int result = JCudaDriver.cuDeviceGetCount(count);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuDeviceGetCount", result);
        }
        return count[0];
    }

    @Override
    public String deviceName(final int device)
    {
        final byte[] name = new byte[DEVICE_NAME_BYTES];
        final int result = JCudaDriver.cuDeviceGetName(name, name.length, device(device));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuDeviceGetName(device=" + device + ")", result);
        }
        int length = 0;
        while (length < name.length && name[length] != 0)
        {
            length++;
        }
        return new String(name, 0, length, StandardCharsets.US_ASCII);
    }

    @Override
    public int multiprocessorCount(final int device)
    {
        return attribute(device, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT");
    }

    @Override
    public String pciBusId(final int device)
    {
        final int domain = attribute(device, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
            "CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID");
        final int bus = attribute(device, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
            "CU_DEVICE_ATTRIBUTE_PCI_BUS_ID");
        final int slot = attribute(device, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,
            "CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID");
        return String.format(java.util.Locale.ROOT, "%04x:%02x:%02x", domain, bus, slot);
    }

    private int attribute(final int device, final int attribute, final String name)
    {
        final int[] value = new int[1];
        final int result = JCudaDriver.cuDeviceGetAttribute(value, attribute, device(device));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuDeviceGetAttribute(" + name + ", device=" + device + ")", result);
        }
        return value[0];
    }

    @Override
    public void setDevice(final int device)
    {
        final CUcontext context = primary(device);
        final int result = JCudaDriver.cuCtxSetCurrent(context);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuCtxSetCurrent(primary context of device " + device + ")", result);
        }
    }

    @Override
    public long currentContext()
    {
        final ContextPointer context = new ContextPointer();
        final int result = JCudaDriver.cuCtxGetCurrent(context);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuCtxGetCurrent", result);
        }
        final long address = context.address();
        if (address != 0)
        {
            // kept to make it current again: a process has a handful of contexts
            contexts.putIfAbsent(address, context);
        }
        return address;
    }

    @Override
    public void makeCurrent(final long context)
    {
        final CUcontext known = context == 0 ? new CUcontext() : contexts.get(context);
        if (known == null)
        {
            throw new JcclInvalidArgumentException("makeCurrent: context 0x" + Long.toHexString(context) + " is not " +
                "a token of currentContext()");
        }
        final int result = JCudaDriver.cuCtxSetCurrent(known);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuCtxSetCurrent(0x" + Long.toHexString(context) + ")", result);
        }
    }

    @Override
    public long primaryContext(final int device)
    {
        return primary(device).address();
    }

    @Override
    public long pointerContext(final long address)
    {
        final long[] context = new long[1];
        final int result = JCudaDriver.cuPointerGetAttribute(Pointer.to(context),
            CUpointer_attribute.CU_POINTER_ATTRIBUTE_CONTEXT, at(address));
        // CUDA_ERROR_INVALID_VALUE: memory the driver did not allocate or register
        return result == CUresult.CUDA_SUCCESS ? context[0] : 0;
    }

    @Override
    public long malloc(final long bytes)
    {
        if (bytes < 1)
        {
            throw new JcclInvalidArgumentException("malloc: bytes=" + bytes + " is not positive");
        }
        final AddressPointer pointer = new AddressPointer();
        final int result = JCudaDriver.cuMemAlloc(pointer, bytes);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuMemAlloc(bytes=" + bytes + ")", result);
        }
        return pointer.address();
    }

    @Override
    public void free(final long pointer)
    {
        if (pointer == 0)
        {
            return;
        }
        final int result = JCudaDriver.cuMemFree(at(pointer));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuMemFree(pointer=" + hex(pointer) + ")", result);
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Allocated with {@code cuMemHostAlloc(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP)}: pinned for every
     * context and mapped into the devices' address space (with unified addressing the device address is the host
     * address). At most {@link Integer#MAX_VALUE} bytes per allocation, since JCuda wraps the memory in a direct
     * {@code ByteBuffer}.
     */
    @Override
    public long mallocHost(final long bytes)
    {
        if (bytes < 1 || bytes > MAX_HOST_BYTES)
        {
            throw new JcclInvalidArgumentException("mallocHost: bytes=" + bytes + " is outside 1.." +
                MAX_HOST_BYTES + " (JCuda's cuMemHostAlloc wraps the memory in a ByteBuffer, whose capacity is an " +
                "int): allocate several buffers");
        }
        final HostPointer pointer = new HostPointer();
        final int result = JCudaDriver.cuMemHostAlloc(
            pointer, bytes, JCudaDriver.CU_MEMHOSTALLOC_PORTABLE | JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuMemHostAlloc(bytes=" + bytes + ", PORTABLE|DEVICEMAP)", result);
        }
        return pointer.address();
    }

    @Override
    public void freeHost(final long address)
    {
        if (address == 0)
        {
            return;
        }
        final int result = JCudaDriver.cuMemFreeHost(new Pointer().withByteOffset(address));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuMemFreeHost(address=" + hex(address) + ")", result);
        }
    }

    @Override
    public void memcpyAsync(final long dst, final long src, final long bytes, final long stream)
    {
        final int result = JCudaDriver.cuMemcpyAsync(at(dst), at(src), bytes, stream(stream));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuMemcpyAsync(dst=" + hex(dst) + ", src=" + hex(src) + ", bytes=" + bytes + ", stream=" +
                stream + ")", result);
        }
    }

    @Override
    public void memsetAsync(final long dst, final int value, final long bytes, final long stream)
    {
        final int result = JCudaDriver.cuMemsetD8Async(at(dst), (byte)value, bytes, stream(stream));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuMemsetD8Async(dst=" + hex(dst) + ", value=" + value + ", bytes=" + bytes +
                ", stream=" + stream + ")", result);
        }
    }

    @Override
    public long wrapStream(final long nativeHandle)
    {
        if (nativeHandle == 0)
        {
            throw new JcclInvalidArgumentException("wrapStream: nativeHandle is 0 (the legacy default stream, which " +
                "is stream 0 here already)");
        }
        return wrappedStreams.computeIfAbsent(nativeHandle, n -> register(streams, foreignStream(n)));
    }

    @Override
    public boolean streamCapturing(final long stream)
    {
        final int[] status = new int[1];
        final int result = JCudaDriver.cuStreamIsCapturing(stream == 0 ? null : lookup(streams, stream, "stream"),
            status);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuStreamIsCapturing(stream=" + stream + ")", result);
        }
        return status[0] != jcuda.driver.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE;
    }

    /**
     * @return a CUstream over a raw handle: JCuda offers no public constructor from an address, so its private
     *         native pointer is set by reflection (as for IPC handles; no JVM flag is needed)
     */
    private static CUstream foreignStream(final long nativeHandle)
    {
        try
        {
            final java.lang.reflect.Field pointer = jcuda.NativePointerObject.class.getDeclaredField("nativePointer");
            pointer.setAccessible(true);
            final CUstream stream = new CUstream();
            pointer.setLong(stream, nativeHandle);
            return stream;
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            throw new JcclSystemException("wrapStream: cannot set JCuda's CUstream to 0x" +
                Long.toHexString(nativeHandle) + ": " + ex, ex);
        }
    }

    @Override
    public long streamCreate()
    {
        final CUstream stream = new CUstream();
        final int result = JCudaDriver.cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuStreamCreate(CU_STREAM_NON_BLOCKING)", result);
        }
        return register(streams, stream);
    }

    @Override
    public void streamDestroy(final long stream)
    {
        if (stream == 0)
        {
            return;
        }
        final int result = JCudaDriver.cuStreamDestroy(lookup(streams, stream, "stream"));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuStreamDestroy(stream=" + stream + ")", result);
        }
        streams.remove(stream);
    }

    @Override
    public void streamSynchronize(final long stream)
    {
        final int result = JCudaDriver.cuStreamSynchronize(stream(stream));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuStreamSynchronize(stream=" + stream + ")", result);
        }
    }

    @Override
    public long eventCreate(final boolean timing)
    {
        final CUevent event = new CUevent();
        final int flags = timing ? CUevent_flags.CU_EVENT_DEFAULT : CUevent_flags.CU_EVENT_DISABLE_TIMING;
        final int result = JCudaDriver.cuEventCreate(event, flags);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuEventCreate(" + (timing ? "CU_EVENT_DEFAULT" : "CU_EVENT_DISABLE_TIMING") + ")",
                result);
        }
        return register(events, event);
    }

    @Override
    public void eventDestroy(final long event)
    {
        if (event == 0)
        {
            return;
        }
        final int result = JCudaDriver.cuEventDestroy(lookup(events, event, "event"));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuEventDestroy(event=" + event + ")", result);
        }
        events.remove(event);
    }

    @Override
    public void eventRecord(final long event, final long stream)
    {
        final int result = JCudaDriver.cuEventRecord(lookup(events, event, "event"), stream(stream));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuEventRecord(event=" + event + ", stream=" + stream + ")", result);
        }
    }

    @Override
    public boolean eventQuery(final long event)
    {
        final int result = JCudaDriver.cuEventQuery(lookup(events, event, "event"));
        if (result == CUresult.CUDA_SUCCESS)
        {
            return true;
        }
        if (result == CUresult.CUDA_ERROR_NOT_READY)
        {
            return false;
        }
        throw failure("cuEventQuery(event=" + event + ")", result);
    }

    @Override
    public float eventElapsedMs(final long start, final long end)
    {
        final float[] milliseconds = new float[1];
        final int result = JCudaDriver.cuEventElapsedTime(
            milliseconds, lookup(events, start, "start"), lookup(events, end, "end"));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuEventElapsedTime(start=" + start + ", end=" + end + ")", result);
        }
        return milliseconds[0];
    }

    @Override
    public void streamWaitEvent(final long stream, final long event)
    {
        final int result = JCudaDriver.cuStreamWaitEvent(stream(stream), lookup(events, event, "event"), 0);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuStreamWaitEvent(stream=" + stream + ", event=" + event + ")", result);
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Through {@code cuModuleLoadData}, which JIT-compiles the PTX for the current device; a driver older than the
     * PTX's {@code .version} answers {@code CUDA_ERROR_UNSUPPORTED_PTX_VERSION}, and the message then names the
     * PTX's {@code .version} and {@code .target} beside the driver's version.
     */
    @Override
    public long moduleLoad(final String ptx)
    {
        if (ptx == null || ptx.isEmpty())
        {
            throw new JcclInvalidArgumentException("moduleLoad: ptx is " + (ptx == null ? "null" : "empty"));
        }
        final CUmodule module = new CUmodule();
        // the String overload appends the terminating 0 byte that the driver needs
        final int result = JCudaDriver.cuModuleLoadData(module, ptx);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuModuleLoadData(" + ptxHeader(ptx) + ", " + ptx.length() + " chars; driver " +
                versionText(driverVersionOrZero()) + ")", result);
        }
        return register(modules, module);
    }

    @Override
    public long function(final long module, final String name)
    {
        if (name == null)
        {
            throw new JcclInvalidArgumentException("function: name is null");
        }
        final CUfunction function = new CUfunction();
        final int result = JCudaDriver.cuModuleGetFunction(function, lookup(modules, module, "module"), name);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuModuleGetFunction(module=" + module + ", name=" + name + ")", result);
        }
        // under lazy loading (CUDA 12.2 on) the handle may be only partly loaded, and the driver would finish loading
        // it at the first launch, waiting for the device to be idle; reading an attribute loads it now
        final int[] maxThreads = new int[1];
        final int loaded = JCudaDriver.cuFuncGetAttribute(maxThreads,
            CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
        if (loaded != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuFuncGetAttribute(" + name + ", CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)", loaded);
        }
        final long handle = register(functions, function);
        maxThreadsPerBlock.put(handle, maxThreads[0]);
        return handle;
    }

    @Override
    public int maxThreadsPerBlock(final long function)
    {
        final Integer max = maxThreadsPerBlock.get(function);
        if (max == null)
        {
            throw new JcclInvalidArgumentException("function " + function + " is not a loaded function");
        }
        return max;
    }

    @Override
    public void launch(final long function, final int blocks, final int threads, final int sharedBytes,
        final long stream, final long... args)
    {
        final CUfunction kernel = lookup(functions, function, "function");
        // kernelParams is an array of pointers, one per parameter, each to that parameter's 8 bytes
        Pointer kernelParams = null;
        if (args.length > 0)
        {
            final Pointer[] params = new Pointer[args.length];
            for (int i = 0; i < args.length; i++)
            {
                params[i] = Pointer.to(new long[] { args[i] });
            }
            kernelParams = Pointer.to(params);
        }
        final int result = JCudaDriver.cuLaunchKernel(
            kernel, blocks, 1, 1, threads, 1, 1, sharedBytes, stream(stream), kernelParams, null);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuLaunchKernel(function=" + function + ", blocks=" + blocks + ", threads=" + threads +
                ", sharedBytes=" + sharedBytes + ", stream=" + stream + ", " + args.length + " args)", result);
        }
    }

    @Override
    public void launchInterpreter(final long function, final int blocks, final int threads, final long stream,
        final long[] launchSet)
    {
        final CUfunction kernel = lookup(functions, function, "function");
        // one parameter, a struct of uint64 fields: its pointer points at the struct's bytes
        final Pointer kernelParams = Pointer.to(new Pointer[] {Pointer.to(launchSet)});
        final boolean cooperative = cooperative(currentDevice());
        final int result = cooperative ?
            JCudaDriver.cuLaunchCooperativeKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, stream(stream),
                kernelParams) :
            JCudaDriver.cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, stream(stream), kernelParams, null);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure((cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel") + "(function=" + function +
                ", blocks=" + blocks + ", threads=" + threads + ", stream=" + stream + ", " + launchSet[0] +
                " ranks)", result);
        }
    }

    /** @return whether the device launches cooperative grids (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH), once read. */
    private boolean cooperative(final int device)
    {
        return cooperativeDevices.computeIfAbsent(device, d -> attribute(d,
            CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH") != 0);
    }

    @Override
    public byte[] ipcHandle(final long pointer)
    {
        final CUipcMemHandle handle = new CUipcMemHandle();
        final int result = JCudaDriver.cuIpcGetMemHandle(handle, at(pointer));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuIpcGetMemHandle(pointer=" + hex(pointer) + ")", result);
        }
        return IpcHandles.toBytes(handle);
    }

    @Override
    public long ipcOpen(final byte[] handle)
    {
        final CUipcMemHandle ipcHandle = IpcHandles.fromBytes(handle);
        final AddressPointer pointer = new AddressPointer();
        final int result = JCudaDriver.cuIpcOpenMemHandle(
            pointer, ipcHandle, CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuIpcOpenMemHandle(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)", result);
        }
        return pointer.address();
    }

    @Override
    public void ipcClose(final long pointer)
    {
        final int result = JCudaDriver.cuIpcCloseMemHandle(at(pointer));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuIpcCloseMemHandle(pointer=" + hex(pointer) + ")", result);
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * The peer being the current device answers true at once (a device always reaches its own memory; CUDA itself
     * would refuse to enable access to it). Otherwise {@code cuDeviceCanAccessPeer} decides; when it allows,
     * {@code cuCtxEnablePeerAccess} enables access to the peer's primary context, and an access enabled before
     * ({@code CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED}) counts as success.
     */
    @Override
    public boolean enablePeerAccess(final int peer)
    {
        final int current = currentDevice();
        if (peer == current)
        {
            return true;
        }
        final int[] canAccess = new int[1];
        final int canResult = JCudaDriver.cuDeviceCanAccessPeer(canAccess, device(current), device(peer));
        if (canResult != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuDeviceCanAccessPeer(device=" + current + ", peer=" + peer + ")", canResult);
        }
        if (canAccess[0] == 0)
        {
            return false;
        }
        final int result = JCudaDriver.cuCtxEnablePeerAccess(primary(peer), 0);
        if (result == CUresult.CUDA_SUCCESS || result == CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        {
            return true;
        }
        throw failure("cuCtxEnablePeerAccess(device=" + current + ", peer=" + peer + ")", result);
    }

    /**
     * @param result a CUresult.
     * @return its name and number: {@code CUDA_ERROR_OUT_OF_MEMORY (2)}.
     */
    static String resultText(final int result)
    {
        final String name = result == CUDA_ERROR_INSUFFICIENT_DRIVER ?
            "CUDA_ERROR_INSUFFICIENT_DRIVER" : CUresult.stringFor(result);
        return name + " (" + result + ")";
    }

    /**
     * @param version a version as {@code cuDriverGetVersion} gives it.
     * @return {@code 13.0 (13000)}, or {@code unknown} for 0.
     */
    static String versionText(final int version)
    {
        return version == 0 ? "unknown" : version / 1000 + "." + version % 1000 / 10 + " (" + version + ")";
    }

    private static JcclSystemException failure(final String call, final int result)
    {
        final StringBuilder message = new StringBuilder()
            .append(call).append(" failed: ").append(resultText(result));
        if (result == CUresult.CUDA_ERROR_INVALID_CONTEXT)
        {
            message.append(" (no current context on this thread: call setDevice first)");
        }
        else if (result == CUresult.CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
        {
            message.append(" (the driver is older than the PTX's .version)");
        }
        return new JcclSystemException(message.toString());
    }

    private ContextPointer primary(final int device)
    {
        return primaryContexts.computeIfAbsent(device, JCudaApi::retainPrimaryContext);
    }

    private static ContextPointer retainPrimaryContext(final int device)
    {
        final ContextPointer context = new ContextPointer();
        final int result = JCudaDriver.cuDevicePrimaryCtxRetain(context, device(device));
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuDevicePrimaryCtxRetain(device=" + device + ")", result);
        }
        return context;
    }

    private static CUdevice device(final int ordinal)
    {
        final CUdevice device = new CUdevice();
        final int result = JCudaDriver.cuDeviceGet(device, ordinal);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuDeviceGet(ordinal=" + ordinal + ")", result);
        }
        return device;
    }

    private static int currentDevice()
    {
        final DeviceOrdinal device = new DeviceOrdinal();
        final int result = JCudaDriver.cuCtxGetDevice(device);
        if (result != CUresult.CUDA_SUCCESS)
        {
            throw failure("cuCtxGetDevice", result);
        }
        return device.ordinal();
    }

    private static int driverVersionOrZero()
    {
        final int[] version = new int[1];
        return JCudaDriver.cuDriverGetVersion(version) == CUresult.CUDA_SUCCESS ? version[0] : 0;
    }

    private CUstream stream(final long stream)
    {
        // JCuda passes a null CUstream as the NULL (legacy default) stream
        return stream == 0 ? null : lookup(streams, stream, "stream");
    }

    private <T> long register(final ConcurrentHashMap<Long, T> registry, final T object)
    {
        final long handle = nextHandle.getAndIncrement();
        registry.put(handle, object);
        return handle;
    }

    private static <T> T lookup(final ConcurrentHashMap<Long, T> registry, final long handle, final String what)
    {
        final T object = registry.get(handle);
        if (object == null)
        {
            throw new JcclInvalidArgumentException(what + "=" + handle + " is not a live handle of this CudaApi");
        }
        return object;
    }

    private static CUdeviceptr at(final long address)
    {
        // JCuda's native side reads nativePointer (0 here) plus byteOffset
        return new CUdeviceptr().withByteOffset(address);
    }

    private static String hex(final long address)
    {
        return "0x" + Long.toHexString(address);
    }

    private static String ptxHeader(final String ptx)
    {
        final StringBuilder header = new StringBuilder();
        for (final String line : ptx.split("\n", 64))
        {
            final String trimmed = line.trim();
            if (trimmed.startsWith(".version") || trimmed.startsWith(".target"))
            {
                header.append(header.length() == 0 ? "" : " ").append(trimmed);
            }
        }
        return header.length() == 0 ? "PTX without .version/.target lines" : "PTX " + header;
    }

    /** A device pointer whose address the driver sets: reads JCuda's protected native pointer. */
    private static final class AddressPointer extends CUdeviceptr
    {
        long address()
        {
            return getNativePointer() + getByteOffset();
        }
    }

    /** A host pointer {@code cuMemHostAlloc} sets: reads JCuda's protected native pointer. */
    private static final class HostPointer extends Pointer
    {
        long address()
        {
            return getNativePointer() + getByteOffset();
        }
    }

    /** A device {@code cuCtxGetDevice} sets: JCuda keeps the ordinal as the native pointer. */
    /** A context {@code cuCtxGetCurrent} sets: reads JCuda's protected native pointer. */
    private static final class ContextPointer extends CUcontext
    {
        long address()
        {
            return getNativePointer();
        }
    }

    private static final class DeviceOrdinal extends CUdevice
    {
        int ordinal()
        {
            return (int)getNativePointer();
        }
    }
}
