package io.jccl.schedules.msccl;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Where the fixtures are: this module's {@code src/test/resources/msccl/} and the shared real files. */
final class MscclTestFiles
{
    /** The shared fixtures, relative to the module directory (Surefire's working directory). */
    static final Path SHARED = Path.of("..", "..", "shared", "schedules", "msccl-xml");

    private MscclTestFiles()
    {
    }

    /** @return the shared fixture folder; skips the calling test, saying why, when it is absent. */
    static Path sharedDir()
    {
        Assumptions.assumeTrue(Files.isDirectory(SHARED), "the shared MSCCL XML fixtures are absent: " +
            SHARED.toAbsolutePath().normalize() + " does not exist (they live beside the clone, in ../shared, " +
            "which a fresh clone lacks); the own fixtures in src/test/resources/msccl still run");
        return SHARED;
    }

    /** @return the valid shared fixtures when ../shared is beside the clone, else none (never skips). */
    static List<Path> sharedValidIfPresent()
    {
        return Files.isDirectory(SHARED) ? list(SHARED) : List.of();
    }

    /** @return the 17 valid shared fixtures, sorted; skips when absent. */
    static List<Path> sharedValid()
    {
        return list(sharedDir());
    }

    /** @return the 2 invalid shared fixtures, sorted; skips when absent. */
    static List<Path> sharedInvalid()
    {
        return list(sharedDir().resolve("invalid"));
    }

    /** @return a shared fixture by name; skips when absent. */
    static Path shared(final String name)
    {
        final Path file = sharedDir().resolve(name);
        Assumptions.assumeTrue(Files.isRegularFile(file), "shared fixture " + file + " is absent");
        return file;
    }

    private static List<Path> list(final Path dir)
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().endsWith(".xml")).sorted().toList();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the text of {@code src/test/resources/msccl/<name>}. */
    static String resource(final String name)
    {
        try (InputStream in = MscclTestFiles.class.getResourceAsStream("/msccl/" + name))
        {
            if (in == null)
            {
                throw new IllegalStateException("no test resource msccl/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the resource read as a schedule. */
    static MscclSchedule read(final String name)
    {
        return new MscclReader().readString(resource(name), name);
    }

    /** @return the fixtures listed in {@code msccl/sound.txt}: they validate strictly and compute their collective. */
    static List<String> soundResourceNames()
    {
        return resource("sound.txt").lines().filter(line -> !line.isBlank() && !line.startsWith("#")).toList();
    }

    /** @return the names of every resource fixture. */
    static List<String> resourceNames()
    {
        return List.of("allgather-ring-3-ll.xml", "allreduce-2.xml", "allreduce-star-3-scratch.xml",
            "alltoall-direct-3.xml", "cyclic-waits.xml", "mismatched-cnt.xml", "missing-attribute.xml",
            "missing-dependency.xml", "offset-out-of-range.xml", "racy-allreduce.xml", "reducescatter-direct-4.xml",
            "reducescatter-double-count.xml", "reducescatter-ring-4.xml", "shared-connection.xml", "truncated.xml",
            "two-send-peers.xml", "unknown-step-type.xml");
    }
}
