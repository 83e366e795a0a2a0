package io.jccl.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jccl-bench verify} on valid, invalid and wrong fixtures: the per-file verdict, every error with its line and
 * path, the semantic verdict, and the exit status.
 */
@Timeout(120)
class VerifyCommandTest
{
    private String stdout;
    private String stderr;

    private int verify(final String... args)
    {
        final CommandRun run = CommandRun.of("verify", args);
        stdout = run.stdout();
        stderr = run.stderr();
        return run.status();
    }

    @Test
    void shouldPrintOkAndSemanticVerdictWhenFileValid()
    {
        final Path file = ScheduleFixtures.own("reducescatter-ring-4.xml");
        assertEquals(0, verify(file.toString()), stdout + stderr);
        assertTrue(stdout.startsWith(file + ": OK (reducescatter_ring_4: reducescatter ngpus=4 proto="), stdout);
        assertTrue(stdout.contains("\n  semantic: OK: computes reducescatter"), stdout);
        assertTrue(stdout.endsWith("# verified 1 file: 1 OK, 0 invalid, 0 wrong\n"), stdout);
    }

    @Test
    void shouldPrintEveryErrorWithLineAndPathWhenFileInvalid()
    {
        final Path good = ScheduleFixtures.own("allreduce-2.xml");
        final Path offsets = ScheduleFixtures.own("offset-out-of-range.xml");
        final Path twoPeers = ScheduleFixtures.own("two-send-peers.xml");
        final Path truncated = ScheduleFixtures.own("truncated.xml");
        assertEquals(VerifyCommand.EXIT_BAD_FILE, verify(good.toString(), offsets.toString(), twoPeers.toString(),
            truncated.toString()));
        final List<String> lines = Arrays.asList(stdout.split("\n"));
        assertTrue(lines.get(0).startsWith(good + ": OK "), stdout);
        // both out-of-range offsets, found in one pass, each with its line and element path
        final int at = lines.indexOf(offsets + ": INVALID (2 errors) (offset_out_of_range: allreduce ngpus=2 " +
            "proto=Simple nchannels=1 nchunksperloop=2 inplace=1 outofplace=0)");
        assertTrue(at > 0, stdout);
        assertTrue(lines.get(at + 1).startsWith("  line 4: algo/gpu[id=0]/tb[id=0]/step[s=0]: srcoff=2 is outside"),
            lines.get(at + 1));
        assertTrue(lines.get(at + 2).startsWith("  line 13: algo/gpu[id=1]/tb[id=0]/step[s=2]: dstoff=5 is " +
            "outside"), lines.get(at + 2));
        assertEquals("  semantic: not evaluated, the file is invalid", lines.get(at + 3));
        // what the reader cannot parse: the line and the element it was in
        assertTrue(stdout.contains(twoPeers + ": INVALID (1 error)\n  line 3: algo/gpu[id=0]: "), stdout);
        assertTrue(stdout.contains(truncated + ": INVALID (1 error)\n  line 12: algo/gpu[id=1]/tb[id=0]: "),
            stdout);
        assertTrue(stdout.contains("  semantic: not evaluated, the file cannot be read"), stdout);
        assertTrue(stdout.endsWith("# verified 4 files: 1 OK, 3 invalid, 0 wrong\n"), stdout);
    }

    @Test
    void shouldSayWrongAndNameFirstWrongChunkWhenScheduleComputesSomethingElse()
    {
        final Path file = ScheduleFixtures.own("reducescatter-double-count.xml");
        assertEquals(VerifyCommand.EXIT_BAD_FILE, verify(file.toString()));
        assertTrue(stdout.startsWith(file + ": WRONG ("), stdout);
        assertTrue(stdout.contains("\n  semantic: WRONG"), stdout);
        assertTrue(stdout.contains("rank"), stdout);
        assertTrue(stdout.endsWith("# verified 1 file: 0 OK, 0 invalid, 1 wrong\n"), stdout);
    }

    @Test
    void shouldAcceptEverySoundOwnFixtureWhenVerified()
    {
        final List<Path> sound = ScheduleFixtures.ownSound();
        assertEquals(0, verify(sound.stream().map(Path::toString).toArray(String[]::new)), stdout);
        for (final Path file : sound)
        {
            assertTrue(stdout.contains(file + ": OK ("), file + "\n" + stdout);
        }
        assertTrue(stdout.contains("\n# verified " + sound.size() + " files: " + sound.size() + " OK, "), stdout);
    }

    @Test
    void shouldAcceptEverySharedValidFixtureAndRejectBothInvalidOnes()
    {
        final Path dir = ScheduleFixtures.sharedDir();
        final List<String> args = new ArrayList<>();
        final List<Path> valid = ScheduleFixtures.xmlFiles(dir);
        final List<Path> invalid = ScheduleFixtures.xmlFiles(dir.resolve("invalid"));
        valid.forEach(p -> args.add(p.toString()));
        invalid.forEach(p -> args.add(p.toString()));
        assertEquals(VerifyCommand.EXIT_BAD_FILE, verify(args.toArray(new String[0])));
        for (final Path file : valid)
        {
            assertTrue(stdout.contains(file + ": OK ("), file + "\n" + stdout);
        }
        for (final Path file : invalid)
        {
            assertTrue(stdout.contains(file + ": INVALID (") || stdout.contains(file + ": WRONG ("),
                file + "\n" + stdout);
        }
        assertTrue(stdout.contains("\n# verified " + args.size() + " files: " + valid.size() + " OK, "), stdout);
    }

    @Test
    void shouldAddCExecutorWarningsOnlyWhenStrict()
    {
        // the older dialect lacks outofplace, minBytes and maxBytes, which msccl-executor-nccl requires
        final Path file = ScheduleFixtures.shared(
            "dailiuyao_msccl_tools_lyd__allreduce_binary_tree_Simple_gpu2_ins1.xml");
        assertEquals(0, verify(file.toString()), stdout);
        assertTrue(!stdout.contains("C executor: "), stdout);
        assertEquals(0, verify("--strict", file.toString()), stdout);
        assertTrue(stdout.contains(": C executor: "), stdout);
        assertTrue(stdout.startsWith(file + ": OK ("), stdout);
    }

    @Test
    void shouldReturnUsageStatusWhenNoFile()
    {
        assertEquals(JcclBench.EXIT_USAGE, verify());
        assertTrue(stderr.contains("FILE"), stderr);
        assertEquals(0, verify("-h"));
        assertTrue(stdout.contains("--strict"), stdout);
    }
}
