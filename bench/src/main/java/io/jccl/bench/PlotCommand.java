package io.jccl.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code jccl-bench plot FILE.csv... -o out.png}: draws the bus bandwidth of result files ({@code --csv}) against
 * size, a line per file, or per plan or sweep combination ({@code --by}; by default per combination when a file is a
 * sweep's, else per file), as PNG (JFreeChart, {@link ChartPlotWriter}) or SVG ({@link SvgPlotWriter}) by the output's
 * extension. {@link PlotModel} works out what to draw. Runs headless ({@code java.awt.headless=true}): no display is
 * needed.
 * <p>
 * {@code jccl-bench plot --trace trace.csv -o trials.png} draws a {@code --trace} file of the online tuner instead:
 * the time of every trial call per task, and each task's converged plan ({@link TracePlotModel},
 * {@link TraceChartWriter}; PNG only).
 * <p>
 * Exit status: 0 when written, 1 when an input cannot be read or holds nothing to draw, or the image cannot be
 * written, 2 for bad arguments.
 */
@Command(
    name = "plot",
    sortOptions = false,
    usageHelpWidth = 120,
    description = {"Draw busbw against size (log2 axis) from --csv result files, a line per file, plan or sweep " +
        "combination; PNG or SVG by the extension of -o.", "With --trace FILE instead of result files: the online " +
        "tuner's trials (--tuner auto --trace FILE), time per call of each task, its converged plan marked; PNG."})
public final class PlotCommand
{
    /** Exit status when an input cannot be read or drawn, or the image cannot be written. */
    public static final int EXIT_FAILURE = 1;
    private static final int MIN_PIXELS = 200;
    private static final int MAX_PIXELS = 10_000;

    @Parameters(arity = "0..*", paramLabel = "FILE.csv", description = "result files written with --csv")
    private List<Path> files = new ArrayList<>();

    @Option(names = "--trace", paramLabel = "<trace.csv>",
        description = "draw this --trace file of the online tuner instead of result files: time per trial call, a " +
            "line per task, its converged plan marked and labelled (PNG only)")
    private Path trace;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "<out.png|out.svg>",
        description = "the image: PNG (.png) or SVG (.svg)")
    private Path output;

    @Option(names = "--by", paramLabel = "<plan|combination|file>",
        description = "a line per plan text, sweep combination, or file (default: combination when a file has " +
            "that column, i.e. was written by --sweep, else file)")
    private String by;

    @Option(names = "--placement", paramLabel = "<out-of-place|in-place>", defaultValue = ResultRecord.OUT_OF_PLACE,
        description = "whose bus bandwidth to draw (default: ${DEFAULT-VALUE})")
    private String placement;

    @Option(names = "--width", converter = BenchOptions.IntConverter.class, paramLabel = "<pixels>",
        defaultValue = "" + PlotStyle.DEFAULT_WIDTH, description = "image width (default: ${DEFAULT-VALUE})")
    private int width;

    @Option(names = "--height", converter = BenchOptions.IntConverter.class, paramLabel = "<pixels>",
        defaultValue = "" + PlotStyle.DEFAULT_HEIGHT, description = "image height (default: ${DEFAULT-VALUE})")
    private int height;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help")
    private boolean help;

    /**
     * Parses the flags, reads the files and writes the image.
     *
     * @param args the flags and files (after {@code plot}).
     * @param out  where help and the line naming the image go.
     * @param err  where errors go.
     * @return the exit status.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final PlotCommand command = new PlotCommand();
        final CommandLine commandLine = new CommandLine(command).setCommandName("jccl-bench plot");
        try
        {
            commandLine.parseArgs(args);
        }
        catch (final CommandLine.ParameterException ex)
        {
            err.println("jccl-bench plot: " + ex.getMessage());
            commandLine.usage(err);
            return JcclBench.EXIT_USAGE;
        }
        if (command.help)
        {
            commandLine.usage(out);
            return BenchRunner.EXIT_OK;
        }
        final PlotModel.GroupBy groupBy;
        final boolean svg;
        try
        {
            groupBy = command.by == null ? null : PlotModel.GroupBy.fromName(command.by);
            svg = command.svg();
            command.checkArguments();
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("jccl-bench plot: " + ex.getMessage());
            return JcclBench.EXIT_USAGE;
        }
        if (command.trace != null)
        {
            return command.plotTrace(out, err);
        }
        try
        {
            final List<CsvResults> inputs = new ArrayList<>(command.files.size());
            for (final Path file : command.files)
            {
                inputs.add(CsvResults.read(file));
            }
            final PlotModel model = PlotModel.build(inputs, groupBy, command.placement);
            command.write(model, svg);
            out.println("jccl-bench plot: wrote " + command.output + ": " + model.series().size() + " line" +
                (model.series().size() == 1 ? "" : "s") + " (" + String.join(", ",
                model.series().stream().map(PlotModel.Series::name).toList()) + ")");
            return BenchRunner.EXIT_OK;
        }
        catch (final IOException ex)
        {
            err.println("jccl-bench plot: " + ex);
            return EXIT_FAILURE;
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("jccl-bench plot: " + ex.getMessage());
            return EXIT_FAILURE;
        }
    }

    private boolean svg()
    {
        final String name = output.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".svg"))
        {
            return true;
        }
        if (name.endsWith(".png"))
        {
            return false;
        }
        throw new IllegalArgumentException("-o " + output + ": the extension must be .png or .svg");
    }

    private void checkArguments()
    {
        if (trace == null && files.isEmpty())
        {
            throw new IllegalArgumentException("no input: give result files (FILE.csv...) or --trace FILE");
        }
        if (trace != null && !files.isEmpty())
        {
            throw new IllegalArgumentException("--trace " + trace + " and result files " + files + " together: " +
                "give one of them");
        }
        if (trace != null && (by != null || !ResultRecord.OUT_OF_PLACE.equals(placement)))
        {
            throw new IllegalArgumentException("--by and --placement draw result files; a --trace plot has a line " +
                "per task");
        }
        if (trace != null && svg())
        {
            throw new IllegalArgumentException("-o " + output + ": a --trace plot is drawn as PNG only; give a .png " +
                "file");
        }
        if (!ResultRecord.OUT_OF_PLACE.equals(placement) && !ResultRecord.IN_PLACE.equals(placement))
        {
            throw new IllegalArgumentException("--placement '" + placement + "' is not one of " +
                ResultRecord.OUT_OF_PLACE + ", " + ResultRecord.IN_PLACE);
        }
        if (width < MIN_PIXELS || width > MAX_PIXELS || height < MIN_PIXELS || height > MAX_PIXELS)
        {
            throw new IllegalArgumentException("--width " + width + " --height " + height + ": each must be in " +
                MIN_PIXELS + ".." + MAX_PIXELS);
        }
    }

    /** {@code --trace}: reads the trace, draws it, names what it drew. */
    private int plotTrace(final PrintStream out, final PrintStream err)
    {
        try
        {
            final TracePlotModel model = TracePlotModel.build(CsvResults.read(trace));
            // JFreeChart draws with AWT: no display here, and none needed for an image
            System.setProperty("java.awt.headless", "true");
            try (OutputStream stream = Files.newOutputStream(output))
            {
                TraceChartWriter.writePng(model, stream, width, height);
            }
            out.println("jccl-bench plot: wrote " + output + ": " + model.series().size() + " task" +
                (model.series().size() == 1 ? "" : "s") + " (" + String.join(", ",
                model.series().stream().map(TracePlotModel.Series::name).toList()) + ")");
            return BenchRunner.EXIT_OK;
        }
        catch (final IOException ex)
        {
            err.println("jccl-bench plot: " + ex);
            return EXIT_FAILURE;
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("jccl-bench plot: " + ex.getMessage());
            return EXIT_FAILURE;
        }
    }

    private void write(final PlotModel model, final boolean svg) throws IOException
    {
        if (svg)
        {
            Files.writeString(output, SvgPlotWriter.svg(model, width, height), StandardCharsets.UTF_8);
            return;
        }
        // JFreeChart draws with AWT: no display here, and none needed for an image
        System.setProperty("java.awt.headless", "true");
        try (OutputStream stream = Files.newOutputStream(output))
        {
            ChartPlotWriter.writePng(model, stream, width, height);
        }
    }
}
