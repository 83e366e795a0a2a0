package io.jccl.bench;

import io.jccl.Communicator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A sweep on {@link FakeCommunicators}: one creation of ranks per pass, with its pins, the headers and summary. */
@Timeout(120)
class SweepRunnerTest
{
    private final List<String> created = new ArrayList<>();
    private String stdout;

    /** Fake ranks that record the pins of every pass, and fail the passes pinned to {@code failing}. */
    private CommunicatorFactory recording(final String failing)
    {
        final CommunicatorFactory fake = FakeCommunicators.factory(FakeCommunicators.Fault.NONE);
        return new CommunicatorFactory()
        {
            @Override
            public Communicator[] create(final BenchOptions options, final SweepCombination combination,
                final int nRanks)
            {
                created.add(combination.label());
                if (combination.label().equals(failing))
                {
                    throw new IllegalStateException("no ranks for " + failing);
                }
                return fake.create(options, combination, nRanks);
            }

            @Override
            public void groupStart()
            {
                fake.groupStart();
            }

            @Override
            public void groupEnd()
            {
                fake.groupEnd();
            }
        };
    }

    private int run(final CommunicatorFactory factory, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status = JcclBench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), factory);
        stdout = out.toString(StandardCharsets.UTF_8);
        return status;
    }

    @Test
    void shouldCreateRanksPerCombinationThenDefaultWhenSweepGiven()
    {
        assertEquals(0, run(recording(null), "all_reduce_perf", "-g", "2", "-b", "8", "-e", "512", "-f", "8", "-w",
            "0", "-n", "1", "--sweep", "nchannels=1,2", "proto=simple,ll"), stdout);
        assertEquals(List.of("proto=simple nchannels=1", "proto=simple nchannels=2", "proto=ll nchannels=1",
            "proto=ll nchannels=2", "default"), created);
        final List<String> lines = Arrays.asList(stdout.split("\n"));
        final List<String> headers = lines.stream().filter(l -> l.startsWith("# sweep combination")).toList();
        assertEquals(List.of(
            "# sweep combination 1/4: proto=simple nchannels=1",
            "# sweep combination 2/4: proto=simple nchannels=2",
            "# sweep combination 3/4: proto=ll nchannels=1",
            "# sweep combination 4/4: proto=ll nchannels=2",
            "# sweep combination default: no pins from the sweep (the tuner's choice)"), headers);
        // each header is followed by nccl-tests' whole output for its pass
        final int firstHeader = lines.indexOf(headers.get(0));
        assertTrue(lines.get(firstHeader + 1).startsWith("# nThread 1 nGpus 2 minBytes 8 maxBytes 512"), stdout);
        assertEquals(5, lines.stream().filter(l -> l.equals("# Out of bounds values : 0 OK")).count(), stdout);

        final int summary = lines.indexOf(lines.stream().filter(l -> l.startsWith("# Sweep summary"))
            .findFirst().orElseThrow());
        assertTrue(summary > lines.lastIndexOf("# Out of bounds values : 0 OK"), stdout);
        final List<String> summaryRows = lines.subList(summary + 3, lines.size()).stream()
            .filter(l -> !l.startsWith("#") && !l.isEmpty()).toList();
        assertEquals(3, summaryRows.size(), stdout);
        final long[] sizes = {8, 64, 512};
        for (int i = 0; i < sizes.length; i++)
        {
            final String[] columns = summaryRows.get(i).trim().split(" +");
            assertEquals(10, columns.length, summaryRows.get(i));
            assertEquals(Long.toString(sizes[i]), columns[0], summaryRows.get(i));
            assertTrue(columns[5].matches("proto=(simple|ll),nchannels=[12]"), summaryRows.get(i));
            // the fake ranks report no plan
            assertEquals("-", columns[7], summaryRows.get(i));
        }
    }

    @Test
    void shouldGoOnAndFailWhenOnePassFails()
    {
        assertEquals(BenchRunner.EXIT_FAILURE, run(recording("proto=ll"), "all_gather_perf", "-g", "2", "-b", "1K",
            "-e", "1K", "-w", "0", "-n", "1", "--sweep", "proto=ll,simple"), stdout);
        assertEquals(List.of("proto=ll", "proto=simple", "default"), created);
        final String row = Arrays.stream(stdout.split("\n")).filter(l -> l.startsWith("        1024")).reduce(
            (a, b) -> b).orElseThrow();
        assertTrue(row.contains("  proto=simple  "), stdout);
    }
}
