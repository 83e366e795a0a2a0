package io.jccl.launch;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Hands whole lines to another stream, each behind a prefix, in one write each: so that the lines of several
 * processes or threads sharing that stream never mix (a {@link java.io.PrintStream} makes each write atomic). The
 * standard error of a rank of a multi-process run goes through one with the prefix {@code [rank k] }; the launcher
 * of {@code --nprocs} copies each child's output through one with none. A line without its newline yet waits for it,
 * or for {@link #close()}.
 */
public final class LineOutputStream extends OutputStream
{
    private final OutputStream target;
    private final byte[] prefix;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    /**
     * @param target where the lines go; flushed after each, and never closed by this stream.
     * @param prefix put before every line; may be empty.
     */
    public LineOutputStream(final OutputStream target, final String prefix)
    {
        this.target = target;
        this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
        line.writeBytes(this.prefix);
    }

    @Override
    public synchronized void write(final int b) throws IOException
    {
        line.write(b);
        if (b == '\n')
        {
            emit();
        }
    }

    @Override
    public synchronized void write(final byte[] bytes, final int offset, final int length) throws IOException
    {
        int start = offset;
        final int end = offset + length;
        for (int i = offset; i < end; i++)
        {
            if (bytes[i] == '\n')
            {
                line.write(bytes, start, i + 1 - start);
                emit();
                start = i + 1;
            }
        }
        line.write(bytes, start, end - start);
    }

    /** Flushes the target; a line without its newline stays until it has one. */
    @Override
    public synchronized void flush() throws IOException
    {
        target.flush();
    }

    /** Writes a pending part line, ended with a newline, and flushes the target. */
    @Override
    public synchronized void close() throws IOException
    {
        if (line.size() > prefix.length)
        {
            line.write('\n');
            emit();
        }
        target.flush();
    }

    private void emit() throws IOException
    {
        final byte[] bytes = line.toByteArray();
        target.write(bytes, 0, bytes.length);
        target.flush();
        line.reset();
        line.writeBytes(prefix);
    }
}
