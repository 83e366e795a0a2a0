package io.jccl.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The result files of a run ({@code --csv}, {@code -J/--output_file}): opened before the first rank starts, so that a
 * path that cannot be written fails the command at once; given every row as it is printed (two records per row, out
 * of place then in place; a sweep's passes all go to the same files, each record naming its combination); closed at
 * the end. A run without either flag has none and writes nothing.
 */
public final class ResultFiles implements RunObserver, AutoCloseable
{
    private final BenchTool tool;
    private final int ranks;
    private final boolean sweep;
    private final List<ResultsWriter> writers;

    /**
     * @param tool    the tool.
     * @param ranks   rank count.
     * @param sweep   whether the run is a sweep (the records then have a {@value ResultRecord#COMBINATION}).
     * @param writers the files; closed by {@link #close()}.
     */
    public ResultFiles(final BenchTool tool, final int ranks, final boolean sweep, final List<ResultsWriter> writers)
    {
        this.tool = tool;
        this.ranks = ranks;
        this.sweep = sweep;
        this.writers = List.copyOf(writers);
    }

    /**
     * Creates the files the flags ask for and writes their headers.
     *
     * @param tool    the tool.
     * @param options validated flags.
     * @param info    the header.
     * @return the files, none when neither {@code --csv} nor {@code -J} was given.
     * @throws UncheckedIOException naming the file that cannot be written (after closing any already open).
     */
    public static ResultFiles open(final BenchTool tool, final BenchOptions options, final RunInfo info)
    {
        final boolean sweep = options.sweep() != null;
        final List<ResultsWriter> writers = new ArrayList<>(2);
        try
        {
            if (options.csvFile() != null)
            {
                writers.add(new CsvResultsWriter(newWriter(options.csvFile(), "--csv"), sweep));
            }
            if (options.jsonFile() != null)
            {
                writers.add(new JsonResultsWriter(newWriter(options.jsonFile(), "-J/--output_file")));
            }
            for (final ResultsWriter writer : writers)
            {
                writer.header(info);
            }
        }
        catch (final UncheckedIOException ex)
        {
            for (final ResultsWriter writer : writers)
            {
                closeQuietly(writer);
            }
            throw ex;
        }
        return new ResultFiles(tool, options.nRanks(), sweep, writers);
    }

    @Override
    public void row(final SweepCombination combination, final RowResult row)
    {
        for (final ResultRecord record : ResultRecord.of(tool, ranks, sweep ? combination.label() : null, row))
        {
            for (final ResultsWriter writer : writers)
            {
                writer.record(record);
            }
        }
    }

    /**
     * Ends and closes every file.
     *
     * @throws UncheckedIOException from the first file that could not be ended, after trying every one.
     */
    @Override
    public void close()
    {
        UncheckedIOException first = null;
        for (final ResultsWriter writer : writers)
        {
            try
            {
                writer.close();
            }
            catch (final UncheckedIOException ex)
            {
                first = first == null ? ex : first;
            }
        }
        if (first != null)
        {
            throw first;
        }
    }

    private static BufferedWriter newWriter(final Path file, final String flag)
    {
        try
        {
            return Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            // NoSuchFileException and friends say only the path: name the flag and the kind of failure too
            throw new UncheckedIOException(flag + " " + file + ": cannot write it (" + ex.getClass().getSimpleName() +
                (ex.getMessage() == null || ex.getMessage().equals(file.toString()) ? "" : ": " + ex.getMessage()) +
                ")", ex);
        }
    }

    private static void closeQuietly(final ResultsWriter writer)
    {
        try
        {
            writer.close();
        }
        catch (final UncheckedIOException ex)
        {
            // the error that made us close is the one to report
        }
    }
}
