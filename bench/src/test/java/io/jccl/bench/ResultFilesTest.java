package io.jccl.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --csv} and {@code -J/--output_file}: the files of a run on {@link FakeCommunicators} parse back (the CSV with
 * {@link CsvResults}, the JSON with the tests' own {@link MiniJson}) and say what the table says; quoting and escaping
 * survive the round trip.
 */
@Timeout(120)
class ResultFilesTest
{
    private static final List<String> COLUMNS = List.of("tool", "ranks", "device", "transport", "type", "op", "root",
        "placement", "size_bytes", "count", "plan", "time_us", "algbw_gbps", "busbw_gbps", "wrong");

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

    private List<String[]> tableRows()
    {
        return Arrays.stream(stdout.split("\n")).filter(l -> !l.startsWith("#") && !l.isEmpty())
            .map(l -> l.trim().split(" +")).toList();
    }

    @Test
    void shouldWriteEveryRowAndPlacementWithHeaderWhenCsvAndJsonGiven(@TempDir final Path dir) throws IOException
    {
        final Path csv = dir.resolve("run.csv");
        final Path json = dir.resolve("run.json");
        assertEquals(0, run("all_reduce_perf", "-g", "2", "-b", "8", "-e", "8K", "-f", "4", "-w", "1", "-n", "2",
            "--csv", csv.toString(), "-J", json.toString()), stderr);

        final CsvResults results = CsvResults.read(csv);
        assertTrue(Files.readString(csv).startsWith(CsvResultsWriter.FORMAT_LINE + "\n"));
        final Map<String, String> header = results.header();
        assertEquals(List.of("hostname", "cores", "os", "java.version", "java.vm.name", "jccl.version", "command",
            "started"), List.copyOf(header.keySet()));
        assertEquals(BenchRunner.hostname(), header.get("hostname"));
        assertEquals(Integer.toString(Runtime.getRuntime().availableProcessors()), header.get("cores"));
        assertEquals(System.getProperty("java.version"), header.get("java.version"));
        assertEquals(System.getProperty("java.vm.name"), header.get("java.vm.name"));
        // the tests run from target/classes: the version comes from the filtered resource, the Maven version
        assertTrue(header.get("jccl.version").matches("\\d+\\.\\d+\\.\\d+.*"), header.get("jccl.version"));
        assertEquals("jccl-bench all_reduce_perf -g 2 -b 8 -e 8K -f 4 -w 1 -n 2 --csv " + csv + " -J " + json,
            header.get("command"));
        assertEquals(COLUMNS, results.columns());

        final List<String[]> table = tableRows();
        final long[] sizes = {8, 32, 128, 512, 2048, 8192};
        assertEquals(sizes.length, table.size(), stdout);
        final List<Map<String, String>> rows = results.rows();
        assertEquals(2 * sizes.length, rows.size());
        for (int i = 0; i < rows.size(); i++)
        {
            final Map<String, String> row = rows.get(i);
            final String[] columns = table.get(i / 2);
            final boolean inPlace = i % 2 == 1;
            assertEquals(List.of("all_reduce_perf", "2", "host", "-", "float", "sum", "-1",
                inPlace ? "in-place" : "out-of-place", Long.toString(sizes[i / 2]), Long.toString(sizes[i / 2] / 4),
                "-", "0"), List.of(row.get("tool"), row.get("ranks"), row.get("device"), row.get("transport"),
                row.get("type"), row.get("op"), row.get("root"), row.get("placement"), row.get("size_bytes"),
                row.get("count"), row.get("plan"), row.get("wrong")), row.toString());
            // the table rounds to 2 decimals (time to 2, 1 or 0); the file keeps 6 significant digits
            final int first = inPlace ? 9 : 5;
            assertEquals(Double.parseDouble(columns[first]), Double.parseDouble(row.get("time_us")), 0.51,
                row.toString());
            assertEquals(Double.parseDouble(columns[first + 1]), Double.parseDouble(row.get("algbw_gbps")), 0.0051);
            assertEquals(Double.parseDouble(columns[first + 2]), Double.parseDouble(row.get("busbw_gbps")), 0.0051);
            assertTrue(Double.parseDouble(row.get("time_us")) > 0, row.toString());
        }

        @SuppressWarnings("unchecked")
        final Map<String, Object> document = (Map<String, Object>)MiniJson.parse(Files.readString(json));
        assertEquals(List.of("header", "rows"), List.copyOf(document.keySet()));
        @SuppressWarnings("unchecked")
        final Map<String, Object> jsonHeader = (Map<String, Object>)document.get("header");
        assertEquals(header.keySet(), jsonHeader.keySet());
        assertEquals(new BigDecimal(header.get("cores")), jsonHeader.get("cores"));
        assertEquals(header.get("command"), jsonHeader.get("command"));
        @SuppressWarnings("unchecked")
        final List<Map<String, Object>> jsonRows = (List<Map<String, Object>>)document.get("rows");
        assertEquals(rows.size(), jsonRows.size());
        for (int i = 0; i < rows.size(); i++)
        {
            final Map<String, Object> jsonRow = jsonRows.get(i);
            assertEquals(COLUMNS, List.copyOf(jsonRow.keySet()));
            for (final String column : COLUMNS)
            {
                final Object value = jsonRow.get(column);
                final String text = value instanceof BigDecimal decimal ? decimal.toPlainString() : (String)value;
                assertEquals(rows.get(i).get(column), text, column + " of row " + i);
            }
            assertEquals(BigDecimal.class, jsonRow.get("size_bytes").getClass());
        }
    }

    @Test
    void shouldNameCombinationOfEveryPassWhenSweepWritesCsv(@TempDir final Path dir) throws IOException
    {
        final Path csv = dir.resolve("sweep.csv");
        assertEquals(0, run("all_gather_perf", "-g", "2", "-b", "1K", "-e", "4K", "-f", "2", "-w", "0", "-n", "1",
            "-c", "0", "--sweep", "proto=simple,ll", "--csv", csv.toString()), stderr);
        final CsvResults results = CsvResults.read(csv);
        assertEquals("combination", results.columns().get(1));
        final List<String> combinations = results.rows().stream().map(r -> r.get("combination")).toList();
        assertEquals(18, combinations.size());
        assertEquals(List.of("proto=simple", "proto=ll", "default"), combinations.stream().distinct().toList());
        for (int pass = 0; pass < 3; pass++)
        {
            assertEquals(1, combinations.subList(pass * 6, pass * 6 + 6).stream().distinct().count(), combinations
                .toString());
        }
        // -c 0: nothing checked, nothing to count
        assertTrue(results.rows().stream().allMatch(r -> CsvResultsWriter.NOT_AVAILABLE.equals(r.get("wrong"))));
        assertEquals(List.of("1024", "2048", "4096"), results.rows().subList(0, 6).stream()
            .map(r -> r.get("size_bytes")).distinct().toList());
        assertEquals("none", results.rows().get(0).get("op"));
    }

    @Test
    void shouldFailBeforeRunningWhenFileCannotBeWritten(@TempDir final Path dir)
    {
        final Path missing = dir.resolve("no-such-dir").resolve("run.csv");
        assertEquals(JcclBench.EXIT_USAGE, run("all_reduce_perf", "-b", "8", "-e", "8", "--csv", missing.toString()));
        assertTrue(stderr.contains("--csv " + missing + ": cannot write it (NoSuchFileException)"), stderr);
        assertEquals("", stdout);

        final Path same = dir.resolve("same");
        assertEquals(JcclBench.EXIT_USAGE, run("all_reduce_perf", "-b", "8", "-e", "8", "--csv", same.toString(),
            "--output_file", same.toString()));
        assertTrue(stderr.contains("name the same file"), stderr);
        assertFalse(Files.exists(same));
    }

    @Test
    void shouldQuoteFieldsThatHoldCommasQuotesOrLineBreaksWhenCsv()
    {
        final StringWriter text = new StringWriter();
        final RunInfo info = new RunInfo("host", 2, "Linux", "17", "VM", "1.0", "jccl-bench x --csv 'a b.csv'",
            "2025-01-01T00:00:00Z");
        final String plan = "odd, \"plan\"\nname ";
        try (CsvResultsWriter writer = new CsvResultsWriter(text, true))
        {
            writer.header(info);
            writer.record(new ResultRecord("all_reduce_perf", "proto=ll nchannels=2", 2, "host", "p2p", "float",
                "sum", -1, ResultRecord.OUT_OF_PLACE, 8, 2, plan, 1.25, 0.0064, 0.0064, 0));
            writer.record(new ResultRecord("all_reduce_perf", "default", 2, "host", "p2p", "float", "sum", -1,
                ResultRecord.IN_PLACE, 8, 2, "ring", Double.NaN, 1234567.891, 1e-7, RowResult.NOT_CHECKED));
        }
        final CsvResults results = CsvResults.parse("text", text.toString());
        assertEquals(info.entries(), results.header());
        assertEquals(2, results.rows().size());
        final Map<String, String> first = results.rows().get(0);
        assertEquals(plan, first.get("plan"));
        assertEquals("proto=ll nchannels=2", first.get("combination"));
        assertEquals("1.25", first.get("time_us"));
        assertEquals("0.0064", first.get("busbw_gbps"));
        final Map<String, String> second = results.rows().get(1);
        assertEquals("N/A", second.get("time_us"));
        assertEquals("1234570", second.get("algbw_gbps"));
        assertEquals("0.0000001", second.get("busbw_gbps"));
        assertEquals("N/A", second.get("wrong"));
    }

    @Test
    void shouldListEveryMalformedLineWhenCsvBroken()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> CsvResults.parse(
            "bad.csv", "# hostname=h\na,b,c\n1,2,3\n1,2\n4,5,6,7\n\"open,2,3\n"));
        assertEquals("bad.csv had 3 errors: bad.csv:4: 2 fields, but 3 columns; bad.csv:5: 4 fields, but 3 " +
            "columns; bad.csv:6: a quoted field is not closed", ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CsvResults.parse("empty.csv", "# only=comments\n"));
    }

    @Test
    void shouldEscapeEveryCharacterJsonRequiresWhenJson()
    {
        final String nasty = "quote \" backslash \\ slash / tab \t newline \n cr \r bell \u0007 nul \0 sep \u2028 é";
        final StringWriter text = new StringWriter();
        try (JsonResultsWriter writer = new JsonResultsWriter(text))
        {
            writer.header(new RunInfo(nasty, 4, "os", "17", "vm", "v", nasty, "now"));
            writer.record(new ResultRecord("t", null, 1, "host", "-", "float", "sum", -1, ResultRecord.IN_PLACE, 0,
                0, nasty, Double.NaN, Double.POSITIVE_INFINITY, 0, RowResult.NOT_CHECKED));
        }
        @SuppressWarnings("unchecked")
        final Map<String, Object> document = (Map<String, Object>)MiniJson.parse(text.toString());
        @SuppressWarnings("unchecked")
        final Map<String, Object> header = (Map<String, Object>)document.get("header");
        assertEquals(nasty, header.get("hostname"));
        assertEquals(nasty, header.get("command"));
        @SuppressWarnings("unchecked")
        final Map<String, Object> row = ((List<Map<String, Object>>)document.get("rows")).get(0);
        assertEquals(nasty, row.get("plan"));
        assertNull(row.get("time_us"));
        assertNull(row.get("algbw_gbps"));
        assertNull(row.get("wrong"));
        assertFalse(row.containsKey("combination"));
        assertEquals(new BigDecimal("0"), row.get("busbw_gbps"));
    }

    @Test
    void shouldWriteEmptyRowsArrayWhenNoRecord()
    {
        final StringWriter text = new StringWriter();
        try (JsonResultsWriter writer = new JsonResultsWriter(text))
        {
            writer.header(new RunInfo("h", 1, "os", "17", "vm", "v", "c", "now"));
        }
        @SuppressWarnings("unchecked")
        final Map<String, Object> document = (Map<String, Object>)MiniJson.parse(text.toString());
        assertEquals(List.of(), document.get("rows"));
    }

    @Test
    void shouldQuoteArgumentsShellWouldSplitWhenCommandLine()
    {
        assertEquals("jccl-bench all_reduce_perf -b 8 --sweep proto=simple,ll 'a b' 'it'\\''s' ''",
            RunInfo.commandLine(new String[] {"all_reduce_perf", "-b", "8", "--sweep", "proto=simple,ll", "a b",
                "it's", ""}));
        // from target/classes there is no manifest: the build's filtered resource says the version
        assertFalse(RunInfo.UNKNOWN_VERSION.equals(RunInfo.currentJcclVersion()));
        assertEquals(RunInfo.currentJcclVersion(), RunInfo.current(new String[0]).jcclVersion());
    }
}
