package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Keeps the README's example true: the code below is the README's, compared as text, and it runs. */
class ReadmeExampleTest
{
    private static final Path README = Path.of("..", "README.md");
    private static final Path SELF = Path.of("src", "test", "java", "io", "jccl", "core", "ReadmeExampleTest.java");

    @Test
    @Timeout(60)
    void shouldSumRanksWhenReadmeExampleRuns()
    {
        // example:start
        Communicator[] ranks = Jccl.initAll(new Context(), 4);
        HostBuffer[] data = new HostBuffer[4];
        Work[] work = new Work[4];
        Jccl.groupStart();
        for (Communicator c : ranks)
        {
            data[c.rank()] = HostBuffer.allocate(1024 * Float.BYTES);
            data[c.rank()].byteBuffer().putFloat(0, c.rank() + 1f);
            work[c.rank()] = c.allReduce(data[c.rank()], data[c.rank()], 1024, DataType.FLOAT32, ReduceOp.SUM,
                Stream.DEFAULT);
        }
        Jccl.groupEnd();
        for (Work w : work)
        {
            w.join();
        }
        // every rank now holds 1 + 2 + 3 + 4 = 10 in element 0
        for (Communicator c : ranks)
        {
            c.close();
        }
        // example:end
        for (final HostBuffer b : data)
        {
            assertEquals(10f, b.byteBuffer().getFloat(0));
        }
    }

    @Test
    void shouldMatchReadmeWhenExampleIsEdited() throws IOException
    {
        final String readme = between(Files.readString(README), "```java\n", "```\n<!-- example:end -->");
        final String test = between(Files.readString(SELF), "// example:start\n", "        // example:end");
        assertEquals(normalise(readme), normalise(test), "README example and ReadmeExampleTest differ");
    }

    private static String between(final String text, final String start, final String end)
    {
        final int from = text.indexOf(start) + start.length();
        return text.substring(from, text.indexOf(end, from));
    }

    private static String normalise(final String code)
    {
        return code.lines().map(String::strip).filter(l -> !l.isEmpty()).reduce("", (a, b) -> a + b + "\n");
    }
}
