package io.jccl.bench;

import org.jfree.chart.LegendItemCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jccl-bench plot}: result files of real (fake-rank) runs drawn as PNG and SVG, and its argument errors. */
@Timeout(120)
class PlotCommandTest
{
    private static final byte[] PNG_SIGNATURE = {(byte)0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    private String stdout;
    private String stderr;

    private int run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            FakeCommunicators.factory(FakeCommunicators.Fault.NONE));
        stdout = out.toString(StandardCharsets.UTF_8);
        stderr = err.toString(StandardCharsets.UTF_8);
        return status;
    }

    /** Two runs' result files, as "p2p.csv" and "shm.csv" (fake ranks: the names are all that differs). */
    private List<Path> twoRuns(final Path dir)
    {
        final List<Path> files = new ArrayList<>();
        for (final String name : new String[] {"p2p", "shm"})
        {
            final Path csv = dir.resolve(name + ".csv");
            assertEquals(0, run("all_reduce_perf", "-g", "2", "-b", "8", "-e", "64K", "-f", "8", "-w", "0", "-n", "1",
                "-c", "0", "--csv", csv.toString()), stderr);
            files.add(csv);
        }
        return files;
    }

    @Test
    void shouldWritePngOfRequestedSizeWhenOutputEndsInPng(@TempDir final Path dir) throws Exception
    {
        final List<Path> files = twoRuns(dir);
        final Path png = dir.resolve("out.png");
        assertEquals(0, run("plot", files.get(0).toString(), files.get(1).toString(), "-o", png.toString(),
            "--width", "800", "--height", "500"), stderr);
        assertEquals("jccl-bench plot: wrote " + png + ": 2 lines (p2p, shm)\n", stdout);
        final byte[] bytes = Files.readAllBytes(png);
        assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, PNG_SIGNATURE.length));
        final BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image);
        assertEquals(800, image.getWidth());
        assertEquals(500, image.getHeight());

        // the legend: a line per series, in order, without the markers (which mean "best here" in a sweep)
        final LegendItemCollection legend = ChartPlotWriter.chart(PlotModel.build(List.of(
            CsvResults.read(files.get(0)), CsvResults.read(files.get(1))), null, ResultRecord.OUT_OF_PLACE))
            .getPlot().getLegendItems();
        assertEquals(2, legend.getItemCount());
        assertEquals("p2p", legend.get(0).getLabel());
        assertEquals("shm", legend.get(1).getLabel());
        assertFalse(legend.get(0).isShapeVisible());
        assertTrue(legend.get(0).isLineVisible());

        assertEquals(0, run("plot", files.get(0).toString(), "-o", png.toString()), stderr);
        final BufferedImage defaultSize = ImageIO.read(png.toFile());
        assertEquals(PlotStyle.DEFAULT_WIDTH, defaultSize.getWidth());
        assertEquals(PlotStyle.DEFAULT_HEIGHT, defaultSize.getHeight());
    }

    @Test
    void shouldWriteWellFormedSvgNamingEverySeriesWhenOutputEndsInSvg(@TempDir final Path dir) throws Exception
    {
        final Path sweep = dir.resolve("sweep.csv");
        assertEquals(0, run("all_reduce_perf", "-g", "2", "-b", "8", "-e", "4K", "-f", "8", "-w", "0", "-n", "1",
            "-c", "0", "--sweep", "proto=simple,ll", "--csv", sweep.toString()), stderr);
        final Path svg = dir.resolve("sweep.svg");
        assertEquals(0, run("plot", sweep.toString(), "-o", svg.toString()), stderr);

        final Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        final Element root = document.getDocumentElement();
        assertEquals("svg", root.getTagName());
        assertEquals(Integer.toString(PlotStyle.DEFAULT_WIDTH), root.getAttribute("width"));
        final String text = root.getTextContent();
        for (final String name : List.of("proto=simple", "proto=ll", "default"))
        {
            assertTrue(text.contains(name), name);
        }
        assertTrue(text.contains("all_reduce_perf bus bandwidth, 2 ranks, out-of-place"), text);
        assertTrue(text.contains(BenchRunner.hostname()), text);
        final NodeList lines = root.getElementsByTagName("polyline");
        assertEquals(3, lines.getLength());
        // the default is drawn thicker; markers sit only where a combination is best: one per size (8, 64, 512, 4K)
        assertEquals(String.format(Locale.ROOT, "%.1f", PlotStyle.THICK_LINE_WIDTH),
            ((Element)lines.item(2)).getAttribute("stroke-width"));
        assertEquals(4, root.getElementsByTagName("circle").getLength());
        for (final String tick : List.of("8B", "64B", "512B", "4K"))
        {
            assertTrue(text.contains(tick), tick);
        }
    }

    @Test
    void shouldDrawTrialsPerTaskWhenTraceGiven(@TempDir final Path dir) throws Exception
    {
        final Path trace = dir.resolve("trace.csv");
        Files.writeString(trace, String.join("\n", "task,call,plan,ns,outcome",
            "allreduce/float/sum/r2/8..15/comm1,0,ring/simple/p2p/c1/t256/k32768,9000,ok",
            "allreduce/float/sum/r2/8..15/comm1,1,tree/ll/p2p/c1/t256/k32768,3000,ok", ""));
        final Path png = dir.resolve("trials.png");
        assertEquals(0, run("plot", "--trace", trace.toString(), "-o", png.toString(), "--width", "600"), stderr);
        assertEquals("jccl-bench plot: wrote " + png + ": 1 task (allreduce/float/sum/r2/8..15/comm1 -> " +
            "tree/ll/p2p/c1/t256/k32768)\n", stdout);
        final BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(600, image.getWidth());

        final Path csv = twoRuns(dir).get(0);
        assertEquals(JcclBench.EXIT_USAGE, run("plot", "--trace", trace.toString(), csv.toString(), "-o",
            png.toString()));
        assertTrue(stderr.contains("give one of them"), stderr);
        assertEquals(JcclBench.EXIT_USAGE, run("plot", "--trace", trace.toString(), "-o",
            dir.resolve("t.svg").toString()));
        assertTrue(stderr.contains("a --trace plot is drawn as PNG only"), stderr);
        assertEquals(JcclBench.EXIT_USAGE, run("plot", "--trace", trace.toString(), "--by", "plan", "-o",
            png.toString()));
        assertEquals(PlotCommand.EXIT_FAILURE, run("plot", "--trace", csv.toString(), "-o",
            dir.resolve("bad.png").toString()));
        assertTrue(stderr.contains("has no column 'task': not a --trace file"), stderr);
        assertFalse(Files.exists(dir.resolve("bad.png")));
    }

    @Test
    void shouldEscapeNamesWhenSvgText()
    {
        assertEquals("a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;", SvgPlotWriter.escape("a <b> & \"c\" 'd'\u0001"));
        assertEquals(2.5, SvgPlotWriter.niceStep(2.1));
        assertEquals(0.05, SvgPlotWriter.niceStep(0.031), 1e-15);
        assertEquals(10, SvgPlotWriter.niceStep(7.2));
        assertEquals(1, SvgPlotWriter.niceStep(0));
    }

    @Test
    void shouldRefuseBadArgumentsAndUnreadableFiles(@TempDir final Path dir) throws Exception
    {
        final Path csv = twoRuns(dir).get(0);
        assertEquals(JcclBench.EXIT_USAGE, run("plot", csv.toString(), "-o", dir.resolve("out.jpg").toString()));
        assertTrue(stderr.contains("the extension must be .png or .svg"), stderr);
        assertEquals(JcclBench.EXIT_USAGE, run("plot", csv.toString(), "-o", dir.resolve("a.png").toString(),
            "--by", "rank"));
        assertEquals(JcclBench.EXIT_USAGE, run("plot", "-o", dir.resolve("a.png").toString()));
        assertEquals(JcclBench.EXIT_USAGE, run("plot", csv.toString(), "-o", dir.resolve("a.png").toString(),
            "--width", "10"));
        assertEquals(PlotCommand.EXIT_FAILURE, run("plot", dir.resolve("missing.csv").toString(), "-o",
            dir.resolve("a.png").toString()));
        assertTrue(stderr.contains("NoSuchFileException"), stderr);
        final Path broken = dir.resolve("broken.csv");
        Files.writeString(broken, "a,b\n1\n");
        assertEquals(PlotCommand.EXIT_FAILURE, run("plot", broken.toString(), "-o", dir.resolve("a.png").toString()));
        assertTrue(stderr.contains("broken.csv:2: 1 fields, but 2 columns"), stderr);
        assertFalse(Files.exists(dir.resolve("a.png")));

        assertEquals(0, run("plot", "-h"));
        assertTrue(stdout.contains("--by=<plan|combination|file>"), stdout);
        assertEquals(0, run("-h"));
        assertTrue(stdout.contains("jccl-bench plot FILE.csv..."), stdout);
    }
}
