package io.jccl.bench;

import io.jccl.BufferRegistration;
import io.jccl.Communicator;
import io.jccl.HostBuffer;
import io.jccl.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * This process's ranks of one {@link BenchRunner} run and what each has: its communicator (and, when the online tuner
 * decides the plans, one of the JIT warm-up's own), a send and a receive buffer of the table's largest size plus the
 * guard bytes, their device twins when the ranks run on CUDA, a stream, and with {@code -R} the buffers'
 * registrations. Indexed by local rank: bench thread {@code t} drives the local ranks from {@code t x ngpus} on
 * ({@link ThreadRanks}).
 * <p>
 * Threading: opened, allocated and closed by the thread that runs {@link BenchRunner#run()}, read by every bench
 * thread in between; thread 0 closes the warm-up's ranks once every thread has warmed up, and any bench thread may
 * {@link #abort()}.
 */
final class BenchRanks
{
    /** BenchRunner's: log lines keep the name docs/troubleshooting.md shows. */
    private static final Logger LOG = LoggerFactory.getLogger(BenchRunner.class);

    private final BenchOptions options;
    private final CommunicatorFactory factory;
    private final SweepCombination combination;
    private final int nRanks;
    /** This process's ranks: all of them, or one in a multi-process run. */
    private final int localRanks;
    /** Where the buffers live: jccl's shared memory unless {@code --plain-memory}. */
    private final BenchMemory memory;
    /** {@code -R}: the buffers' registrations with their ranks, closed before the ranks. */
    private final List<BufferRegistration> registrations = new ArrayList<>();
    private Communicator[] comms;
    /** The ranks of the JIT warm-up when the online tuner decides the run's plans, until thread 0 closes them. */
    private volatile Communicator[] warmComms;
    private HostBuffer[] sendAllocs;
    private HostBuffer[] recvAllocs;
    /** Device twins of the allocations when the ranks run on CUDA ({@code --device}), else null. */
    private DeviceMirror mirror;
    private Stream[] streams;

    /**
     * @param options     validated flags.
     * @param factory     where ranks come from.
     * @param combination the pins of this pass of a {@code --sweep}, or {@link SweepCombination#DEFAULT}.
     */
    BenchRanks(final BenchOptions options, final CommunicatorFactory factory, final SweepCombination combination)
    {
        this.options = options;
        this.factory = factory;
        this.combination = combination;
        this.nRanks = options.nRanks();
        this.localRanks = options.localRanks();
        this.memory = BenchMemory.of(options, factory);
    }

    /**
     * Creates this process's ranks.
     *
     * @throws RuntimeException when the factory fails.
     */
    void open()
    {
        comms = factory.create(options, combination, nRanks);
    }

    /** Creates the JIT warm-up's own ranks, with a tuner of their own ({@link CommunicatorFactory#createForWarmUp}). */
    void openWarmUp()
    {
        warmComms = factory.createForWarmUp(options, combination, nRanks);
    }

    /** @return this process's ranks, by local rank; not to be changed. */
    Communicator[] comms()
    {
        return comms;
    }

    /** @return the JIT warm-up's ranks, by local rank, or null when it runs on {@link #comms()} or is over. */
    Communicator[] warmComms()
    {
        return warmComms;
    }

    /** @return where the buffers live. */
    BenchMemory memory()
    {
        return memory;
    }

    /** @return each rank's send buffer, on the host, by local rank; not to be changed. */
    HostBuffer[] sendAllocs()
    {
        return sendAllocs;
    }

    /** @return each rank's receive buffer, on the host, by local rank; not to be changed. */
    HostBuffer[] recvAllocs()
    {
        return recvAllocs;
    }

    /** @return each rank's stream, by local rank; not to be changed. */
    Stream[] streams()
    {
        return streams;
    }

    /** @return the device twins of the buffers, or null when the ranks do not run on CUDA. */
    DeviceMirror mirror()
    {
        return mirror;
    }

    /**
     * Buffers and a stream per rank of this process, index as {@link #comms()}.
     *
     * @param maxBytes the largest size of the table, guard bytes excluded.
     */
    void allocate(final long maxBytes)
    {
        sendAllocs = new HostBuffer[localRanks];
        recvAllocs = new HostBuffer[localRanks];
        streams = new Stream[localRanks];
        for (int local = 0; local < localRanks; local++)
        {
            sendAllocs[local] = memory.allocate(maxBytes + ResultChecker.GUARD_BYTES);
            recvAllocs[local] = memory.allocate(maxBytes + ResultChecker.GUARD_BYTES);
            streams[local] = options.streamNull() ? Stream.DEFAULT : Stream.create();
        }
        if (onCuda())
        {
            mirror = DeviceMirror.allocate(comms, maxBytes + ResultChecker.GUARD_BYTES);
        }
        if (options.localRegister() != 0)
        {
            register();
        }
    }

    /** @return true when this process's ranks are jccl's and run on CUDA devices. */
    boolean onCuda()
    {
        try
        {
            return comms.length > 0 && io.jccl.core.Jccl.cudaDevice(comms[0]) >= 0;
        }
        catch (final io.jccl.JcclInvalidArgumentException notJccl)
        {
            return false;
        }
    }

    /** {@code -R}: registers every rank's buffers with its communicator, as nccl-tests calls ncclCommRegister. */
    private void register()
    {
        boolean readInPlace = true;
        for (int local = 0; local < localRanks; local++)
        {
            for (final HostBuffer buffer : new HostBuffer[] {sendAllocs[local], recvAllocs[local]})
            {
                final BufferRegistration registration = comms[local].register(buffer);
                registrations.add(registration);
                readInPlace &= registration.peersReadInPlace();
            }
        }
        LOG.info("-R/--local_register: {} buffers registered; the other ranks read them {}", registrations.size(),
            readInPlace ? "in place" : "through staging copies (private memory, ranks in other processes)");
    }

    /** Aborts every rank, the warm-up's too, so that no rank's call waits for one that failed. */
    void abort()
    {
        final Communicator[] warm = warmComms;
        final List<Communicator> all = new ArrayList<>(List.of(comms));
        if (warm != null)
        {
            all.addAll(List.of(warm));
        }
        for (final Communicator comm : all)
        {
            try
            {
                comm.abort();
            }
            catch (final RuntimeException ex)
            {
                LOG.debug("abort failed", ex);
            }
        }
    }

    /** Closes the JIT warm-up's ranks, if any are open: thread 0 once every thread has warmed up, or at the end. */
    void closeWarmComms()
    {
        final Communicator[] warm = warmComms;
        warmComms = null;
        if (warm == null)
        {
            return;
        }
        for (final Communicator comm : warm)
        {
            try
            {
                comm.close();
            }
            catch (final RuntimeException ex)
            {
                LOG.debug("closing warm-up rank {} failed", comm.rank(), ex);
            }
        }
    }

    /**
     * Closes the registrations, the ranks, then frees the buffers.
     *
     * @param failed whether the run failed, asked when a rank fails to close: after a failure that is no news.
     */
    void closeAll(final BooleanSupplier failed)
    {
        closeWarmComms();
        registrations.forEach(BufferRegistration::close);
        registrations.clear();
        if (comms != null)
        {
            for (final Communicator comm : comms)
            {
                try
                {
                    comm.close();
                }
                catch (final RuntimeException ex)
                {
                    if (!failed.getAsBoolean())
                    {
                        LOG.warn("closing rank {} failed: {}", comm.rank(), ex.toString());
                    }
                }
            }
        }
        // after the ranks' close waited for their calls: nothing reads the buffers any more
        memory.freeAll();
        if (mirror != null)
        {
            mirror.close();
            mirror = null;
        }
    }
}
