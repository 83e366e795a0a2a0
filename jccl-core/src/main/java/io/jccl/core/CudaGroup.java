package io.jccl.core;

import io.jccl.JcclInvalidUsageException;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.kernels.cuda.CudaApi;
import io.jccl.kernels.cuda.DeviceLayout;
import io.jccl.kernels.cuda.KernelNames;
import io.jccl.kernels.cuda.PtxResources;
import io.jccl.transport.Connections;
import io.jccl.transport.Link;
import io.jccl.transport.cuda.CudaProxy;
import io.jccl.transport.cuda.CudaTransport;
import io.jccl.transport.cuda.DeviceConnection;
import org.agrona.UnsafeApi;

import java.util.HashMap;
import java.util.Map;

/**
 * The CUDA side of this process's ranks of a communicator: the driver (real or emulated), each local rank's device
 * (round-robin over the visible devices by the rank's place among the ranks of its host, as LOCAL_RANK picks a GPU;
 * several ranks may share one), the kernels loaded per device, and the device connections, made on first use by the
 * {@link CudaTransport} and kept (their counters run on across calls). Thread-safe; nothing here runs per chunk.
 */
final class CudaGroup
{
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger("io.jccl");
    private final CudaApi api;
    private final int[] deviceOfRank;
    /**
     * Every kernel of jccl's PTX by (driver, device, name), for the life of the process: the driver compiles a
     * module's PTX for the device when it is loaded (122 kernels for the interpreter), so every communicator of the
     * process shares them. They are all loaded when the first communicator on a device is made, before any of its
     * kernels runs: loading a module, or under CUDA's lazy loading a kernel's first use, waits until the device is
     * idle, and a rank's kernel waits for its peers' kernels, which the same thread may not have launched yet (a
     * hang seen on an H200, where the first integer AVG loaded the elementwise module mid-call).
     */
    private static final Map<CudaApi, Map<Integer, Map<String, Long>>> KERNELS = new java.util.WeakHashMap<>();
    private static final PtxResources PTX = new PtxResources();
    private static final String[] PTX_FILES = {KernelNames.INTERPRETER, KernelNames.ELEMENTWISE};

    /** Per device, its kernels by name ({@link #KERNELS}); null for devices without a rank of this process. */
    private final Map<String, Long>[] kernels;
    /** The device connections of this process's ranks, by link, made on first use and kept. */
    private final Map<Long, DeviceConnection> connections = new HashMap<>();
    private final int[] ranksOnDevice;
    /** Per rank, the device addresses {@link #checkContext} passed last: the sent one, the other. */
    private final long[] checkedAddress;
    /** Per device shared by ranks of this process, their one launch per call. */
    private final DeviceLaunch[] launches;
    private final boolean[] local;
    private final Connections transport;
    private final CudaTransport cudaTransport;

    /**
     * @param api        the driver.
     * @param topology   where every rank lives.
     * @param localRanks the ranks of this process.
     * @param transport  the host connections, which carry the slots of connections to other processes.
     * @param chosen     the devices the context names for this process's ranks, or null to spread them.
     * @param ipc        whether FIFOs to ranks of other processes of this host use CUDA IPC.
     */
    CudaGroup(final CudaApi api, final io.jccl.Topology topology, final int[] localRanks,
        final Connections transport, final int[] chosen, final boolean ipc)
    {
        this.api = api;
        this.transport = transport;
        final int devices = api.deviceCount();
        if (devices < 1)
        {
            throw new JcclInvalidUsageException("the CUDA backend (" + api.name() + ") sees no device");
        }
        final int ranks = topology.ranks();
        deviceOfRank = new int[ranks];
        ranksOnDevice = new int[devices];
        local = new boolean[ranks];
        for (int i = 0; i < localRanks.length; i++)
        {
            final int r = localRanks[i];
            local[r] = true;
            int onHost = 0;
            for (int q = 0; q < r; q++)
            {
                onHost += topology.sameHost(q, r) ? 1 : 0;
            }
            deviceOfRank[r] = chosen == null ? onHost % devices : chosen[i % chosen.length];
            if (deviceOfRank[r] >= devices)
            {
                throw new io.jccl.JcclInvalidArgumentException("cudaDevices[" + i % chosen.length + "]=" +
                    deviceOfRank[r] + " is outside 0.." + (devices - 1) + " (" + api.name() + " sees " + devices +
                    " devices)");
            }
            ranksOnDevice[deviceOfRank[r]]++;
        }
        int onThisHost = 0;
        int firstOnHost = -1;
        for (int q = 0; q < ranks; q++)
        {
            if (topology.sameHost(q, localRanks[0]))
            {
                firstOnHost = firstOnHost < 0 ? q : firstOnHost;
                onThisHost++;
            }
        }
        if (chosen == null && localRanks.length < onThisHost && onThisHost > devices && local[firstOnHost])
        {
            // said once per host, by the process of the host's first rank
            LOG.warn("jccl WARN {} ranks of several processes share {} CUDA device(s) of this host: the driver runs " +
                "kernels of different processes on one GPU in turns (time slices, without MPS), so each wait for a " +
                "peer there costs a slice, about 2.5 ms on an H200; give each process a GPU of its own (NCCL " +
                "refuses this setup)", onThisHost, devices);
        }
        @SuppressWarnings("unchecked")
        final Map<String, Long>[] byDevice = new Map[devices];
        for (int d = 0; d < devices; d++)
        {
            if (ranksOnDevice[d] > 0)
            {
                byDevice[d] = loadKernels(api, d);
            }
        }
        this.kernels = byDevice;
        for (int d = 0; d < devices && localRanks.length > 1; d++)
        {
            api.setDevice(d);
            for (int p = 0; p < devices; p++)
            {
                if (p != d && ranksOnDevice[p] > 0 && !api.enablePeerAccess(p))
                {
                    throw new JcclInvalidUsageException("CUDA devices " + d + " and " + p + " cannot access each " +
                        "other's memory (no P2P); ranks on them need host staging, which the CUDA backend does not " +
                        "do yet: give each process ranks on one device, or devices with P2P");
                }
            }
        }
        this.cudaTransport = new CudaTransport(api, deviceOfRank, ipc, transport);
        this.checkedAddress = new long[2 * ranks];
        this.launches = new DeviceLaunch[devices];
        for (int d = 0; d < devices; d++)
        {
            final int device = d;
            launches[d] = ranksOnDevice[d] < 2 ? null : new DeviceLaunch(api, d,
                java.util.stream.IntStream.of(localRanks).filter(r -> deviceOfRank[r] == device).toArray());
        }
    }

    CudaApi api()
    {
        return api;
    }

    /**
     * @param rank a rank.
     * @return its device.
     */
    int device(final int rank)
    {
        return deviceOfRank[rank];
    }

    /**
     * @param rank a rank.
     * @return how many of the group's ranks share its device (their kernels must be resident together).
     */
    int ranksSharing(final int rank)
    {
        return ranksOnDevice[deviceOfRank[rank]];
    }

    /**
     * @param device a device with a rank of this process.
     * @return the one launch per call of this process's ranks on the device, or null when one rank has it alone.
     */
    DeviceLaunch deviceLaunch(final int device)
    {
        return launches[device];
    }

    /**
     * @param rank a rank of this process.
     * @return the device cost model of its device: what a GPU changes in the host tuners' plans.
     */
    io.jccl.autotune.DeviceCostModel costModel(final int rank)
    {
        return new io.jccl.autotune.DeviceCostModel(api.multiprocessorCount(device(rank)), ranksSharing(rank),
            DeviceLayout.payloadBytes(0), DeviceLayout.payloadBytes(1), CudaExecution.DEFAULT_THREADS);
    }

    /**
     * @param device a device with a rank of this process.
     * @param name   a kernel of jccl's PTX.
     * @return the function, loaded when this group was made.
     */
    long function(final int device, final String name)
    {
        final Long function = kernels[device] == null ? null : kernels[device].get(name);
        if (function == null)
        {
            throw new IllegalStateException("kernel " + name + " is not loaded on device " + device);
        }
        return function;
    }

    /** @return every kernel of jccl's PTX on a device, loading the modules and their kernels the first time. */
    private static Map<String, Long> loadKernels(final CudaApi api, final int device)
    {
        synchronized (KERNELS)
        {
            final Map<Integer, Map<String, Long>> byDevice = KERNELS.computeIfAbsent(api, a -> new HashMap<>());
            final Map<String, Long> known = byDevice.get(device);
            if (known != null)
            {
                return known;
            }
            api.setDevice(device);
            final Map<String, Long> loaded = new HashMap<>();
            for (final String file : PTX_FILES)
            {
                final long module = api.moduleLoad(PTX.load(file));
                for (final String name : KernelNames.forPtx(file))
                {
                    loaded.put(name, api.function(module, name));
                }
            }
            byDevice.put(device, loaded);
            return loaded;
        }
    }

    /**
     * @param from     the sending rank.
     * @param to       the receiving rank.
     * @param channel  the channel.
     * @param protocol the kernel's protocol.
     * @return the FIFO's address, zeroed when made ({@link DeviceConnection#fifo()}): 0 while a FIFO of another
     *         process waits for that process's IPC handle.
     */
    long fifo(final int from, final int to, final int channel, final Protocol protocol)
    {
        return connection(from, to, channel, protocol).fifo();
    }

    /**
     * @param from     the sending rank.
     * @param to       the receiving rank.
     * @param channel  the channel.
     * @param protocol the kernel's protocol.
     * @return the proxy of a connection with a rank of another process, or null where the kernels pass slots device
     *         to device.
     */
    CudaProxy proxy(final int from, final int to, final int channel, final Protocol protocol)
    {
        return connection(from, to, channel, protocol).proxy();
    }

    /** @return the link's connection, made by the CUDA transport on first use. */
    private DeviceConnection connection(final int from, final int to, final int channel, final Protocol protocol)
    {
        final Link link = new Link(from, to, channel, protocol, TransportKind.P2P);
        synchronized (connections)
        {
            // both local ranks of a link ask for it: they must get one FIFO
            return connections.computeIfAbsent(link.key(), k -> cudaTransport.connect(link, transport.placement()));
        }
    }

    /**
     * Refuses a caller's stream that is capturing a CUDA graph: a rank's kernel waits on its peers' kernels and the
     * host drives the FIFOs to other processes, which a graph replayed later cannot do.
     *
     * @param stream the call's stream.
     * @param call   what the call is, for the message.
     * @throws JcclInvalidUsageException if the stream is capturing.
     */
    void checkNotCapturing(final io.jccl.Stream stream, final String call)
    {
        final long handle = stream.nativeHandle();
        if (handle != 0 && api.streamCapturing(api.wrapStream(handle)))
        {
            throw new JcclInvalidUsageException("stream " + stream + " is capturing a CUDA graph (" + call + "): " +
                "jccl's kernels wait on their peers' kernels and are driven from the host, so a call cannot be " +
                "captured; make it outside the capture");
        }
    }

    /**
     * Refuses device memory of a context other than the rank's device's primary one, where jccl's kernels run and
     * could not reach it (a context made with {@code cuCtxCreate}, or another device's). Memory the driver knows no
     * context of (not a CUDA allocation, or a virtual memory mapping) passes. Each rank's buffers are looked up when
     * their address changes, so a loop over the same buffers asks the driver once.
     *
     * @param rank   the rank.
     * @param buffer a buffer of the call, or null.
     * @param name   its argument's name.
     * @param call   the call, for the message.
     * @throws io.jccl.JcclInvalidArgumentException if it is device memory of another context.
     */
    void checkContext(final int rank, final io.jccl.Buffer buffer, final String name, final String call)
    {
        final int slot = 2 * rank + ("send".equals(name) ? 0 : 1);
        if (!(buffer instanceof io.jccl.DeviceBuffer device) || device.address() == checkedAddress[slot])
        {
            return;
        }
        final long context = api.pointerContext(device.address());
        if (context != 0 && context != api.primaryContext(device(rank)))
        {
            throw new io.jccl.JcclInvalidArgumentException(name + " is " + buffer + ", memory of another CUDA " +
                "context than the primary context of device " + device(rank) + ", where this rank's kernels run: " +
                "allocate it in the primary context (cudaMalloc, PyTorch and DJL do) or copy it there (" + call + ")");
        }
        checkedAddress[slot] = device.address();
    }

    /**
     * Moves every FIFO of this process's ranks, all idle, to slot sequence {@code slot}, as if that many slots had
     * passed (a test hook: LL's flags wrap in a test, not after billions of slots).
     *
     * @param slot the next slot of every FIFO.
     * @throws IllegalStateException where a FIFO has a proxy (its count is the proxy's too).
     */
    void restartFifosAt(final long slot)
    {
        synchronized (connections)
        {
            for (final DeviceConnection connection : connections.values())
            {
                if (connection.proxy() != null)
                {
                    throw new IllegalStateException("a FIFO to another process: its proxy counts slots too");
                }
                UnsafeApi.putLongVolatile(null, connection.fifo() + DeviceLayout.FIFO_TAIL, slot);
                UnsafeApi.putLongVolatile(null, connection.fifo() + DeviceLayout.FIFO_HEAD, slot);
            }
        }
    }

    /** Lets go of the FIFOs other processes exported to this one, before the processes' closing barrier. */
    synchronized void releaseImported()
    {
        cudaTransport.releaseImported();
    }

    /**
     * Frees the FIFOs and the setup streams; the kernels that used them have finished.
     *
     * @param importersReleased whether every process let go of this one's exported FIFOs (the closing barrier
     *                          passed); if not, those stay until the process ends.
     */
    synchronized void close(final boolean importersReleased)
    {
        for (int d = 0; d < launches.length; d++)
        {
            if (launches[d] != null)
            {
                launches[d].close();
                launches[d] = null;
            }
        }
        cudaTransport.close(importersReleased);
        synchronized (connections)
        {
            connections.clear();
        }
    }
}
