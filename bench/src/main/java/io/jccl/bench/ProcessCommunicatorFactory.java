package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.TuningReport;
import io.jccl.UniqueId;
import io.jccl.core.Context;
import io.jccl.core.Jccl;
import io.jccl.core.LaunchInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;

/**
 * The one rank of this process in a multi-process run (nccl-tests under {@code mpirun}): joins the others with
 * {@link Jccl#connect(Context, int, int, io.jccl.UniqueId)} at the rank, size and rendezvous a launcher put in the
 * environment ({@link LaunchInfo#detect}), with the same {@link Context} as a run in one process
 * ({@link JcclCommunicatorFactory#context(BenchOptions, SweepCombination)}). The ranks agree between measurements
 * through {@link CommunicatorSync}, on the same communicator.
 * <p>
 * The launcher's rendezvous serves the first communicator only. A run that needs more ({@code --sweep}'s passes,
 * {@code --compare-plans}' plans, the online tuner's warm-up ranks) gets each at a rendezvous agreed on the one
 * before, as NCCL programs broadcast an {@code ncclUniqueId} over MPI: right after each connect, rank 0 picks a free
 * port on the launcher's host and a new secret, and every rank learns them through a small AllReduce on the new
 * communicator. Every process creates its communicators in the same order, so each agrees on the same next one.
 */
public final class ProcessCommunicatorFactory implements CommunicatorFactory
{
    private static final Logger LOG = LoggerFactory.getLogger(ProcessCommunicatorFactory.class);

    private final LaunchInfo launch;
    private String description;
    /** Where the next communicator meets: the launcher's rendezvous first, then one agreed on the latest. */
    private UniqueId next;

    /** @param launch this process's rank, the rank count and where to meet, from {@link LaunchInfo#detect}. */
    public ProcessCommunicatorFactory(final LaunchInfo launch)
    {
        this.launch = launch;
        this.next = launch.uniqueId();
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
        return new Communicator[] {connect(context)};
    }

    /** The online tuner's warm-up ranks, as {@link JcclCommunicatorFactory#warmUpContext} makes them. */
    @Override
    public Communicator[] createForWarmUp(final BenchOptions options, final SweepCombination combination,
        final int nRanks)
    {
        final Context context = JcclCommunicatorFactory.warmUpContext(options, combination);
        return context == null ? null : new Communicator[] {connect(context)};
    }

    /** Connects this process's rank at {@link #next}, then agrees on the rendezvous of the communicator after it. */
    private Communicator connect(final Context context)
    {
        final Communicator comm = Jccl.connect(context, launch.rank(), launch.size(), next);
        try
        {
            next = agreeOnNext(comm);
        }
        catch (final RuntimeException ex)
        {
            comm.abort();
            throw ex;
        }
        return comm;
    }

    /**
     * @return the next rendezvous: rank 0's choice of a free port on the launcher's host and a fresh secret, summed
     *         over the ranks (the others give zeros) in one AllReduce of {@code 1 + SECRET_LENGTH} small integers.
     */
    private UniqueId agreeOnNext(final Communicator comm)
    {
        final double[] fields = new double[1 + UniqueId.SECRET_LENGTH];
        if (launch.rank() == 0)
        {
            final UniqueId chosen = UniqueId.create(next.host(), freePort(next.host()));
            fields[0] = chosen.port();
            final byte[] secret = chosen.secret();
            for (int i = 0; i < secret.length; i++)
            {
                fields[1 + i] = secret[i];
            }
        }
        final double[] agreed = new CommunicatorSync(comm).sumOverProcesses(fields);
        final byte[] secret = new byte[UniqueId.SECRET_LENGTH];
        for (int i = 0; i < secret.length; i++)
        {
            secret[i] = (byte)Math.round(agreed[1 + i]);
        }
        return UniqueId.of(next.host(), (int)Math.round(agreed[0]), secret);
    }

    /** @return a port no socket on {@code host} holds now (rank 0 binds it at the next connect). */
    private static int freePort(final String host)
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host)))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("no free port on " + host + " for the next communicator's rendezvous",
                ex);
        }
    }

    @Override
    public List<TuningReport> tuningReports(final Communicator communicator)
    {
        // every process's tuner holds the same tasks: rank 0's records reach the others
        return Jccl.tuningReports(communicator);
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
