package io.jccl.schedules.msccl;

import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Settings;
import io.jccl.StableHash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The MSCCL XML schedules registered on a communicator ({@code JCCL_SCHEDULE_FILES}, {@code Context.scheduleFiles}),
 * loaded and validated once at creation; a call runs the first that matches it, as MSCCL's executor picks. Immutable;
 * thread-safe.
 */
public final class ScheduleRegistry
{
    private final List<MscclSchedule> schedules;

    private ScheduleRegistry(final List<MscclSchedule> schedules)
    {
        this.schedules = schedules;
    }

    /** @return a hash of the registered schedules' programs, the same in every JVM for the same files. */
    public long stableHash()
    {
        long h = StableHash.mix(StableHash.OFFSET_BASIS, schedules.size());
        for (final MscclSchedule schedule : schedules)
        {
            h = StableHash.mix(h, schedule.program().toString());
            h = StableHash.mix(h, schedule.protocol().lowerName());
        }
        return h;
    }

    /**
     * @param paths files, or directories whose {@code *.xml} files are read in sorted order.
     * @return the registry.
     * @throws JcclInvalidArgumentException naming the file when one cannot be read, is malformed or invalid
     *                                      ({@link io.jccl.schedules.msccl.MscclFormatException} lists every error).
     */
    public static ScheduleRegistry load(final List<Path> paths)
    {
        final List<MscclSchedule> schedules = new ArrayList<>();
        for (final Path path : paths)
        {
            for (final Path file : files(path))
            {
                // the reader and the check throw MscclFormatException (an invalid argument) listing every error
                schedules.add(MscclFile.read(file, false).requireValid());
            }
        }
        return new ScheduleRegistry(List.copyOf(schedules));
    }

    private static List<Path> files(final Path path)
    {
        if (!Files.isDirectory(path))
        {
            if (!Files.isRegularFile(path))
            {
                throw new JcclInvalidArgumentException(Settings.SCHEDULE_FILES + ": " + path +
                    " is neither a file nor a directory");
            }
            return List.of(path);
        }
        try (Stream<Path> entries = Files.list(path))
        {
            return entries.filter(p -> p.toString().endsWith(".xml") && Files.isRegularFile(p)).sorted().toList();
        }
        catch (final IOException ex)
        {
            throw new JcclInvalidArgumentException(Settings.SCHEDULE_FILES + ": cannot list " + path + ": " +
                ex.getMessage());
        }
    }

    /** @return whether no schedule is registered. */
    public boolean isEmpty()
    {
        return schedules.isEmpty();
    }

    /**
     * @param collective  the call's collective.
     * @param ranks       the communicator's size.
     * @param inPlace     whether the call is in place.
     * @param count       the call's count, in elements.
     * @param elementSize bytes per element.
     * @return the first schedule that serves the call, or null.
     */
    public MscclSchedule select(final Collective collective, final int ranks, final boolean inPlace, final long count,
        final int elementSize)
    {
        final long elements = collective.totalCount(count, ranks);
        for (final MscclSchedule schedule : schedules)
        {
            if (schedule.whyNot(collective, ranks, inPlace, elements * elementSize, elements) == null)
            {
                return schedule;
            }
        }
        return null;
    }
}
