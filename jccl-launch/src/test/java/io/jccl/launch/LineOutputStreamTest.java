package io.jccl.launch;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LineOutputStreamTest
{
    @Test
    void shouldWriteEachWholeLineOnceBehindThePrefixWhenBytesComeInPieces() throws IOException
    {
        final List<String> writes = new ArrayList<>();
        final OutputStream target = new OutputStream()
        {
            @Override
            public void write(final int b)
            {
                writes.add(String.valueOf((char)b));
            }

            @Override
            public void write(final byte[] bytes, final int offset, final int length)
            {
                writes.add(new String(bytes, offset, length, StandardCharsets.UTF_8));
            }
        };
        final LineOutputStream lines = new LineOutputStream(target, "[rank 1] ");
        lines.write("first li".getBytes(StandardCharsets.UTF_8));
        lines.write('n');
        lines.write("e\nsecond\nthi".getBytes(StandardCharsets.UTF_8));
        lines.flush();
        assertEquals(List.of("[rank 1] first line\n", "[rank 1] second\n"), writes, "a part line waits");
        lines.close();
        assertEquals(List.of("[rank 1] first line\n", "[rank 1] second\n", "[rank 1] thi\n"), writes);
    }

    @Test
    void shouldWriteNothingWhenClosedWithoutAPartLine() throws IOException
    {
        final ByteArrayOutputStream target = new ByteArrayOutputStream();
        final LineOutputStream lines = new LineOutputStream(target, "");
        lines.write("a\n\nb\n".getBytes(StandardCharsets.UTF_8));
        lines.close();
        assertEquals("a\n\nb\n", target.toString(StandardCharsets.UTF_8));
    }
}
