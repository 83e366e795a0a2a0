package io.jccl.launch;

import io.jccl.UniqueId;
import io.jccl.transport.bootstrap.LaunchEnvironment;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The processes one launcher starts on its host: the same command line for each, behind {@code taskset -c CPU} when
 * bound ({@link CpuBinding}), and the launcher environment of its rank ({@link LaunchEnvironment#variables}: torchrun's
 * {@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK}, {@code LOCAL_WORLD_SIZE}, {@code MASTER_ADDR},
 * {@code MASTER_PORT}, and {@code JCCL_COMM_ID} when one host makes the whole {@link UniqueId}), so that
 * {@code Jccl.connect(new Context())} in each finds its rank and the others. Every launcher variable the launcher
 * itself inherited (another launcher's, an outer {@code JCCL_COMM_ID}) is removed from what the children inherit.
 * Unless the launcher's environment sets {@code OMP_NUM_THREADS}, each child gets its share of this host's CPUs as
 * that (as torchrun sets it): PyTorch and other OpenMP runtimes otherwise start a thread per CPU in every process,
 * and their spinning workers take the CPUs the other ranks need (measured with DJL on 2 processes and 2 cores: an
 * MLP's forward and backward 58-68 ms with 2 threads each, 27-30 ms with 1; its gradient AllReduce 2x slower).
 */
public final class ChildCommand
{
    /** OpenMP's thread count, which PyTorch (and MKL, and OpenBLAS) read. */
    public static final String OMP_NUM_THREADS = "OMP_NUM_THREADS";

    private final List<String> command;
    private final World world;
    private final CpuBinding binding;

    /**
     * Where this host's children stand among all ranks.
     *
     * @param nprocs     processes on this host, at least 1.
     * @param nnodes     hosts, at least 1; each starts {@code nprocs}.
     * @param nodeRank   this host, 0..nnodes-1; its children are ranks {@code nodeRank*nprocs ...}.
     * @param masterAddr rank 0's host, where the rendezvous listens.
     * @param masterPort the rendezvous port on it.
     * @param commId     the whole rendezvous with a random secret (one host), or null (several hosts: each child
     *                   derives the secret from {@code JCCL_SECRET} or the job id, the same on every host).
     */
    public record World(int nprocs, int nnodes, int nodeRank, String masterAddr, int masterPort, UniqueId commId)
    {
        /**
         * @param nprocs     processes on this host, at least 1.
         * @param nnodes     hosts, at least 1.
         * @param nodeRank   this host, 0..nnodes-1.
         * @param masterAddr rank 0's host.
         * @param masterPort the rendezvous port on it.
         * @param commId     the whole rendezvous with a random secret, or null.
         * @throws IllegalArgumentException naming the flag whose value is out of range.
         */
        public World
        {
            if (nprocs < 1)
            {
                throw new IllegalArgumentException("--nprocs " + nprocs + " must be at least 1");
            }
            if (nnodes < 1)
            {
                throw new IllegalArgumentException("--nnodes " + nnodes + " must be at least 1");
            }
            if (nodeRank < 0 || nodeRank >= nnodes)
            {
                throw new IllegalArgumentException("--node-rank " + nodeRank + " is outside 0.." + (nnodes - 1));
            }
            if (masterPort < 1 || masterPort > 65535)
            {
                throw new IllegalArgumentException("--master-port " + masterPort + " is outside 1..65535");
            }
        }

        /**
         * @param nprocs processes, all on this host.
         * @param commId where they meet, with its secret.
         * @return one host's world.
         */
        public static World oneHost(final int nprocs, final UniqueId commId)
        {
            return new World(nprocs, 1, 0, commId.host(), commId.port(), commId);
        }

        /** @return the number of ranks on every host together. */
        public int size()
        {
            return nprocs * nnodes;
        }

        /**
         * @param localRank a child of this host.
         * @return its rank.
         */
        public int rank(final int localRank)
        {
            return nodeRank * nprocs + localRank;
        }

        /**
         * @param localRank a child of this host, 0..nprocs-1.
         * @return the launcher variables it gets.
         */
        public Map<String, String> environment(final int localRank)
        {
            if (localRank < 0 || localRank >= nprocs)
            {
                throw new IllegalArgumentException("local rank " + localRank + " is outside 0.." + (nprocs - 1));
            }
            return LaunchEnvironment.variables(rank(localRank), size(), localRank, nprocs, masterAddr, masterPort,
                commId);
        }
    }

    /**
     * @param command the program and its arguments, the same for every child.
     * @param world   where the children stand.
     * @param binding whether each runs on a CPU of its own.
     */
    public ChildCommand(final List<String> command, final World world, final CpuBinding binding)
    {
        if (command.isEmpty())
        {
            throw new IllegalArgumentException("no command to run");
        }
        this.command = List.copyOf(command);
        this.world = world;
        this.binding = binding;
    }

    /** @return the number of children on this host. */
    public int nprocs()
    {
        return world.nprocs();
    }

    /** @return where the children stand. */
    public World world()
    {
        return world;
    }

    /** @return whether and where the children are bound to CPUs. */
    public CpuBinding binding()
    {
        return binding;
    }

    /**
     * @param localRank the child, or -1 for the line without its CPU binding.
     * @return the child's command line: {@code taskset -c CPU} when bound, then the command.
     */
    public List<String> command(final int localRank)
    {
        if (localRank >= world.nprocs())
        {
            throw new IllegalArgumentException("local rank " + localRank + " is outside 0.." + (world.nprocs() - 1));
        }
        final List<String> line = new ArrayList<>(localRank < 0 ? List.of() : binding.prefix(localRank));
        line.addAll(command);
        return line;
    }

    /**
     * @param localRank the child's local rank.
     * @param inherited the launcher's environment.
     * @return the child's: the inherited one less every launcher variable, with the child's own over it, and
     *         {@value #OMP_NUM_THREADS} where the inherited one has none ({@link #ompThreads()}).
     */
    public Map<String, String> environment(final int localRank, final Map<String, String> inherited)
    {
        final Map<String, String> env = new HashMap<>(inherited);
        env.keySet().removeAll(LaunchEnvironment.launcherVariables());
        env.putAll(world.environment(localRank));
        env.putIfAbsent(OMP_NUM_THREADS, Integer.toString(ompThreads()));
        return env;
    }

    /** @return each child's share of the CPUs this launcher may use: at least 1. */
    public int ompThreads()
    {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / world.nprocs());
    }

    /**
     * @param localRank the child's local rank.
     * @return a builder of the child: {@link #command(int)} and {@link #environment(int, Map)} of this process's
     *         environment; streams are the caller's to set.
     */
    public ProcessBuilder processBuilder(final int localRank)
    {
        final ProcessBuilder builder = new ProcessBuilder(command(localRank));
        final Map<String, String> env = environment(localRank, builder.environment());
        builder.environment().clear();
        builder.environment().putAll(env);
        return builder;
    }
}
