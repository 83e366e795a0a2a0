package io.jccl.kernels.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PTX that {@code cuda-src/build-ptx.sh} builds into this module's resources ({@value #DIRECTORY}), and what can
 * be read from a PTX text: the hash of the sources it was built from (its first line,
 * {@value #SOURCE_HASH_PREFIX}{@code <64 hex digits>}), its {@code .version} and its {@code .entry} kernels. The
 * shipped bases are listed in {@value #INDEX}, one a line, because resources inside a jar cannot be listed.
 * <p>
 * Stateless and thread-safe.
 */
public final class PtxResources
{
    /** Class-path directory of the PTX files, {@code <base>.ptx}. */
    public static final String DIRECTORY = "/io/jccl/kernels/ptx/";
    /** Class-path resource listing the shipped PTX bases, one a line. */
    public static final String INDEX = DIRECTORY + "index.txt";
    /** The driver's limit on the threads of any block. */
    public static final int MAX_THREADS_PER_BLOCK = 1024;
    /** What the first line of a shipped PTX starts with, before the source hash. */
    public static final String SOURCE_HASH_PREFIX = "// jccl-cuda-src-sha256: ";

    private static final Pattern BASE = Pattern.compile("[A-Za-z0-9_]+");
    private static final Pattern HASH = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern ENTRY = Pattern.compile(
        "^\\s*(?:\\.visible\\s+|\\.weak\\s+)?\\.entry\\s+([A-Za-z_$%][A-Za-z0-9_$]*)", Pattern.MULTILINE);
    /** An entry, its parameter list, and its launch bound where it has one. */
    private static final Pattern BOUND =
        Pattern.compile("\\.entry\\s+(\\w+)\\s*\\([^)]*\\)\\s*(?:\\.maxntid\\s+(\\d+))?");
    private static final Pattern VERSION = Pattern.compile("^\\s*\\.version\\s+(\\d+\\.\\d+)\\s*$",
        Pattern.MULTILINE);

    /** Reads the resources through this class's loader. */
    public PtxResources()
    {
    }

    /**
     * @param base a PTX base name ({@code elementwise}, {@code interpreter}).
     * @return the PTX text, with its header line.
     * @throws IllegalArgumentException if no PTX of that name is shipped.
     * @throws IllegalStateException    if the resource cannot be read.
     */
    public String load(final String base)
    {
        if (base == null || !BASE.matcher(base).matches())
        {
            throw new IllegalArgumentException("'" + base + "' is not a PTX base name (letters, digits, _)");
        }
        final String text = read(DIRECTORY + base + ".ptx");
        if (text == null)
        {
            throw new IllegalArgumentException("no PTX '" + base + "' in " + DIRECTORY + " (shipped: " + shipped() +
                "); cuda-src/build-ptx.sh builds one per cuda-src/<base>.cu");
        }
        return text;
    }

    /**
     * @return the shipped PTX bases as {@value #INDEX} lists them, sorted; empty if there is no index.
     * @throws IllegalStateException if the index cannot be read or names a base that is not a valid name.
     */
    public Set<String> shipped()
    {
        final String index = read(INDEX);
        final Set<String> bases = new TreeSet<>();
        if (index == null)
        {
            return Collections.unmodifiableSet(bases);
        }
        for (final String line : index.lines().toList())
        {
            final String base = line.strip();
            if (base.isEmpty())
            {
                continue;
            }
            if (!BASE.matcher(base).matches())
            {
                throw new IllegalStateException(INDEX + " lists '" + base + "', not a PTX base name");
            }
            bases.add(base);
        }
        return Collections.unmodifiableSet(bases);
    }

    /**
     * @param ptx a PTX text as {@code build-ptx.sh} writes it.
     * @return the 64 lower-case hex digits of the source hash on its first line.
     * @throws IllegalArgumentException if the first line is not a source hash line.
     */
    public static String sourceHash(final String ptx)
    {
        final int end = ptx.indexOf('\n');
        final String first = (end < 0 ? ptx : ptx.substring(0, end)).strip();
        if (first.startsWith(SOURCE_HASH_PREFIX.strip()))
        {
            final String hash = first.substring(SOURCE_HASH_PREFIX.strip().length()).strip();
            if (HASH.matcher(hash).matches())
            {
                return hash;
            }
        }
        throw new IllegalArgumentException("the PTX does not start with '" + SOURCE_HASH_PREFIX +
            "<64 hex digits>' but with '" + first + "': build it with cuda-src/build-ptx.sh");
    }

    /**
     * @param ptx a PTX text.
     * @return the names of its kernels ({@code .entry} directives), sorted.
     */
    public static Set<String> entries(final String ptx)
    {
        final Set<String> names = new TreeSet<>();
        final Matcher matcher = ENTRY.matcher(ptx);
        while (matcher.find())
        {
            names.add(matcher.group(1));
        }
        return Collections.unmodifiableSet(names);
    }

    /**
     * @param ptx a PTX text.
     * @return each kernel's most threads a block, by name: its launch bound ({@code .maxntid}) where it has one, else
     *         the driver's limit on any block, {@link #MAX_THREADS_PER_BLOCK}.
     */
    public static Map<String, Integer> launchBounds(final String ptx)
    {
        final Map<String, Integer> bounds = new TreeMap<>();
        final Matcher matcher = BOUND.matcher(ptx);
        while (matcher.find())
        {
            bounds.put(matcher.group(1), matcher.group(2) == null ? MAX_THREADS_PER_BLOCK :
                Integer.parseInt(matcher.group(2)));
        }
        return Collections.unmodifiableMap(bounds);
    }

    /**
     * @param ptx a PTX text.
     * @return its PTX ISA version as written on its {@code .version} line ({@code 7.8}).
     * @throws IllegalArgumentException if it has no {@code .version} line.
     */
    public static String version(final String ptx)
    {
        final Matcher matcher = VERSION.matcher(ptx);
        if (!matcher.find())
        {
            throw new IllegalArgumentException("the PTX has no .version line");
        }
        return matcher.group(1);
    }

    private static String read(final String resource)
    {
        try (InputStream in = PtxResources.class.getResourceAsStream(resource))
        {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read " + resource, ex);
        }
    }
}
