package io.jccl.launch;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Settings;
import io.jccl.UniqueId;
import io.jccl.transport.bootstrap.LaunchEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code bin/jccl-run}: starts N processes of any command as ranks of one job, as {@code torchrun} does, so that
 * {@code Jccl.connect(new Context())} in each just works:
 * <pre>
 * bin/jccl-run --nprocs N [--bind-to core|none] [--grace-ms MS]
 *              [--master-addr A --master-port P --nnodes M --node-rank K] -- COMMAND ARGS...
 * </pre>
 * Each child gets {@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK}, {@code LOCAL_WORLD_SIZE},
 * {@code MASTER_ADDR}, {@code MASTER_PORT} and, on one host, {@code JCCL_COMM_ID} with a fresh random secret
 * ({@link ChildCommand}). Across hosts, run it once per host with the same {@code --master-addr}, {@code --master-port}
 * and {@code --nnodes} and each host's {@code --node-rank}; the children then derive the rendezvous secret from
 * {@code JCCL_SECRET} (or the job manager's job id), which must be the same on every host. Every line the children
 * print is prefixed {@code [rank k]}. When one exits non-zero the launcher names it, gives the others
 * {@code --grace-ms} to end, stops the rest, and exits with that child's status ({@link ProcessLauncher}).
 */
@Command(name = "jccl-run", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Starts N processes of COMMAND as the ranks of one jccl job (as torchrun does).",
    footer = {"", "Each child gets RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT and, on " +
        "one host, JCCL_COMM_ID, so Jccl.connect(new Context()) finds the others, and OMP_NUM_THREADS (its share " +
        "of the CPUs) unless set already. Across hosts, set JCCL_SECRET to the same value on every host. Exit status: 0, the first failed rank's status, 1 when a rank could not " +
        "start, 2 for bad arguments."})
public final class JcclRun implements Callable<Integer>
{
    /** The launcher's name in its messages. */
    public static final String NAME = "jccl-run";
    /** Exit status for bad arguments. */
    public static final int EXIT_USAGE = 2;
    /** The grace period's default, in ms: time for the survivors to report a dead peer themselves. */
    public static final long DEFAULT_GRACE_MS = 10_000;

    @Option(names = "--nprocs", required = true, paramLabel = "N", description = "processes on this host")
    private int nprocs;

    @Option(names = CpuBinding.FLAG, paramLabel = "core|none", defaultValue = CpuBinding.NONE,
        description = "core: each process on a CPU of its own (taskset), as mpirun binds; default ${DEFAULT-VALUE}")
    private String bindTo;

    @Option(names = "--grace-ms", paramLabel = "MS", defaultValue = "" + DEFAULT_GRACE_MS,
        description = "after a rank fails, how long the others may run before they are stopped; default " +
        "${DEFAULT-VALUE}")
    private long graceMs;

    @Option(names = "--master-addr", paramLabel = "A", defaultValue = LaunchEnvironment.DEFAULT_HOST,
        description = "rank 0's host, where the ranks meet; default ${DEFAULT-VALUE}")
    private String masterAddr;

    @Option(names = "--master-port", paramLabel = "P", defaultValue = "0",
        description = "the port the ranks meet at; default a free port (one host only)")
    private int masterPort;

    @Option(names = "--nnodes", paramLabel = "M", defaultValue = "1", description = "hosts; default 1")
    private int nnodes;

    @Option(names = "--node-rank", paramLabel = "K", defaultValue = "0",
        description = "this host, 0..M-1; default 0")
    private int nodeRank;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "the program and its arguments, after --")
    private List<String> command;

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;

    private JcclRun(final PrintStream out, final PrintStream err, final Map<String, String> env)
    {
        this.out = out;
        this.err = err;
        this.env = env;
    }

    /**
     * Runs the launcher and exits with its status.
     *
     * @param args the command line.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err, Settings.environment()));
    }

    /**
     * @param args the command line.
     * @param out  where the children's standard output goes.
     * @param err  where their standard error and the launcher's messages go.
     * @param env  the launcher's environment (the children inherit the process's own).
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err,
        final Map<String, String> env)
    {
        final CommandLine line = new CommandLine(new JcclRun(out, err, env))
            .setStopAtPositional(true)
            .setOut(new java.io.PrintWriter(out, true))
            .setErr(new java.io.PrintWriter(err, true));
        return line.execute(args);
    }

    @Override
    public Integer call()
    {
        final ChildCommand children;
        try
        {
            children = children();
        }
        catch (final IllegalArgumentException | JcclInvalidArgumentException ex)
        {
            err.println(NAME + ": " + ex.getMessage());
            return EXIT_USAGE;
        }
        if (env.get(LaunchEnvironment.COMM_ID) != null && nnodes == 1)
        {
            err.println(NAME + ": " + LaunchEnvironment.COMM_ID + " from the environment is replaced by this " +
                "launch's own");
        }
        err.println(NAME + ": " + nprocs + " process" + (nprocs == 1 ? "" : "es") + (nnodes > 1 ? " on host " +
            nodeRank + " of " + nnodes : "") + ", ranks meet at " + children.world().masterAddr() + ":" +
            children.world().masterPort() + ", " + children.binding().describe() +
            (env.containsKey(ChildCommand.OMP_NUM_THREADS) ? "" : ", " + ChildCommand.OMP_NUM_THREADS + "=" +
            children.ompThreads() + " each"));
        return new ProcessLauncher(NAME, children, ProcessLauncher.Output.PREFIXED, graceMs, out, err).run();
    }

    /** @return the children, checked as each will read its variables, before any starts. */
    private ChildCommand children()
    {
        if (graceMs < 0)
        {
            throw new IllegalArgumentException("--grace-ms " + graceMs + " must not be negative");
        }
        final ChildCommand.World world;
        if (nnodes == 1 && masterPort == 0)
        {
            world = ChildCommand.World.oneHost(nprocs, UniqueId.create(masterAddr, ProcessLauncher.freePort()));
        }
        else if (masterPort == 0)
        {
            throw new IllegalArgumentException("--nnodes " + nnodes + " needs --master-port: every host must name " +
                "the same one");
        }
        else
        {
            world = new ChildCommand.World(nprocs, nnodes, nodeRank, masterAddr, masterPort,
                nnodes == 1 ? UniqueId.create(masterAddr, masterPort) : null);
        }
        final ChildCommand children = new ChildCommand(command, world, CpuBinding.resolve(bindTo, nprocs,
            CpuBinding.allowedCpus(), CpuBinding.findTaskset(env)));
        // what the first child will read: a missing secret across hosts is named here, once, before any starts
        LaunchEnvironment.resolve(children.environment(0, env));
        return children;
    }
}
