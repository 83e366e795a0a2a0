package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.Settings;
import io.jccl.Topology;
import io.jccl.TransportKind;
import io.jccl.autotune.Calibration;
import io.jccl.autotune.OnlineTuner;
import io.jccl.autotune.PlanConstraints;
import io.jccl.autotune.PlanResolver;
import io.jccl.autotune.TunerChain;
import io.jccl.kernels.HostDevice;
import io.jccl.schedules.Generators;
import io.jccl.schedules.Program;
import io.jccl.transport.Connections;
import io.jccl.transport.net.NetConfig;
import io.jccl.transport.net.NetTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ranks created together in this process ({@code ncclCommInitAll}): their transport, the Programs they share,
 * and the failure that breaks them all (abort, a timeout, a disagreement between ranks, a dead peer).
 */
final class CommGroup
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");
    private static final AtomicLong NEXT_ID = new AtomicLong();

    final Context context;
    final Topology topology;
    /** The hosts the ranks span (the tuners' {@code nNodes}). */
    final int hosts;
    final Connections transport;
    /** The smallest chunk a receiver reads in place of a sender's buffer ({@link DirectReads#minBytes}). */
    final int directMinBytes;
    final TunerChain tuner;
    /** The online search ({@code JCCL_TUNER=auto}), or null. */
    final OnlineTuner online;
    /** Distinguishes this communicator's tasks from other communicators' in the online tuner. */
    final long id = NEXT_ID.incrementAndGet();
    /** Rank 0's trials as CSV ({@code JCCL_TUNER_TRACE}), or null; written only by rank 0's driving thread. */
    java.io.BufferedWriter trace;
    final io.jccl.schedules.msccl.ScheduleRegistry schedules;
    /** The CUDA devices the ranks run on, or null on the host backend. */
    final CudaGroup cuda;
    /** Rank 0's tuner records for other processes (ranks in several processes, {@code JCCL_TUNER=auto}), or null. */
    volatile TunerReplication.Outbox tunerNotices;
    /** How ranks meet to split: in this process by default; through the bootstrap for ranks in several. */
    volatile Splitter splitter;
    private final LocalCommunicator[] communicators;
    private final ConcurrentHashMap<Long, Program> programs = new ConcurrentHashMap<>();
    private final AtomicInteger open;
    /** Where every rank stands, for the rank that times out to name the one that holds the call up. */
    final Standings standings;
    private final Outside outside;
    private volatile JcclException failure;

    /**
     * What the ranks of this process do with those of other processes; nothing for a group of one process.
     *
     * @param standings   where every rank stands: in this process's memory, or in files peers on the host map.
     * @param announce    tells the other processes of a failure found here, so that they fail with its cause.
     * @param onAbort     run when a local rank aborts, so peers in other processes hear of it at once.
     * @param quiesce     run before the transport closes, unless the group failed: waits until no peer needs this
     *                    process's data any more (the network transport's last slots) and every process has let go
     *                    of the CUDA FIFOs others exported to it (a barrier).
     * @param onLastClose run when the last local rank closes (the bootstrap's end).
     */
    record Outside(Standings standings, java.util.function.Consumer<JcclException> announce, Runnable onAbort,
        Runnable quiesce, Runnable onLastClose)
    {
        /**
         * @param ranks the ranks, all in this process.
         * @return the hooks of a group that no other process shares.
         */
        static Outside none(final int ranks)
        {
            return new Outside(Standings.inMemory(ranks), error -> { }, () -> { }, () -> { }, () -> { });
        }
    }

    private CommGroup(final Context context, final Topology topology, final int[] localRanks,
        final Connections transport, final PlanConstraints constraints, final Calibration calibration,
        final Outside outside)
    {
        this.outside = outside;
        this.standings = outside.standings();
        this.context = context;
        this.topology = topology;
        this.hosts = topology.hosts();
        this.transport = transport;
        // a group of one local rank out of several is a process of one rank, as every rank that joins with
        // Jccl.connect has: the cost model knows each is driven by its own process
        final boolean processPerRank = localRanks.length == 1 && topology.ranks() > 1;
        // the CPUs the host's ranks share, as the cost model counts them (the same in every process): a process bound
        // to one CPU (--bind-to core) is not oversubscribed
        this.directMinBytes = DirectReads.minBytes(processPerRank, (topology.ranks() + hosts - 1) / hosts,
            calibration.cores());
        this.tuner = TunerChain.create(constraints, calibration,
            context.tunerMode() == Context.TunerMode.MODEL ? null : context.tunerConfigFile(), processPerRank);
        tuner.warnings().forEach(w -> LOG.warn("jccl WARN {}", w));
        this.online = context.tunerMode() == Context.TunerMode.AUTO ? OnlineTuning.create(context, tuner, topology) :
            null;
        this.trace = online == null ? null : OnlineTuning.openTrace(context.tunerTraceFile());
        this.schedules = io.jccl.schedules.msccl.ScheduleRegistry.load(context.scheduleFiles());
        this.cuda = context.cuda() == null ? null : CallerContext.keep(context.cuda(), () -> new CudaGroup(
            context.cuda(), topology, localRanks, transport, context.cudaDevices(), context.cudaIpc()));
        this.communicators = new LocalCommunicator[topology.ranks()];
        this.splitter = new LocalSplit(context, topology.ranks());
        this.open = new AtomicInteger(localRanks.length);
        if (context.debugInfo())
        {
            LOG.info("jccl INFO tuning: {}; cost model calibration: {}", tuner.constraints().isNone() ?
                "no pins" : "pins " + tuner.constraints(), Calibrator.describe(calibration));
        }
        for (final int r : localRanks)
        {
            communicators[r] = new LocalCommunicator(this, r);
        }
        for (final int r : localRanks)
        {
            ProgressEngine.INSTANCE.register(communicators[r]);
            if (context.debugInfo())
            {
                LOG.info("jccl INFO comm rank {}/{} device {} transport {} ({} of them in this process, {} hosts)",
                    r, topology.ranks(), HostDevice.INSTANCE.name(), (localRanks.length == topology.ranks() ?
                    "p2p/shm" : "p2p/shm (p2p in place for jccl's shared buffers)") + (transport.net() == null ? "" :
                    ", " + transport.net().describe()), localRanks.length, hosts);
            }
        }
    }

    /** @return the ranks of one process ({@code ncclCommInitAll}). */
    static CommGroup create(final Context context, final int nRanks)
    {
        HostDevice.checkJvmFlags();
        final int[] all = new int[nRanks];
        java.util.Arrays.setAll(all, r -> r);
        if (context.constraints().transport() != TransportKind.NET)
        {
            return new CommGroup(context, Topology.singleProcess(nRanks), all, new Connections(),
                context.constraints(), context.calibration(), Outside.none(nRanks));
        }
        // NET pinned in one process: every pair goes through the network transport on this host's loopback
        final NetTransport net = NetTransport.start(NetConfig.fromEnvironment(Settings.environment(), "127.0.0.1",
            context.timeoutMs()));
        final String[] endpoints = new String[nRanks];
        java.util.Arrays.fill(endpoints, net.endpoint());
        try
        {
            net.connect(endpoints);
            final CommGroup group = new CommGroup(context, Topology.singleProcess(nRanks), all,
                new Connections(net), context.constraints(), context.calibration(), Outside.none(nRanks));
            net.onFailure(group::fail);
            return group;
        }
        catch (final RuntimeException ex)
        {
            net.close();
            throw ex;
        }
    }

    /**
     * @param context     settings.
     * @param topology    where every rank lives.
     * @param localRanks  the ranks of this process.
     * @param transport   connections, shared FIFO files to other processes.
     * @param calibration the cost model's constants, the same in every process.
     * @param outside     what the ranks do with the other processes.
     * @return this process's part of a communicator whose ranks live in several processes, on one host or more.
     */
    static CommGroup createShared(final Context context, final Topology topology, final int[] localRanks,
        final Connections transport, final Calibration calibration, final Outside outside)
    {
        HostDevice.checkJvmFlags();
        // P2P and SHM both connect processes (P2P reads jccl's shared buffers in place and stages other memory as
        // SHM does), so the transport stays the tuner's choice; NET is refused below as in one process
        final PlanConstraints constraints = context.constraints();
        return new CommGroup(context, topology, localRanks, transport, constraints, calibration, outside);
    }

    /**
     * @param rank a rank of this process.
     * @return its plan resolver: the group's pins, table, schedules and online tuner, and its device's cost model.
     */
    PlanResolver resolver(final int rank)
    {
        return new PlanResolver(tuner, schedules, online != null, cuda == null ? null : cuda.costModel(rank),
            context.chunkBytes(), Connections::slotLength);
    }

    /** @return this process's communicators, by rank. */
    Communicator[] communicators()
    {
        return java.util.Arrays.stream(communicators).filter(java.util.Objects::nonNull)
            .toArray(Communicator[]::new);
    }

    int size()
    {
        return topology.ranks();
    }

    /** @return a rank of this process whose submitter waits for room in its queue now, or -1. */
    int rankWaitingForRoom()
    {
        for (final LocalCommunicator c : communicators)
        {
            if (c != null && c.waitingForRoom())
            {
                return c.rank();
            }
        }
        return -1;
    }

    /** @return the Program of a call shape, generated once and shared by the ranks. */
    Program program(final Algorithm algorithm, final Collective collective, final int channels, final int root)
    {
        final long key = ((long)algorithm.id() << 48) | ((long)collective.id() << 40) | ((long)channels << 32) |
            (root & 0xFFFF_FFFFL);
        return programs.computeIfAbsent(key, k ->
            Generators.generate(algorithm, collective, topology, channels, root));
    }

    /** Tells ranks in other processes that this process's ranks are gone (after an abort). */
    void abortPeers()
    {
        outside.onAbort().run();
    }

    /** @return the failure that broke every rank, or null. */
    JcclException failure()
    {
        return failure;
    }

    /**
     * Breaks every rank of the group: pending and later calls fail with this error. The first failure is kept; a
     * timeout also writes every local rank's {@link FlightRecord}.
     *
     * @param error the failure, found here or reported by a peer.
     */
    void fail(final JcclException error)
    {
        if (first(error))
        {
            writeFlightRecords(error);
        }
    }

    /**
     * Breaks every rank of the group with a failure found in this process (a timeout, a disagreement, a plan no
     * connector serves), and tells the other processes first, so that theirs fail with this cause too.
     *
     * @param error the failure.
     */
    void failHere(final JcclException error)
    {
        if (first(error))
        {
            outside.announce().accept(error);
            writeFlightRecords(error);
        }
    }

    /** @return whether the error is the group's first failure, now kept. */
    private boolean first(final JcclException error)
    {
        if (failure == null)
        {
            synchronized (this)
            {
                if (failure == null)
                {
                    failure = error;
                    return true;
                }
            }
        }
        return false;
    }

    private void writeFlightRecords(final JcclException error)
    {
        if (!(error instanceof io.jccl.JcclTimeoutException))
        {
            return;
        }
        for (final LocalCommunicator c : communicators)
        {
            if (c != null)
            {
                c.flight.write(c.rank(), standings.read(c.rank()), error, context.flightRecordPrefix());
            }
        }
    }

    void closed(final LocalCommunicator communicator)
    {
        ProgressEngine.INSTANCE.unregister(communicator);
        if (open.decrementAndGet() == 0)
        {
            if (context.debugInfo())
            {
                LOG.info("jccl INFO connectors of this group: {}{}", transport.counters(),
                    transport.net() == null ? "" : "; " + transport.net().describe());
            }
            if (cuda != null)
            {
                // CUDA IPC: every process lets go of its peers' FIFOs before the barrier, and frees its own after it
                cuda.releaseImported();
            }
            if (failure == null)
            {
                outside.quiesce().run();
            }
            transport.close();
            if (cuda != null)
            {
                cuda.close(failure == null);
            }
            if (online != null)
            {
                OnlineTuning.close(context, online, topology, trace);
            }
            standings.close();
            outside.onLastClose().run();
        }
    }
}
