package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.Settings;
import io.jccl.TuningReport;
import io.jccl.UniqueId;
import io.jccl.autotune.OnlineTuner;
import io.jccl.autotune.TaskKey;
import io.jccl.autotune.TaskReport;
import io.jccl.autotune.TaskState;
import io.jccl.kernels.cuda.CudaApi;
import io.jccl.transport.SharedBuffers;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * jccl's entry point: creates communicators and brackets group calls.
 * <pre>{@code
 * Communicator[] comms = Jccl.initAll(new Context(), 4);   // four ranks in this process
 * Jccl.groupStart();
 * for (Communicator c : comms) works[c.rank()] = c.allReduce(send[c.rank()], recv[c.rank()], n, FLOAT32, SUM, Stream.DEFAULT);
 * Jccl.groupEnd();
 * for (Work w : works) w.join();
 * }</pre>
 */
public final class Jccl
{
    private Jccl()
    {
    }

    /**
     * Creates {@code nRanks} communicators in this process at once, NCCL's {@code ncclCommInitAll}, with the
     * default context (settings from {@code JCCL_*} environment variables and system properties).
     *
     * @param nRanks rank count, at least 1.
     * @return the communicators, index = rank.
     */
    public static Communicator[] initAll(final int nRanks)
    {
        return initAll(new Context(), nRanks);
    }

    /**
     * Creates {@code nRanks} communicators in this process at once, NCCL's {@code ncclCommInitAll}.
     *
     * @param context settings; concluded here, and owned by the communicators from then on.
     * @param nRanks  rank count, at least 1.
     * @return the communicators, index = rank.
     * @throws JcclInvalidArgumentException if nRanks is below 1 or a setting is out of range.
     * @throws io.jccl.JcclSystemException if the JVM lacks a flag jccl needs.
     */
    public static Communicator[] initAll(final Context context, final int nRanks)
    {
        if (context == null)
        {
            throw new JcclInvalidArgumentException("context is null");
        }
        if (nRanks < 1)
        {
            throw new JcclInvalidArgumentException("nRanks=" + nRanks + " must be at least 1");
        }
        context.conclude();
        return CommGroup.create(context, nRanks).communicators();
    }

    /**
     * @param id a communicator's rendezvous.
     * @return the prefix of the names of that communicator's FIFO files in {@code /dev/shm} (for tests and cleanup).
     */
    static String sharedPrefix(final UniqueId id)
    {
        return ProcessGroupJoin.sharedPrefix(id);
    }

    /**
     * Joins a communicator of ranks in several processes (NCCL's {@code ncclCommInitRank}). Rank 0 creates the
     * {@link UniqueId} and passes it to the others out of band.
     *
     * @param context settings.
     * @param rank    this process's rank, 0..size-1.
     * @param size    rank count.
     * @param id      the rendezvous of rank 0.
     * @return the communicator.
     * @throws JcclInvalidUsageException if the ranks' plan settings differ, or ranks on different hosts carry network
     *                                    traffic over different wires ({@code JCCL_NET}).
     * @throws io.jccl.JcclTimeoutException if the other ranks do not all join within the context's deadline.
     */
    public static Communicator connect(final Context context, final int rank, final int size, final UniqueId id)
    {
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new JcclInvalidArgumentException("rank=" + rank + " is outside 0.." + (size - 1) + " (size=" +
                size + ")");
        }
        if (id == null)
        {
            throw new JcclInvalidArgumentException("id is null");
        }
        context.conclude();
        return ProcessGroupJoin.join(context, rank, size, id);
    }

    /**
     * Joins a communicator of ranks in several processes, reading rank, size and rendezvous from the environment a
     * launcher set ({@link LaunchInfo#resolve}: {@code JCCL_RANK}/{@code JCCL_WORLD_SIZE}, torchrun or
     * {@code bin/jccl-run}, Open MPI, PMI or Slurm; the address from {@code JCCL_COMM_ID},
     * {@code MASTER_ADDR}/{@code MASTER_PORT} or {@code JCCL_MASTER_ADDR}/{@code JCCL_PORT}), and logs which source
     * won.
     *
     * @param context settings.
     * @return the communicator.
     * @throws JcclInvalidArgumentException naming the variable when the environment is incomplete or malformed.
     */
    public static Communicator connect(final Context context)
    {
        final LaunchInfo env = LaunchInfo.resolve(Settings.environment());
        LoggerFactory.getLogger("io.jccl").info("jccl rank {}/{} from {}", env.rank(), env.size(), env.source());
        return connect(context, env.rank(), env.size(), env.uniqueId());
    }

    /**
     * @param communicator a communicator of this process.
     * @return the online tuner's tasks of its group ({@code JCCL_TUNER=auto}) in a stable order: trials, baseline and
     *         best plans and times; empty when the online tuner is off.
     * @throws JcclInvalidArgumentException if the communicator is not jccl's.
     */
    public static List<TuningReport> tuningReports(final Communicator communicator)
    {
        final OnlineTuner online = local(communicator).onlineTuner();
        if (online == null)
        {
            return List.of();
        }
        final List<TaskReport> reports = online.reports();
        final List<TuningReport> result = new ArrayList<>(reports.size());
        for (final TaskReport report : reports)
        {
            final TaskKey key = report.key();
            final TaskState state = report.state();
            result.add(new TuningReport(key.collective(), key.type(), key.op(), key.ranks(), key.minBytes(),
                key.maxBytes(), state.converged(), state.trials(), state.searchCalls(), state.baselinePlan(),
                state.baselineNs(), state.bestPlan(), state.bestNs(), state.retunes(), state.failures(),
                report.line()));
        }
        return List.copyOf(result);
    }

    /**
     * @param communicator a communicator of this process.
     * @return the online tuner's tasks of its group, as the autotune module's own type.
     * @throws JcclInvalidArgumentException if the communicator is not jccl's.
     * @deprecated the autotune module is internal: use {@link #tuningReports(Communicator)}, which returns the
     *             API's {@link TuningReport}.
     */
    @Deprecated
    public static List<TaskReport> tunerReports(final Communicator communicator)
    {
        final OnlineTuner online = local(communicator).onlineTuner();
        return online == null ? List.of() : online.reports();
    }

    /**
     * @param communicator a communicator of this process.
     * @return the CUDA device its rank runs on ({@link Context#cuda(CudaApi)}: rank r on device
     *         r modulo the device count), or -1 on the host backend; its buffers must be memory of that device.
     * @throws JcclInvalidArgumentException if the communicator is not jccl's.
     */
    public static int cudaDevice(final Communicator communicator)
    {
        return local(communicator).cudaDevice();
    }

    /**
     * @param communicator a communicator of this process.
     * @return the CUDA driver its rank runs on (the context's), or null on the host backend.
     * @throws JcclInvalidArgumentException if the communicator is not jccl's.
     * @deprecated the driver interface is internal: device memory goes through
     *             {@link #allocateDevice(Communicator, long)}, {@link #copyToDevice(DeviceBuffer, HostBuffer)},
     *             {@link #copyFromDevice(HostBuffer, DeviceBuffer)} and {@link #freeDevice(DeviceBuffer)}, and
     *             {@link #cudaDevice(Communicator)} says whether a rank runs on CUDA.
     */
    @Deprecated
    public static CudaApi cuda(final Communicator communicator)
    {
        return local(communicator).context().cuda();
    }

    /**
     * Allocates memory on the CUDA device a rank runs on ({@link #cudaDevice(Communicator)}), through the driver of
     * its context. The memory is not zeroed; free it with {@link #freeDevice(DeviceBuffer)}. As every call of the
     * driver that frees or copies on the default stream, use these calls between collectives, not while one on the
     * device is in flight.
     *
     * @param communicator a communicator of this process that runs on CUDA.
     * @param length       bytes, at least 0.
     * @return the buffer, on the rank's device.
     * @throws JcclInvalidArgumentException naming the argument: a communicator that is null, not jccl's or on the
     *                                      host backend, or a negative length.
     * @throws io.jccl.JcclSystemException if the driver cannot allocate it.
     */
    public static DeviceBuffer allocateDevice(final Communicator communicator, final long length)
    {
        final LocalCommunicator local = local(communicator);
        if (local.cudaDevice() < 0)
        {
            throw new JcclInvalidArgumentException("communicator " + communicator + " runs on the host backend " +
                "(its Context names no CUDA driver)");
        }
        if (length < 0)
        {
            throw new JcclInvalidArgumentException("length=" + length + " is negative");
        }
        return DeviceAllocations.INSTANCE.allocate(local.context().cuda(), local.cudaDevice(), length);
    }

    /**
     * Copies all of {@code source} to the start of {@code target} and returns once the copy is done.
     *
     * @param target device memory of {@link #allocateDevice(Communicator, long)} or a slice of it, at least as long
     *               as the source.
     * @param source host memory.
     * @throws JcclInvalidArgumentException naming the argument: null, device memory that is not (in) a live
     *                                      buffer of {@link #allocateDevice}, or a target shorter than the source.
     */
    public static void copyToDevice(final DeviceBuffer target, final HostBuffer source)
    {
        checkNotNull(target, "target");
        checkNotNull(source, "source");
        DeviceAllocations.INSTANCE.copyToDevice(target, source);
    }

    /**
     * Copies all of {@code source} to the start of {@code target} and returns once the copy is done.
     *
     * @param target host memory, at least as long as the source.
     * @param source device memory of {@link #allocateDevice(Communicator, long)} or a slice of it.
     * @throws JcclInvalidArgumentException naming the argument: null, device memory that is not (in) a live
     *                                      buffer of {@link #allocateDevice}, or a target shorter than the source.
     */
    public static void copyFromDevice(final HostBuffer target, final DeviceBuffer source)
    {
        checkNotNull(target, "target");
        checkNotNull(source, "source");
        DeviceAllocations.INSTANCE.copyFromDevice(target, source);
    }

    /**
     * Frees a buffer of {@link #allocateDevice(Communicator, long)}. Every call that used it must have completed.
     *
     * @param buffer the buffer {@link #allocateDevice} returned (not a slice of it).
     * @throws JcclInvalidArgumentException if the buffer is null, or is not a live buffer of {@link #allocateDevice}.
     */
    public static void freeDevice(final DeviceBuffer buffer)
    {
        checkNotNull(buffer, "buffer");
        DeviceAllocations.INSTANCE.free(buffer);
    }

    private static void checkNotNull(final Object argument, final String name)
    {
        if (argument == null)
        {
            throw new JcclInvalidArgumentException(name + " is null");
        }
    }

    private static LocalCommunicator local(final Communicator communicator)
    {
        checkNotNull(communicator, "communicator");
        if (!(communicator instanceof LocalCommunicator local))
        {
            throw new JcclInvalidArgumentException("communicator " + communicator + " was not made by jccl");
        }
        return local;
    }

    /**
     * Allocates host memory that the ranks of other processes on this host read in place (NCCL's
     * {@code ncclMemAlloc}): a file in {@code /dev/shm} (mode 0600, named after this process's pid) mapped here. A
     * collective whose buffers lie in such memory sends over P2P with SIMPLE without a staging copy, across
     * processes as within one; other memory is staged between processes. The memory is zeroed and page aligned,
     * usable at once with every communicator of this process, and freed by {@link #free(HostBuffer)}; the file's
     * name is removed at exit if the buffer is still live, and files of killed processes are removed by the next
     * allocation or communicator of any process on the host.
     *
     * @param length bytes, 0 to {@code Integer.MAX_VALUE - 4096}.
     * @return the buffer ({@link HostBuffer#isJcclOwned()}).
     * @throws JcclInvalidArgumentException if the length is out of range.
     * @throws io.jccl.JcclSystemException if the shared memory cannot be made (a full {@code /dev/shm}, say).
     */
    public static HostBuffer allocate(final long length)
    {
        final SharedBuffers.Segment segment = SharedBuffers.INSTANCE.allocate(length);
        return HostBuffer.ofJcclMemory(segment.memory(), length);
    }

    /**
     * @return the directory whose file system holds the memory of {@link #allocate(long)} ({@code /dev/shm}): its
     *         free space bounds what can be allocated.
     */
    public static Path sharedMemoryDirectory()
    {
        return SharedBuffers.INSTANCE.directory();
    }

    /**
     * Frees a buffer of {@link #allocate(long)} (NCCL's {@code ncclMemFree}): its file is removed and its memory
     * unmapped. Every call that used it must have completed; touching it afterwards crashes the JVM, as using
     * memory after {@code ncclMemFree} would crash a C program.
     *
     * @param buffer the buffer {@link #allocate(long)} returned (not a slice of it).
     * @throws JcclInvalidArgumentException if the buffer is null, or is not a live buffer of {@link #allocate(long)}.
     */
    public static void free(final HostBuffer buffer)
    {
        if (buffer == null)
        {
            throw new JcclInvalidArgumentException("buffer is null");
        }
        final long address = LocalCommunicator.address(buffer);
        final SharedBuffers.Segment segment = buffer.isJcclOwned() ?
            SharedBuffers.INSTANCE.find(address, buffer.length()) : null;
        if (segment == null || segment.address() != address || segment.length() != buffer.length())
        {
            throw new JcclInvalidArgumentException(buffer + " is not a live buffer of Jccl.allocate (freed already, " +
                "a slice, or memory of another allocator)");
        }
        SharedBuffers.INSTANCE.free(segment);
    }

    /** Starts a group (NCCL's {@code ncclGroupStart}); groups nest, and calls start at the outermost end. */
    public static void groupStart()
    {
        Group.start();
    }

    /** Ends a group (NCCL's {@code ncclGroupEnd}): every call made since the outermost start is started. */
    public static void groupEnd()
    {
        Group.end();
    }
}
