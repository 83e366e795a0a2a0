package io.jccl.bench;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Settings;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One list of settings: the README's table is {@code jccl-bench settings}, every {@code "JCCL_..."} literal that
 * names a variable in the main sources is one of {@link Settings#all()}, and a system property wins over the
 * environment.
 */
class SettingsListTest
{
    private static final Path ROOT = Path.of("..");
    /** A variable named as a whole literal (messages that mention one in a sentence are not reads). */
    private static final Pattern LITERAL = Pattern.compile("\"(JCCL_[A-Z0-9_]+)\"");

    @Test
    void shouldPrintTheReadmesTableWhenAskedForSettings() throws IOException
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, SettingsCommand.run(new String[0], new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err));
        final String readme = Files.readString(ROOT.resolve("README.md"));
        final String start = "<!-- settings:start -->\n";
        final String table = readme.substring(readme.indexOf(start) + start.length(),
            readme.indexOf("<!-- settings:end -->"));
        assertEquals(out.toString(StandardCharsets.UTF_8), table, "the README's settings table is stale: paste " +
            "the output of bench/jccl-bench settings between its markers");
        assertEquals(Settings.all().size() + 2, table.split("\n").length);
    }

    @Test
    void shouldListEveryVariableTheMainSourcesNameWhenScanned() throws IOException
    {
        final List<String> unlisted = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT, 12))
        {
            for (final Path file : files.filter(SettingsListTest::isMainSource).toList())
            {
                final Matcher matcher = LITERAL.matcher(Files.readString(file));
                while (matcher.find())
                {
                    try
                    {
                        Settings.entry(matcher.group(1));
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        unlisted.add(file + ": " + matcher.group(1));
                    }
                }
            }
        }
        assertTrue(unlisted.isEmpty(), () -> "variables read but not listed in io.jccl.Settings: " + unlisted);
    }

    @Test
    void shouldPreferThePropertyAndNameTheVariableWhenReading()
    {
        final String property = Settings.propertyName(Settings.TUNER_SEED);
        assertEquals("jccl.tuner.seed", property);
        System.setProperty(property, " 42 ");
        try
        {
            assertEquals("42", Settings.value(Settings.TUNER_SEED));
            assertEquals("42", Settings.environment().get(Settings.TUNER_SEED));
        }
        finally
        {
            System.clearProperty(property);
        }
        assertThrows(IllegalArgumentException.class, () -> Settings.value("JCCL_NO_SUCH_SETTING"));
        assertEquals(128L << 10, Settings.parseBytes("x", "128K"));
        assertEquals(1536, Settings.parseBytes("x", "1.5k"));
        assertEquals(2L << 30, Settings.parseBytes("x", "2GiB"));
        assertEquals(1000, Settings.parseBytes("x", "1e3"));
        assertEquals("JCCL_CHUNK_SIZE='12Q' is not a size (a number with an optional K, M or G)",
            assertThrows(JcclInvalidArgumentException.class, () -> Settings.parseBytes("JCCL_CHUNK_SIZE", "12Q"))
            .getMessage());
    }

    private static boolean isMainSource(final Path file)
    {
        final String path = file.toString().replace('\\', '/');
        return path.endsWith(".java") && path.contains("/src/main/java/") && !path.contains("/target/") &&
            !path.endsWith("/Settings.java") && !path.endsWith("/KernelNames.java");
    }
}
