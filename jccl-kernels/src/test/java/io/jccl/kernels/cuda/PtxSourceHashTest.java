package io.jccl.kernels.cuda;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shipped PTX was built from the CUDA sources as they are: each PTX's header carries the hash of
 * {@code cuda-src/} that {@code build-ptx.sh} computed, and this test computes it again by the same rule (the
 * script's header states it; {@link #sourceHash(Path)} is the Java twin). The copy of {@code jccl_types.def} that
 * {@link KernelNames} reads must equal the original, and the index must list one PTX per {@code cuda-src/*.cu}.
 */
class PtxSourceHashTest
{
    private static final Path CUDA_SRC = Path.of("..", "cuda-src");
    private static final String REBUILD = "run cuda-src/build-ptx.sh (with nvcc 13 on the PATH) and commit " +
        "jccl-kernels/src/main/resources/io/jccl/kernels/";

    private static String hash;

    @BeforeAll
    static void hashSources()
    {
        assumeTrue(Files.isDirectory(CUDA_SRC), () -> CUDA_SRC.toAbsolutePath().normalize() + " is absent (a build " +
            "outside the repository): nothing to compare the shipped PTX with");
        hash = sourceHash(CUDA_SRC);
    }

    @Test
    void shouldCarryTheHashOfCudaSrcWhenShipped()
    {
        final PtxResources resources = new PtxResources();
        final Set<String> shipped = resources.shipped();
        assertFalse(shipped.isEmpty(), "no PTX is shipped (" + PtxResources.INDEX + " is missing or empty): " +
            REBUILD);
        final List<String> stale = new ArrayList<>();
        for (final String base : shipped)
        {
            final String carried = PtxResources.sourceHash(resources.load(base));
            if (!carried.equals(hash))
            {
                stale.add(base + ".ptx was built from sources with hash " + carried);
            }
        }
        assertEquals(List.of(), stale, "cuda-src/ now hashes to " + hash + ", the shipped PTX is stale: " + REBUILD);
    }

    @Test
    void shouldShipOnePtxPerCudaSourceWhenBuilt() throws IOException
    {
        final Set<String> sources = new TreeSet<>();
        try (Stream<Path> files = Files.list(CUDA_SRC))
        {
            files.map(path -> path.getFileName().toString()).filter(name -> name.endsWith(".cu"))
                .forEach(name -> sources.add(name.substring(0, name.length() - 3)));
        }
        assertEquals(sources, new PtxResources().shipped(), "the PTX index lists other bases than the .cu files " +
            "in cuda-src/: " + REBUILD);
    }

    @Test
    void shouldShipTheSameTypeListWhenCopied() throws IOException
    {
        final byte[] original = Files.readAllBytes(CUDA_SRC.resolve("jccl_types.def"));
        try (InputStream in = PtxSourceHashTest.class.getResourceAsStream(KernelNames.DEF_RESOURCE))
        {
            assertNotNull(in, KernelNames.DEF_RESOURCE + " is missing: " + REBUILD);
            assertArrayEquals(original, in.readAllBytes(), KernelNames.DEF_RESOURCE + " differs from " +
                "cuda-src/jccl_types.def: " + REBUILD);
        }
    }

    @Test
    void shouldHashNamesAndContentsWhenFilesChange(@org.junit.jupiter.api.io.TempDir final Path temp)
        throws IOException
    {
        Files.writeString(temp.resolve("a.cu"), "x");
        final String one = sourceHash(temp);
        // a file's name, a move of bytes from one file to the next, excluded paths
        Files.writeString(temp.resolve("b.cuh"), "");
        final String two = sourceHash(temp);
        Files.writeString(temp.resolve("a.cu"), "");
        Files.writeString(temp.resolve("b.cuh"), "x");
        final String three = sourceHash(temp);
        Files.createDirectories(temp.resolve("host-test"));
        Files.writeString(temp.resolve("host-test").resolve("check.cpp"), "ignored");
        Files.writeString(temp.resolve(".a.cu.swp"), "ignored");
        assertEquals(three, sourceHash(temp));
        assertEquals(3, Set.of(one, two, three).size());
        // what sha256sum gives for the rule's bytes "a.cu\0x\0"
        assertEquals(sha256("a.cu\0x\0".getBytes(StandardCharsets.UTF_8)), one);
    }

    /**
     * The source hash, as build-ptx.sh computes it: every regular file under the directory, recursively, not
     * following symbolic links, except those under {@code host-test/} and those with a path component starting
     * with "."; named by the path relative to the directory with "/" separators; sorted by the bytes of the names;
     * SHA-256 over name, 0 byte, content, 0 byte for each; lower-case hex.
     *
     * @param root the {@code cuda-src} directory.
     * @return 64 lower-case hex digits.
     */
    static String sourceHash(final Path root)
    {
        final List<byte[]> names = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root))
        {
            walk.filter(path -> Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)).forEach(path ->
            {
                final Path relative = root.relativize(path);
                if (relative.startsWith("host-test"))
                {
                    return;
                }
                for (final Path part : relative)
                {
                    if (part.toString().startsWith("."))
                    {
                        return;
                    }
                }
                names.add(String.join("/", Arrays.stream(relative.toString().split(
                    java.util.regex.Pattern.quote(relative.getFileSystem().getSeparator()))).toList())
                    .getBytes(StandardCharsets.UTF_8));
            });
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        names.sort(Arrays::compareUnsigned);
        final MessageDigest digest = sha256();
        for (final byte[] name : names)
        {
            digest.update(name);
            digest.update((byte)0);
            try
            {
                digest.update(Files.readAllBytes(root.resolve(new String(name, StandardCharsets.UTF_8))));
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            digest.update((byte)0);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static String sha256(final byte[] bytes)
    {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
