package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.Topology;
import io.jccl.TransportKind;
import io.jccl.autotune.PlanConstraints;
import io.jccl.autotune.TunerChain;
import io.jccl.kernels.HostDevice;
import io.jccl.schedules.Generators;
import io.jccl.schedules.Program;
import io.jccl.transport.InProcessTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ranks created together in this process ({@code ncclCommInitAll}): their transport, the Programs they share,
 * and the failure that breaks them all (abort, a disagreement between ranks).
 */
final class CommGroup
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");

    final Context context;
    final Topology topology;
    final InProcessTransport transport = new InProcessTransport();
    final TunerChain tuner;
    final ScheduleRegistry schedules;
    private final LocalCommunicator[] communicators;
    private final ConcurrentHashMap<Long, Program> programs = new ConcurrentHashMap<>();
    private final AtomicInteger open;
    private volatile JcclException failure;

    private CommGroup(final Context context, final int nRanks)
    {
        this.context = context;
        this.topology = Topology.singleProcess(nRanks);
        final PlanConstraints constraints = context.constraints();
        if (constraints.transport() == TransportKind.NET)
        {
            throw new JcclInvalidUsageException(Context.TRANSPORT_PROP_NAME + "=net needs ranks on other hosts; " +
                "all " + nRanks + " ranks of this communicator share one process (valid here: p2p, shm)");
        }
        this.tuner = TunerChain.create(constraints, context.calibration(), context.tunerConfigFile());
        tuner.warnings().forEach(w -> LOG.warn("jccl WARN {}", w));
        this.schedules = ScheduleRegistry.load(context.scheduleFiles());
        this.communicators = new LocalCommunicator[nRanks];
        this.open = new AtomicInteger(nRanks);
    }

    static CommGroup create(final Context context, final int nRanks)
    {
        HostDevice.checkJvmFlags();
        final CommGroup group = new CommGroup(context, nRanks);
        if (context.debugInfo())
        {
            LOG.info("jccl INFO tuning: {}; cost model calibration: {}", group.tuner.constraints().isNone() ?
                "no pins" : "pins " + group.tuner.constraints(), Calibrator.describe(context.calibration()));
        }
        for (int r = 0; r < nRanks; r++)
        {
            group.communicators[r] = new LocalCommunicator(group, r);
        }
        for (final LocalCommunicator c : group.communicators)
        {
            ProgressEngine.INSTANCE.register(c);
            if (context.debugInfo())
            {
                LOG.info("jccl INFO comm rank {}/{} device {} transport p2p (in-process, {} ranks in this process)",
                    c.rank(), nRanks, HostDevice.INSTANCE.name(), nRanks);
            }
        }
        return group;
    }

    Communicator[] communicators()
    {
        return communicators.clone();
    }

    int size()
    {
        return communicators.length;
    }

    /** @return the Program of a call shape, generated once and shared by the ranks. */
    Program program(final Algorithm algorithm, final Collective collective, final int channels, final int root)
    {
        final long key = ((long)algorithm.id() << 48) | ((long)collective.id() << 40) | ((long)channels << 32) |
            (root & 0xFFFF_FFFFL);
        return programs.computeIfAbsent(key, k ->
            Generators.generate(algorithm, collective, topology, channels, root));
    }

    /** @return the failure that broke every rank, or null. */
    JcclException failure()
    {
        return failure;
    }

    /** Breaks every rank of the group: pending and later calls fail with this error. */
    void fail(final JcclException error)
    {
        if (failure == null)
        {
            synchronized (this)
            {
                if (failure == null)
                {
                    failure = error;
                }
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
                LOG.info("jccl INFO connectors of this group: {}", transport.counters());
            }
            transport.close();
        }
    }
}
