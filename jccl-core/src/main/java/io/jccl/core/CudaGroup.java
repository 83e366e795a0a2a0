package io.jccl.core;

import io.jccl.JcclInvalidUsageException;
import io.jccl.kernels.cuda.CudaApi;
import io.jccl.kernels.cuda.DeviceLayout;
import io.jccl.kernels.cuda.KernelNames;
import io.jccl.kernels.cuda.PtxResources;

import java.util.HashMap;
import java.util.Map;

/**
 * The CUDA side of the ranks created together in this process: the driver (real or emulated), each rank's device
 * (round-robin over the visible devices, so several ranks may share one GPU), the kernels loaded per device, and the
 * FIFOs between ranks, each in its receiver's device memory, made on first use and kept (their counters run on across
 * calls). Thread-safe; nothing here runs per chunk.
 */
final class CudaGroup
{
    private final CudaApi api;
    private final int[] deviceOfRank;
    /**
     * Modules by (driver, device, PTX file), for the life of the process: the driver compiles a module's PTX for the
     * device when it is loaded (122 kernels for the interpreter), so every communicator of the process shares one.
     */
    private static final Map<CudaApi, Map<String, Long>> MODULES = new java.util.WeakHashMap<>();
    private static final PtxResources PTX = new PtxResources();

    private final Map<String, Long> functions = new HashMap<>();
    private final Map<Long, Long> fifos = new HashMap<>();
    private final int[] ranksOnDevice;

    /**
     * @param api   the driver.
     * @param ranks the ranks of the group, all in this process.
     */
    CudaGroup(final CudaApi api, final int ranks)
    {
        this.api = api;
        final int devices = api.deviceCount();
        if (devices < 1)
        {
            throw new JcclInvalidUsageException("the CUDA backend (" + api.name() + ") sees no device");
        }
        deviceOfRank = new int[ranks];
        ranksOnDevice = new int[devices];
        for (int r = 0; r < ranks; r++)
        {
            deviceOfRank[r] = r % devices;
            ranksOnDevice[r % devices]++;
        }
        for (int d = 0; d < devices && ranks > 1; d++)
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
     * The plan as it runs on the GPU where the caller pinned neither channels nor chunk: channels (blocks per
     * rank) grow with the message, 1 below 64 KiB up to 16, within what the ranks sharing the device leave of its
     * multiprocessors (two workers per channel at most); pieces fill a FIFO slot, since a GPU moves a slot at once;
     * LL128, not built for CUDA yet, runs as SIMPLE unless the protocol was pinned; blocks have 512 threads unless
     * {@code JCCL_NTHREADS} says otherwise.
     *
     * @param plan        the tuner's plan.
     * @param bytes       the call's size (NCCL's nBytes).
     * @param rank        the rank.
     * @param constraints what the caller pinned.
     * @return the plan to run.
     */
    io.jccl.Plan shape(final io.jccl.Plan plan, final long bytes, final int rank,
        final io.jccl.autotune.PlanConstraints constraints)
    {
        int channels = plan.channels();
        if (constraints.minChannels() == 1 && constraints.maxChannels() == io.jccl.Plan.MAX_CHANNELS)
        {
            final int fit = Math.max(1, api.multiprocessorCount(device(rank)) / (2 * ranksSharing(rank)));
            channels = Math.min(fit, bytes < (64 << 10) ? 1 : bytes < (1 << 20) ? 2 : bytes < (16 << 20) ? 4 : 16);
        }
        // LL128 is not built for CUDA yet: unless pinned (which then fails naming it), its sizes run SIMPLE
        final io.jccl.Protocol protocol = plan.protocol() == io.jccl.Protocol.LL128 && constraints.protoSpec() == null ?
            io.jccl.Protocol.SIMPLE : plan.protocol();
        final int chunk = constraints.chunkBytes() != 0 ? plan.chunkBytes() :
            DeviceLayout.payloadBytes(protocol == io.jccl.Protocol.SIMPLE ? 0 : 1);
        // NCCL's SIMPLE default of 512 threads per block, unless JCCL_NTHREADS pinned it
        final int threads = constraints.threads() != 0 ? plan.threads() : 512;
        return new io.jccl.Plan(plan.algorithm(), protocol, plan.transport(), channels, threads, chunk);
    }

    /**
     * @param device a device, current on the calling thread.
     * @param name   a kernel of jccl's PTX.
     * @return the function, loading its module on first use.
     */
    synchronized long function(final int device, final String name)
    {
        final String key = device + "/" + name;
        final Long known = functions.get(key);
        if (known != null)
        {
            return known;
        }
        final String base = name.startsWith("jccl_interp_") ? KernelNames.INTERPRETER : KernelNames.ELEMENTWISE;
        final long module;
        synchronized (MODULES)
        {
            module = MODULES.computeIfAbsent(api, a -> new HashMap<>()).computeIfAbsent(device + "/" + base,
                k -> api.moduleLoad(PTX.load(base)));
        }
        final long function = api.function(module, name);
        functions.put(key, function);
        return function;
    }

    /**
     * @param from     the sending rank.
     * @param to       the receiving rank.
     * @param channel  the channel.
     * @param protocol the protocol id.
     * @return the FIFO's device address, in the receiver's memory, zeroed when made.
     */
    synchronized long fifo(final int from, final int to, final int channel, final int protocol)
    {
        final long key = (((long)from * 65536 + to) * 1024 + channel) * 4 + protocol;
        final Long known = fifos.get(key);
        if (known != null)
        {
            return known;
        }
        api.setDevice(deviceOfRank[to]);
        final long bytes = DeviceLayout.fifoBytes(protocol);
        final long fifo = api.malloc(bytes);
        api.memsetAsync(fifo, 0, bytes, 0);
        api.streamSynchronize(0);
        fifos.put(key, fifo);
        return fifo;
    }

    /** Frees the FIFOs; the kernels that used them have finished. */
    synchronized void close()
    {
        fifos.values().forEach(api::free);
        fifos.clear();
    }
}
