package io.jccl.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A real child JVM started without the Agrona flag must fail at once with a message naming the flag. */
class JvmFlagCheckTest
{
    /** Entry point of the child JVM. */
    public static final class Child
    {
        public static void main(final String[] args)
        {
            Jccl.initAll(new Context(), 2);
        }
    }

    @Test
    @Timeout(60)
    void shouldNameTheMissingFlagWhenStartedWithoutIt() throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path") +
            File.pathSeparator + System.getProperty("surefire.test.class.path", ""), Child.class.getName())
            .redirectErrorStream(true).start();
        final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        final int status = child.waitFor();
        assertNotEquals(0, status, output);
        assertTrue(output.contains("JcclSystemException"), output);
        assertTrue(output.contains("--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"), output);
    }
}
