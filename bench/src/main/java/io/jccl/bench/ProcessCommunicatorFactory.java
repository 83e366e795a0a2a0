package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import io.jccl.transport.bootstrap.LaunchEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rank of this process in a multi-process run (nccl-tests under {@code mpirun}): joins the others with
 * {@link Jccl#connect(Context, int, int, io.jccl.UniqueId)} at the rank, size and rendezvous a launcher put in the
 * environment ({@link RankEnvironment}), with the same {@link Context} as a run in one process
 * ({@link JcclCommunicatorFactory#context(BenchOptions, SweepCombination)}). The ranks agree between measurements
 * through {@link CommunicatorSync}, on the same communicator.
 */
public final class ProcessCommunicatorFactory implements CommunicatorFactory
{
    private static final Logger LOG = LoggerFactory.getLogger(ProcessCommunicatorFactory.class);

    private final LaunchEnvironment launch;
    private String description;

    /** @param launch this process's rank, the rank count and where to meet, from {@link RankEnvironment#detect}. */
    public ProcessCommunicatorFactory(final LaunchEnvironment launch)
    {
        this.launch = launch;
        this.description = "jccl rank " + launch.rank() + " of " + launch.size() + " processes";
    }

    @Override
    public Communicator[] create(final BenchOptions options, final SweepCombination combination, final int nRanks)
    {
        if (nRanks != launch.size())
        {
            throw new IllegalArgumentException(nRanks + " ranks asked of a launch of " + launch.size() +
                " processes of one rank each");
        }
        final Context context = JcclCommunicatorFactory.context(options, combination);
        LOG.info("jccl rank {}/{} from {}", launch.rank(), launch.size(), launch.source());
        description = "jccl rank " + launch.rank() + " of " + launch.size() + " processes, " +
            JcclCommunicatorFactory.settings(context);
        return new Communicator[] {Jccl.connect(context, launch.rank(), launch.size(), launch.uniqueId())};
    }

    @Override
    public java.util.List<io.jccl.autotune.TaskReport> tunerReports(final Communicator communicator)
    {
        // every process's tuner holds the same tasks: rank 0's records reach the others
        return Jccl.tunerReports(communicator);
    }

    @Override
    public void groupStart()
    {
        Jccl.groupStart();
    }

    @Override
    public void groupEnd()
    {
        Jccl.groupEnd();
    }

    /** @return a {@link CommunicatorSync} on this process's rank. */
    @Override
    public BenchSync sync(final int nThreads, final Communicator[] comms)
    {
        return new CommunicatorSync(comms[0]);
    }

    /** @return true: jccl's ranks read {@code Jccl.allocate}'s memory in place across processes. */
    @Override
    public boolean sharedMemory()
    {
        return true;
    }

    @Override
    public String describe()
    {
        return description;
    }
}
