package io.jccl.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The host's CPUs as the kernel lists them: the CPUs online, and the list format ({@code 0-3,8,10-11}) that
 * {@code /sys/devices/system/cpu/online} and {@code /proc/self/status}'s {@code Cpus_allowed_list} share. A process
 * bound to one CPU ({@code taskset}, {@code --bind-to core}) sees one in {@link Runtime#availableProcessors()}; whether
 * the processes of a host outnumber its CPUs is a question about the host ({@link #sharedByRanks()}).
 */
public final class HostCpus
{
    /**
     * Linux's list of the CPUs online: the kernel's interface (sysfs), the same path on every host, not a file of the
     * project or of one machine; where it is absent (not Linux) {@link #online()} falls back to the JVM's count.
     */
    private static final Path KERNEL_ONLINE_CPUS = Path.of("/sys/devices/system/cpu/online");
    /**
     * Linux's status of the calling process (procfs), whose {@code Cpus_allowed_list} line is its CPU affinity: the
     * kernel's interface, the same path for every process on every host, not a file of the project or of one machine
     * (the JDK has no call for the affinity); where it is absent (not Linux) {@link #allowed()} says unknown.
     */
    private static final Path KERNEL_SELF_STATUS = Path.of("/proc/self/status");
    private static final String ALLOWED_LINE = "Cpus_allowed_list:";

    private HostCpus()
    {
    }

    /**
     * @return the CPUs online on this host; {@link Runtime#availableProcessors()} where the kernel's list cannot be
     *         read (not Linux).
     */
    public static int online()
    {
        try
        {
            final int online = parse(Files.readString(KERNEL_ONLINE_CPUS)).size();
            if (online > 0)
            {
                return online;
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // not Linux, or a format this does not know: what the JVM sees
        }
        return Runtime.getRuntime().availableProcessors();
    }

    /**
     * @return the CPUs this process may run on (its affinity, {@code Cpus_allowed_list}), in order; empty where it
     *         cannot be read (not Linux).
     */
    public static List<Integer> allowed()
    {
        try
        {
            for (final String line : Files.readAllLines(KERNEL_SELF_STATUS))
            {
                if (line.startsWith(ALLOWED_LINE))
                {
                    return parse(line.substring(ALLOWED_LINE.length()));
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // not Linux, or a format this does not know: unknown
        }
        return List.of();
    }

    /**
     * The CPUs the ranks of this host share, as the cost model and the direct-read threshold count them: whether its
     * processes outnumber them is whether they take turns on a CPU.
     *
     * @return {@link #sharedByRanks(int, int, int)} of this process's affinity, the host's online CPUs and the JVM's
     *         count.
     */
    public static int sharedByRanks()
    {
        return sharedByRanks(allowed().size(), online(), Runtime.getRuntime().availableProcessors());
    }

    /**
     * @param allowed the CPUs this process may run on (0 when unknown).
     * @param online  the host's online CPUs.
     * @param jvm     {@link Runtime#availableProcessors()}: the affinity, or a container's CPU quota where smaller.
     * @return the host's online CPUs where this process is bound to fewer of them ({@code mpirun --bind-to core},
     *         {@code taskset}: its peers run on the others), else the JVM's count, which honours a container's quota
     *         (a process bound inside a container with a quota is counted as bound: the quota is not known then).
     */
    public static int sharedByRanks(final int allowed, final int online, final int jvm)
    {
        return allowed > 0 && allowed < online ? online : Math.max(1, jvm);
    }

    /**
     * @param list a kernel CPU list such as {@code 0-3,8,10-11}.
     * @return its CPUs, in order.
     * @throws IllegalArgumentException when it is not such a list.
     */
    public static List<Integer> parse(final String list)
    {
        final List<Integer> cpus = new ArrayList<>();
        for (final String part : list.trim().split(","))
        {
            if (part.isBlank())
            {
                continue;
            }
            final int dash = part.indexOf('-');
            try
            {
                final int first = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).trim());
                final int last = dash < 0 ? first : Integer.parseInt(part.substring(dash + 1).trim());
                if (first < 0 || last < first)
                {
                    throw new IllegalArgumentException("CPU range '" + part + "' is empty or negative");
                }
                for (int cpu = first; cpu <= last; cpu++)
                {
                    cpus.add(cpu);
                }
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("'" + list.trim() + "' is not a CPU list", ex);
            }
        }
        return cpus;
    }
}
