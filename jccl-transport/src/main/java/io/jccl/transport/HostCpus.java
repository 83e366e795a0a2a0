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
 * the processes of a host outnumber its CPUs is a question about the host.
 */
public final class HostCpus
{
    /**
     * Linux's list of the CPUs online: the kernel's interface (sysfs), the same path on every host, not a file of the
     * project or of one machine; where it is absent (not Linux) {@link #online()} falls back to the JVM's count.
     */
    private static final Path KERNEL_ONLINE_CPUS = Path.of("/sys/devices/system/cpu/online");

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
