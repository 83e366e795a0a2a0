package io.jccl.launch;

import io.jccl.transport.HostCpus;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code --bind-to core|none} of {@code jccl-run} and {@code jccl-bench --nprocs N}: whether each child runs on a CPU
 * of its own, as {@code mpirun} binds its processes to cores by default when there are no more processes than cores
 * (so the bench's figures compare with Open MPI's and nccl-tests' under mpirun). A bound child starts under
 * {@code taskset -c CPU}; the child of local rank k gets the k-th CPU this launcher may run on
 * ({@code Cpus_allowed_list}).
 * <p>
 * Measured on this 2-core machine, 8-byte AllReduce between two processes: 0.8-1.2 us per call when the two ranks'
 * threads ran on different CPUs, 7-10 us when the scheduler put both on one CPU (every hand-off is then a context
 * switch), and unbound runs fell into either mode from one launch to the next.
 */
public final class CpuBinding
{
    /** The launcher flag. */
    public static final String FLAG = "--bind-to";
    /** Its value for a CPU per child. */
    public static final String CORE = "core";
    /** Its value for no binding. */
    public static final String NONE = "none";
    /** No binding: children start as they are. */
    public static final CpuBinding UNBOUND = new CpuBinding(null, new int[0], "not bound");

    private static final String TASKSET = "taskset";

    private final String taskset;
    private final int[] cpus;
    private final String description;

    private CpuBinding(final String taskset, final int[] cpus, final String description)
    {
        this.taskset = taskset;
        this.cpus = cpus;
        this.description = description;
    }

    /**
     * @param requested   {@value #CORE}, {@value #NONE}, or null when the flag is absent (then {@value #CORE} where
     *                    it can be done, as mpirun: no more children than CPUs, and {@code taskset} present).
     * @param nprocs      the children.
     * @param allowedCpus the CPUs this launcher may run on, in order ({@link #allowedCpus()}).
     * @param taskset     the {@code taskset} executable, or null when there is none ({@link #findTaskset(Map)}).
     * @return the binding.
     * @throws IllegalArgumentException when the value is neither word, or {@value #CORE} was asked for and cannot be
     *                                  done (more children than CPUs, or no {@code taskset}).
     */
    public static CpuBinding resolve(final String requested, final int nprocs, final List<Integer> allowedCpus,
        final String taskset)
    {
        if (requested != null && !CORE.equals(requested) && !NONE.equals(requested))
        {
            throw new IllegalArgumentException(FLAG + " '" + requested + "' is neither " + CORE + " nor " + NONE);
        }
        if (NONE.equals(requested))
        {
            return new CpuBinding(null, new int[0], "not bound (" + FLAG + " " + NONE + ")");
        }
        final String unable = nprocs > allowedCpus.size() ?
            nprocs + " processes on " + allowedCpus.size() + " CPUs" :
            taskset == null ? "no taskset on the PATH" : null;
        if (unable != null)
        {
            if (requested != null)
            {
                throw new IllegalArgumentException(FLAG + " " + CORE + " cannot bind: " + unable);
            }
            return new CpuBinding(null, new int[0], "not bound (" + unable + ")");
        }
        final int[] chosen = new int[nprocs];
        for (int i = 0; i < nprocs; i++)
        {
            chosen[i] = allowedCpus.get(i);
        }
        return new CpuBinding(taskset, chosen, "bound to a CPU each (" + FLAG + " " + CORE + ")");
    }

    /** @return whether children run under {@code taskset}. */
    public boolean bound()
    {
        return taskset != null;
    }

    /**
     * @param rank the child.
     * @return the words before the child's {@code java}: {@code taskset -c CPU}, or none.
     */
    public List<String> prefix(final int rank)
    {
        return taskset == null ? List.of() : List.of(taskset, "-c", Integer.toString(cpus[rank]));
    }

    /** @return one line for the launcher's log: how the children run, with each child's CPU when bound. */
    public String describe()
    {
        if (taskset == null)
        {
            return description;
        }
        final StringBuilder sb = new StringBuilder(description).append(':');
        for (int rank = 0; rank < cpus.length; rank++)
        {
            sb.append(" rank ").append(rank).append(" on CPU ").append(cpus[rank]).append(rank + 1 < cpus.length ?
                "," : "");
        }
        return sb.toString();
    }

    /**
     * @return the CPUs this process may run on ({@link HostCpus#allowed()}); empty where they cannot be read (not
     *         Linux).
     */
    public static List<Integer> allowedCpus()
    {
        return HostCpus.allowed();
    }

    /**
     * @param env the environment whose {@code PATH} is searched.
     * @return the path of an executable {@code taskset}, or null.
     */
    public static String findTaskset(final Map<String, String> env)
    {
        final String path = env.getOrDefault("PATH", "");
        for (final String dir : path.split(File.pathSeparator))
        {
            if (!dir.isEmpty())
            {
                final Path candidate = Path.of(dir, TASKSET);
                if (Files.isExecutable(candidate))
                {
                    return candidate.toString();
                }
            }
        }
        return null;
    }
}
