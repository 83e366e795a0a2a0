package io.jccl.bench;

import java.io.UncheckedIOException;

/**
 * A result file being written: the header once, then records as the rows are measured (each on its way to the disk
 * before the next row starts, so that an interrupted run keeps what it measured), then the end.
 */
public interface ResultsWriter extends AutoCloseable
{
    /**
     * Writes the header.
     *
     * @param info where and how the run was made.
     * @throws UncheckedIOException if the file cannot be written.
     */
    void header(RunInfo info);

    /**
     * Writes a record and flushes it.
     *
     * @param record one placement of one row.
     * @throws UncheckedIOException if the file cannot be written.
     */
    void record(ResultRecord record);

    /**
     * Ends the file and closes it.
     *
     * @throws UncheckedIOException if the file cannot be written.
     */
    @Override
    void close();

    /**
     * Writes and flushes, so a run that stops leaves every record written so far.
     *
     * @param out  the file.
     * @param text what to write.
     * @throws UncheckedIOException if the file cannot be written.
     */
    static void writeFlushed(final java.io.Writer out, final String text)
    {
        try
        {
            out.write(text);
            out.flush();
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
