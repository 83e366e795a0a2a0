package io.jccl.kernels.cuda;

/**
 * The CUDA driver calls jccl's CUDA backend makes, with every handle as a {@code long}: the real driver through
 * JCuda ({@code JCudaApi}), or {@code EmulatedCuda}, which runs each launch of the interpreter kernel with a Java
 * interpreter over the same step records so that everything above the launch is tested on machines without a GPU.
 * Every method throws {@link io.jccl.JcclSystemException} naming the call and the CUDA error when the driver fails.
 * Device pointers are raw addresses (unified addressing: host code never dereferences them).
 */
public interface CudaApi
{
    /** @return a short name for logs: {@code cuda} or {@code emulated-cuda}. */
    String name();

    /** @return the driver's version as {@code cuDriverGetVersion} gives it ({@code 12060} for 12.6). */
    int driverVersion();

    /** @return the number of devices. */
    int deviceCount();

    /**
     * @param device a device ordinal.
     * @return the device's name ({@code NVIDIA H200}).
     */
    String deviceName(int device);

    /**
     * @param device a device ordinal.
     * @return its multiprocessor count.
     */
    int multiprocessorCount(int device);

    /**
     * @param device a device ordinal.
     * @return its PCI domain, bus and device as nccl-tests prints them: {@code 0000:1b:00}.
     */
    String pciBusId(int device);

    /**
     * Makes the device's primary context current on the calling thread (every later call on the thread uses it).
     *
     * @param device a device ordinal.
     */
    void setDevice(int device);

    /**
     * @return the calling thread's current context as a token for {@link #makeCurrent} (0 when it has none): jccl
     *         keeps a caller's context across its own driver calls on the caller's thread.
     */
    long currentContext();

    /** @param context a token of {@link #currentContext}: made current on the calling thread again (0: none). */
    void makeCurrent(long context);

    /**
     * @param device a device.
     * @return its primary context, where jccl's kernels run, as a {@link #currentContext} token.
     */
    long primaryContext(int device);

    /**
     * @param address any address.
     * @return the context of the allocation it lies in ({@code CU_POINTER_ATTRIBUTE_CONTEXT}), as a
     *         {@link #currentContext} token; 0 where the driver knows of none (not a CUDA allocation, or one bound
     *         to no context, as virtual memory mappings are).
     */
    long pointerContext(long address);

    /**
     * @param bytes bytes, at least 1.
     * @return a device pointer on the current device, 256-byte aligned, contents undefined.
     */
    long malloc(long bytes);

    /**
     * Waits until the device is idle first, as cuMemFree does: never call it while a kernel runs that waits for
     * work this thread has yet to queue.
     *
     * @param pointer from {@link #malloc(long)}; 0 is ignored.
     */
    void free(long pointer);

    /**
     * @param bytes bytes, at least 1.
     * @return the host address of page-locked memory the devices can read and write, contents undefined.
     */
    long mallocHost(long bytes);

    /**
     * Waits until the device is idle first, as {@link #free} does.
     *
     * @param address from {@link #mallocHost(long)}; 0 is ignored.
     */
    void freeHost(long address);

    /**
     * Copies on a stream: host and device addresses alike (unified addressing), ordered after earlier work on the
     * stream.
     *
     * @param dst    destination address.
     * @param src    source address.
     * @param bytes  bytes.
     * @param stream a stream from {@link #streamCreate()} or 0 for the default stream.
     */
    void memcpyAsync(long dst, long src, long bytes, long stream);

    /**
     * Fills bytes on a stream.
     *
     * @param dst    device address.
     * @param value  the byte.
     * @param bytes  bytes.
     * @param stream the stream.
     */
    void memsetAsync(long dst, int value, long bytes, long stream);

    /** @return a new non-blocking stream on the current device. */
    long streamCreate();

    /**
     * Adopts a stream another library made (its {@code CUstream} as a raw handle, as {@code io.jccl.Stream} carries
     * it): work queued on the returned handle runs in that stream's order. jccl never destroys it.
     *
     * @param nativeHandle the {@code CUstream}'s address, not 0.
     * @return a handle for this API's stream arguments, the same for the same native stream.
     */
    long wrapStream(long nativeHandle);

    /**
     * @param stream a stream ({@link #wrapStream} of a caller's).
     * @return whether work queued on it now is captured into a CUDA graph instead of run
     *         ({@code cuStreamIsCapturing}).
     */
    boolean streamCapturing(long stream);

    /** @param stream a stream to destroy; 0 is ignored. */
    void streamDestroy(long stream);

    /** @param stream waits until all work on the stream is complete. */
    void streamSynchronize(long stream);

    /**
     * @param timing whether {@link #eventElapsedMs} may measure with it; an event that only tells completion is
     *               cheaper to record ({@code CU_EVENT_DISABLE_TIMING}).
     * @return a new event.
     */
    long eventCreate(boolean timing);

    /** @param event an event to destroy; 0 is ignored. */
    void eventDestroy(long event);

    /**
     * @param event  the event.
     * @param stream records it on this stream.
     */
    void eventRecord(long event, long stream);

    /**
     * @param event the event.
     * @return true once the work recorded before it is complete.
     */
    boolean eventQuery(long event);

    /**
     * @param start an event made with timing, recorded and complete.
     * @param end   a later one, complete.
     * @return milliseconds between them.
     */
    float eventElapsedMs(long start, long end);

    /**
     * @param stream waits (on the device) for this event before later work on the stream.
     * @param event  the event.
     */
    void streamWaitEvent(long stream, long event);

    /**
     * Loads a module from PTX text on the current device. Loading waits until the device is idle, as {@link #free}
     * does.
     *
     * @param ptx the PTX.
     * @return the module.
     */
    long moduleLoad(String ptx);

    /**
     * Looks a kernel up and loads it completely: under CUDA's lazy loading a kernel left partly loaded would be
     * loaded at its first launch, which waits until the device is idle, as {@link #free} does.
     *
     * @param module a module.
     * @param name   an {@code extern "C"} kernel name.
     * @return the function.
     */
    long function(long module, String name);

    /**
     * @param function a function from {@link #function}.
     * @return the most threads a block of it may have ({@code CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK}: the kernel's
     *         launch bound, or fewer where its registers or shared memory allow fewer); a launch with more fails.
     */
    int maxThreadsPerBlock(long function);

    /**
     * Launches a kernel with a 1-D grid.
     *
     * @param function    the kernel.
     * @param blocks      grid size.
     * @param threads     block size.
     * @param sharedBytes dynamic shared memory.
     * @param stream      the stream.
     * @param args        the kernel's parameters, each 8 bytes (pointers, 64-bit integers, or a double's bits).
     */
    void launch(long function, int blocks, int threads, int sharedBytes, long stream, long... args);

    /**
     * Launches one of jccl's interpreter kernels as one cooperative grid ({@code cuLaunchCooperativeKernel}, where the
     * device supports it): every block is resident at once or the launch fails
     * ({@code CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE}), since its blocks wait on each other.
     *
     * @param function  an interpreter kernel.
     * @param blocks    grid size: the blocks of every rank in the set.
     * @param threads   block size.
     * @param stream    the stream.
     * @param launchSet the kernel's one parameter, passed by value: {@link DeviceLayout#launchSet}'s fields.
     */
    void launchInterpreter(long function, int blocks, int threads, long stream, long[] launchSet);

    /**
     * @param pointer the start of an allocation from {@link #malloc(long)}.
     * @return its 64-byte IPC handle, for another process of this host.
     */
    byte[] ipcHandle(long pointer);

    /**
     * @param handle 64 bytes from {@link #ipcHandle(long)} in another process.
     * @return the allocation mapped into this process.
     */
    long ipcOpen(byte[] handle);

    /** @param pointer from {@link #ipcOpen(byte[])}. */
    void ipcClose(long pointer);

    /**
     * Enables access from the current device to another device's memory where the hardware allows.
     *
     * @param peer the other device.
     * @return true when access is (now or already) enabled, false when the devices cannot access each other.
     */
    boolean enablePeerAccess(int peer);
}
