package io.jccl.transport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Files of jccl's in {@code /dev/shm} whose owner process is gone, and their removal. Four kinds of names carry
 * their owner's pid:
 * <ul>
 *     <li>{@code jccl-mem-<pid namespace>-<pid>-<n>}: a buffer of jccl's shared allocator ({@link SharedBuffers}),
 *     kept by name while it lives so that peers can map it; its owner unlinks it when the buffer is freed or the
 *     JVM exits, and a killed owner leaves it for this sweep.</li>
 *     <li>{@code jccl-<pid>-<n>}: {@link SharedMemoryDevice}'s mapping files, unlinked a moment after they are
 *     made; one survives only a kill at that moment.</li>
 *     <li>{@code jccl-fifo-<pid namespace>-<pid>-<n>}: a FIFO file its creator prepares before it links it to its
 *     shared name ({@link SharedFifoFile}); one survives only a kill at that moment.</li>
 *     <li>{@code <communicator>-standing-<pid namespace>-<pid>-<rank>}: where a rank stands (its call, whom it
 *     waits on), kept by name while the communicator lives; a killed owner leaves it for this sweep.</li>
 * </ul>
 * and FIFO files under their shared name ({@code jccl-<communicator>-<from>-<to>-<channel>-<protocol>-<kind>}) name
 * their creator in their header: such a file stays by name until the peer attaches, forever where the peer never
 * comes, and is removed once its creator is gone.
 * An owner is gone when no process has its pid, when that process is a zombie (its mappings are already released),
 * or when the process with that pid started more than {@link #PID_REUSE_MARGIN_MS} ms after the file last
 * changed (the pid was reused). Buffer files of another pid namespace (another container sharing
 * {@code /dev/shm}) are never judged: their pids mean nothing here; nor are FIFO files that name no creator (an
 * earlier version's), which {@code ProcessGroupJoin} still sweeps by their communicator's name. Thread-safe; concurrent
 * sweeps in several processes are harmless (a file already gone is skipped).
 */
public final class StaleSharedFiles
{
    /**
     * A file that changed this long before its pid's process started belongs to an earlier process with that pid;
     * the margin covers the coarse start times the kernel reports (boot time in whole seconds).
     */
    public static final long PID_REUSE_MARGIN_MS = 2_000;

    /**
     * The infix of a rank's standing file ({@code <communicator>-standing-<pid namespace>-<pid>-<rank>}), where it
     * publishes which call it runs and whom it waits on, for peers that time out.
     */
    public static final String STANDING_INFIX = "-standing-";

    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");
    private static final Pattern BUFFER_NAME = Pattern.compile(SharedBuffers.NAME_PREFIX +
        "(\\d{1,20})-(\\d{1,10})-(\\d{1,19})");
    private static final Pattern STANDING_NAME = Pattern.compile("jccl-[0-9a-f]{1,64}" + STANDING_INFIX +
        "(\\d{1,20})-(\\d{1,10})-\\d{1,10}");
    private static final Pattern MAPPING_NAME = Pattern.compile("jccl-(\\d{1,10})-(\\d{1,19})");
    private static final Pattern FIFO_TEMP_NAME = Pattern.compile(SharedFifoFile.TEMP_PREFIX +
        "(\\d{1,20})-(\\d{1,10})-(\\d{1,19})");
    private static final long OWN_NAMESPACE = readPidNamespace();

    private StaleSharedFiles()
    {
    }

    /** @return the inode of this process's pid namespace ({@code /proc/self/ns/pid}), 0 where it cannot be read. */
    public static long pidNamespace()
    {
        return OWN_NAMESPACE;
    }

    private static long readPidNamespace()
    {
        try
        {
            final String link = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
            final Matcher m = Pattern.compile("\\[(\\d+)]").matcher(link);
            return m.find() ? Long.parseLong(m.group(1)) : 0;
        }
        catch (final IOException | UnsupportedOperationException | SecurityException | NumberFormatException ex)
        {
            return 0;
        }
    }

    /**
     * Removes the files of gone owners from a directory.
     *
     * @param directory where jccl's files live ({@code /dev/shm}).
     * @return the files removed.
     */
    public static List<Path> sweep(final Path directory)
    {
        final List<Path> removed = new ArrayList<>();
        final List<Path> candidates;
        try (Stream<Path> files = Files.list(directory))
        {
            candidates = files.filter(f -> f.getFileName().toString().startsWith("jccl-")).toList();
        }
        catch (final IOException ex)
        {
            LOG.warn("jccl WARN cannot list {} for files of dead processes: {}", directory, ex.toString());
            return removed;
        }
        for (final Path file : candidates)
        {
            if (isStale(file))
            {
                try
                {
                    if (Files.deleteIfExists(file))
                    {
                        removed.add(file);
                        LOG.warn("jccl WARN removed {}, left by a process that is gone", file);
                    }
                }
                catch (final IOException ex)
                {
                    // another user's file (the sticky /dev/shm refuses), or a race with its owner's own unlink
                    LOG.debug("jccl cannot remove {}: {}", file, ex.toString());
                }
            }
        }
        return removed;
    }

    /**
     * @param file a file in the shared-memory directory.
     * @return true when its name is one of jccl's pid-carrying names, or a FIFO file's whose header names its creator,
     *         and that owner is gone.
     */
    static boolean isStale(final Path file)
    {
        final String name = file.getFileName().toString();
        final Matcher buffer = BUFFER_NAME.matcher(name);
        if (buffer.matches())
        {
            return parses(buffer.group(1)) == OWN_NAMESPACE && !ownerLives(parses(buffer.group(2)), file);
        }
        final Matcher standing = STANDING_NAME.matcher(name);
        if (standing.matches())
        {
            return parses(standing.group(1)) == OWN_NAMESPACE && !ownerLives(parses(standing.group(2)), file);
        }
        final Matcher temp = FIFO_TEMP_NAME.matcher(name);
        if (temp.matches())
        {
            return parses(temp.group(1)) == OWN_NAMESPACE && !ownerLives(parses(temp.group(2)), file);
        }
        if (SharedFifoFile.NAME.matcher(name).matches())
        {
            final long[] creator = SharedFifoFile.creator(file);
            return creator != null && creator[1] == OWN_NAMESPACE && !ownerLives(creator[0], file);
        }
        final Matcher mapping = MAPPING_NAME.matcher(name);
        return mapping.matches() && !ownerLives(parses(mapping.group(1)), file);
    }

    private static long parses(final String digits)
    {
        try
        {
            return Long.parseLong(digits);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    /**
     * @param pid  the owner's pid from a file's name.
     * @param file the file.
     * @return false when no live process has that pid, or the one that has it started after the file last changed.
     */
    private static boolean ownerLives(final long pid, final Path file)
    {
        if (pid <= 0 || !alive(pid))
        {
            return false;
        }
        final Instant started = ProcessHandle.of(pid).flatMap(h -> h.info().startInstant()).orElse(null);
        final FileTime changed = changed(file);
        return started == null || changed == null ||
            changed.toMillis() >= started.toEpochMilli() - PID_REUSE_MARGIN_MS;
    }

    /**
     * @param pid a pid.
     * @return true when a process has it and is not a zombie; true as well when that cannot be told (a sweep errs
     *         on the side of keeping a file).
     */
    static boolean alive(final long pid)
    {
        if (!Files.isDirectory(Path.of("/proc/self")))
        {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
        try
        {
            // "pid (comm) S ...": the state follows the last ')', as the command itself may hold one
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            final int close = stat.lastIndexOf(')');
            final char state = close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : 'R';
            return state != 'Z' && state != 'X' && state != 'x';
        }
        catch (final NoSuchFileException ex)
        {
            return false;
        }
        catch (final IOException | SecurityException ex)
        {
            return true;
        }
    }

    private static FileTime changed(final Path file)
    {
        try
        {
            return (FileTime)Files.getAttribute(file, "unix:ctime");
        }
        catch (final IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException ex)
        {
            try
            {
                return Files.getLastModifiedTime(file);
            }
            catch (final IOException gone)
            {
                return null;
            }
        }
    }
}
