package io.jccl.bench;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.Protocol;
import io.jccl.Topology;
import io.jccl.schedules.Generators;
import io.jccl.schedules.msccl.MscclWriter;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * MSCCL XML files for the bench's tests: jccl-schedules' own fixtures (always in the repository), the shared real
 * files (outside it; tests that need them skip, saying why, when they are absent), and built-ins written here.
 */
final class ScheduleFixtures
{
    /** jccl-schedules' fixtures, relative to the bench module (Surefire's working directory). */
    static final Path OWN = Path.of("..", "jccl-schedules", "src", "test", "resources", "msccl");
    /** The shared real files, relative to the bench module. */
    static final Path SHARED = Path.of("..", "..", "shared", "schedules", "msccl-xml");

    private ScheduleFixtures()
    {
    }

    /**
     * @param name a file of jccl-schedules' {@code src/test/resources/msccl/}.
     * @return its path.
     */
    static Path own(final String name)
    {
        final Path file = OWN.resolve(name);
        Assumptions.assumeTrue(Files.isRegularFile(file), "jccl-schedules' fixture " + file.toAbsolutePath() +
            " is absent: the bench tests run from the bench module of a full checkout");
        return file;
    }

    /** @return jccl-schedules' sound fixtures, as its {@code msccl/sound.txt} lists them. */
    static List<Path> ownSound()
    {
        try
        {
            return Files.readAllLines(own("sound.txt")).stream().filter(l -> !l.isBlank() && !l.startsWith("#"))
                .map(OWN::resolve).toList();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return the shared fixture folder; skips the calling test, saying why, when it is absent. */
    static Path sharedDir()
    {
        Assumptions.assumeTrue(Files.isDirectory(SHARED), "the shared MSCCL XML fixtures are absent: " +
            SHARED.toAbsolutePath().normalize() + " does not exist (they live beside the clone, in ../shared, " +
            "which a fresh clone lacks)");
        return SHARED;
    }

    /**
     * @param name a shared fixture's file name (under {@code invalid/} for the invalid ones).
     * @return its path; skips the calling test when absent.
     */
    static Path shared(final String name)
    {
        final Path file = sharedDir().resolve(name);
        Assumptions.assumeTrue(Files.isRegularFile(file), "shared fixture " + file + " is absent");
        return file;
    }

    /**
     * @param dir a folder.
     * @return its {@code *.xml} files, sorted.
     */
    static List<Path> xmlFiles(final Path dir)
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().endsWith(".xml")).sorted().toList();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Writes a built-in as MSCCL XML (both placements, any size).
     *
     * @param dir        where.
     * @param algorithm  the algorithm.
     * @param collective the collective.
     * @param ranks      rank count.
     * @param channels   channels.
     * @return the file.
     */
    static Path builtIn(final Path dir, final Algorithm algorithm, final Collective collective, final int ranks,
        final int channels)
    {
        final Path file = dir.resolve(algorithm.lowerName() + "-" + collective.xmlName() + "-" + ranks + ".xml");
        try
        {
            Files.writeString(file, MscclWriter.write(Generators.generate(algorithm, collective,
                Topology.singleProcess(ranks), channels, 0), Protocol.SIMPLE, true, true));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return file;
    }
}
