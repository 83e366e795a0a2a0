package io.jccl.core;

import io.jccl.JcclInvalidUsageException;
import io.jccl.kernels.cuda.CudaApi;
import io.jccl.kernels.cuda.DeviceLayout;
import io.jccl.kernels.cuda.KernelNames;
import io.jccl.kernels.cuda.PtxResources;

import java.util.HashMap;
import java.util.Map;

/**
 * The CUDA side of this process's ranks of a communicator: the driver (real or emulated), each local rank's device
 * (round-robin over the visible devices by the rank's place among the ranks of its host, as LOCAL_RANK picks a GPU;
 * several ranks may share one), the kernels loaded per device, and the FIFOs, made on first use and kept (their
 * counters run on across calls). Between local ranks a FIFO lies in the receiver's device memory. To or from a rank of
 * another process it lies in pinned host memory the device maps, and a {@link CudaProxy} moves its slots through the
 * host transport (shared memory on this host, the network to others). Thread-safe; nothing here runs per chunk.
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
    /**
     * Per device, a stream of this group's own (non-blocking) that zeroes the FIFOs it makes, 0 for devices without a
     * rank of this process. Not the legacy default stream: a rank that zeroed a new FIFO there, while another rank's
     * kernel waited for this rank's, hung an H200 ({@code all_reduce_perf -g 4}; with 2 ranks every FIFO is made
     * before the first launch, and it ran).
     */
    private final long[] setupStreams;
    private final Map<Long, Long> fifos = new HashMap<>();
    private final Map<Long, Long> pinnedFifos = new HashMap<>();
    /** IPC: FIFOs in this process's device memory that a rank of another process maps, and those mapped here. */
    private final Map<Long, Long> exportedFifos = new HashMap<>();
    private final Map<Long, Long> importedFifos = new HashMap<>();
    /** The sequence number of a handshake slot, which no call has. */
    static final long HANDSHAKE = -1;
    private final io.jccl.Topology topology;
    private final boolean ipc;
    private final Map<Long, CudaProxy> proxies = new HashMap<>();
    private final int[] ranksOnDevice;
    private final boolean[] local;
    private final io.jccl.transport.InProcessTransport transport;

    /**
     * @param api        the driver.
     * @param topology   where every rank lives.
     * @param localRanks the ranks of this process.
     * @param transport  the host transport, which carries the slots of connections to other processes.
     */
    CudaGroup(final CudaApi api, final io.jccl.Topology topology, final int[] localRanks,
        final io.jccl.transport.InProcessTransport transport, final int[] chosen, final boolean ipc)
    {
        this.api = api;
        this.transport = transport;
        this.topology = topology;
        this.ipc = ipc;
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
        setupStreams = new long[devices];
        for (int d = 0; d < devices; d++)
        {
            if (ranksOnDevice[d] > 0)
            {
                byDevice[d] = loadKernels(api, d);
                api.setDevice(d);
                setupStreams[d] = api.streamCreate();
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
     * @param protocol the protocol id.
     * @return the FIFO's address, zeroed when made: in the receiver's device memory between local ranks, in the
     *         sender's (mapped here by CUDA IPC) from a rank of another process of this host, or 0 while that rank's
     *         handle has not arrived; else in pinned host memory with a proxy ({@link #proxy}).
     */
    long fifo(final int from, final int to, final int channel, final int protocol)
    {
        final long key = key(from, to, channel, protocol);
        if (!local[from] && ipc && topology.sameHost(from, to))
        {
            return imported(key, from, to, channel, protocol);
        }
        synchronized (this)
        {
            if (!local[to] && ipc && topology.sameHost(from, to))
            {
                return exported(key, from, to, channel, protocol);
            }
            if (!local[from] || !local[to])
            {
                return proxied(key, from, to, channel, protocol);
            }
            return device(key, deviceOfRank[to], protocol, fifos);
        }
    }

    /** @return a zeroed FIFO in a device's memory, made once per key. */
    private long device(final long key, final int device, final int protocol, final Map<Long, Long> made)
    {
        final Long known = made.get(key);
        if (known != null)
        {
            return known;
        }
        api.setDevice(device);
        final long bytes = DeviceLayout.fifoBytes(protocol);
        final long fifo = api.malloc(bytes);
        api.memsetAsync(fifo, 0, bytes, setupStreams[device]);
        api.streamSynchronize(setupStreams[device]);
        made.put(key, fifo);
        return fifo;
    }

    /**
     * CUDA IPC to a rank of another process on this host: the FIFO lies in the sender's device memory, and its IPC
     * handle goes to the receiver's process as the first slot of the host connection between them (sequence
     * {@link #HANDSHAKE}), so the kernels then pass data device to device with no proxy.
     */
    private long exported(final long key, final int from, final int to, final int channel, final int protocol)
    {
        final boolean first = !exportedFifos.containsKey(key);
        final long fifo = device(key, deviceOfRank[from], protocol, exportedFifos);
        if (first)
        {
            final io.jccl.transport.SendConnector handshake = transport.sender(from, to, channel,
                io.jccl.Protocol.SIMPLE, io.jccl.TransportKind.SHM);
            final byte[] handle = api.ipcHandle(fifo);
            if (!handshake.hasSpace())
            {
                throw new IllegalStateException("the first slot to rank " + to + " is taken before the IPC handle");
            }
            new org.agrona.concurrent.UnsafeBuffer(handshake.slotAddress(), handle.length).putBytes(0, handle);
            handshake.publish(handle.length, HANDSHAKE, protocol, channel);
        }
        return fifo;
    }

    /**
     * The receiving end of {@link #exported}: maps the sender's FIFO here once its handle has arrived.
     *
     * @return the FIFO, or 0 while the handle has not arrived (never waits).
     */
    private long imported(final long key, final int from, final int to, final int channel, final int protocol)
    {
        synchronized (this)
        {
            final Long known = importedFifos.get(key);
            if (known != null)
            {
                return known;
            }
        }
        final io.jccl.transport.RecvConnector handshake = transport.receiver(from, to, channel,
            io.jccl.Protocol.SIMPLE, io.jccl.TransportKind.SHM);
        if (!handshake.hasData())
        {
            return 0;
        }
        if (handshake.seq() != HANDSHAKE || handshake.shape() != protocol || handshake.plan() != channel ||
            handshake.dataLength() != 64)
        {
            throw new io.jccl.JcclRemoteException("rank " + to + " expected rank " + from + "'s IPC handle for " +
                "channel " + channel + " and protocol " + protocol + " and received a slot of call #" +
                handshake.seq() + ": the ranks do not create the same connections");
        }
        final byte[] handle = new byte[64];
        new org.agrona.concurrent.UnsafeBuffer(handshake.slotAddress(), handle.length).getBytes(0, handle);
        handshake.release();
        api.setDevice(deviceOfRank[to]);
        final long fifo = api.ipcOpen(handle);
        synchronized (this)
        {
            importedFifos.put(key, fifo);
        }
        return fifo;
    }

    /**
     * @param from     the sending rank.
     * @param to       the receiving rank.
     * @param channel  the channel.
     * @param protocol the protocol id.
     * @return the proxy of a connection with a rank of another process, or null between local ranks.
     */
    synchronized CudaProxy proxy(final int from, final int to, final int channel, final int protocol)
    {
        return proxies.get(key(from, to, channel, protocol));
    }

    private long proxied(final long key, final int from, final int to, final int channel, final int protocol)
    {
        final Long known = pinnedFifos.get(key);
        if (known != null)
        {
            return known;
        }
        api.setDevice(deviceOfRank[local[from] ? from : to]);
        final long bytes = DeviceLayout.fifoBytes(protocol);
        final long fifo = api.mallocHost(bytes);
        org.agrona.UnsafeApi.setMemory(fifo, bytes, (byte)0);
        // the host side carries device slots as SIMPLE payload whatever the kernel's protocol, staged (SHM) between
        // processes of a host; pairs on two hosts go over the network
        proxies.put(key, local[from] ?
            CudaProxy.outbox(fifo, protocol, transport.sender(from, to, channel, io.jccl.Protocol.SIMPLE,
                io.jccl.TransportKind.SHM)) :
            CudaProxy.inbox(fifo, protocol, transport.receiver(from, to, channel, io.jccl.Protocol.SIMPLE,
                io.jccl.TransportKind.SHM)));
        pinnedFifos.put(key, fifo);
        return fifo;
    }

    private static long key(final int from, final int to, final int channel, final int protocol)
    {
        return (((long)from * 65536 + to) * 1024 + channel) * 4 + protocol;
    }

    /** Frees the FIFOs and the setup streams; the kernels that used them have finished. */
    synchronized void close()
    {
        fifos.values().forEach(api::free);
        fifos.clear();
        importedFifos.values().forEach(api::ipcClose);
        importedFifos.clear();
        exportedFifos.values().forEach(api::free);
        exportedFifos.clear();
        pinnedFifos.values().forEach(api::freeHost);
        pinnedFifos.clear();
        proxies.clear();
        for (int d = 0; d < setupStreams.length; d++)
        {
            if (setupStreams[d] != 0)
            {
                api.setDevice(d);
                api.streamDestroy(setupStreams[d]);
                setupStreams[d] = 0;
            }
        }
    }
}
