package io.jccl.schedules.msccl;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Thousands of seeded mutations of the fixtures: the reader and the validator (and the semantic check, where the
 * validator passes) may only return or throw {@link MscclFormatException}, never anything else, never hang. Bounded
 * in iterations and time; the seed and iteration of a failure reproduce it.
 */
class MscclFuzzTest
{
    private static final long SEED = 0x6a63636cL;
    private static final int MAX_ITERATIONS = 4000;
    private static final int MIN_ITERATIONS = 1000;
    private static final long BUDGET_NS = 3_000_000_000L;
    /** Shared fixtures larger than this are left out: they would cost more time than they add. */
    private static final long MAX_SEED_BYTES = 25_000;

    private static final Pattern NUMBER = Pattern.compile("-?\\d+");
    private static final Pattern VALUE = Pattern.compile("\"[^\"]*\"");
    private static final String[] NUMBERS = {"-2", "-1", "0", "1", "2", "3", "7", "63", "64", "71", "72", "255",
        "1024", "65535", "2147483647", "-2147483648", "99999999999", "0x1f", "010", "", " ", "1.5", "+1", "0x"};
    private static final String[] VALUES = {"s", "r", "rcs", "rrs", "rrc", "rrcs", "cpy", "re", "nop", "ra", "i",
        "o", "s", "x", "allreduce", "allgather", "reducescatter", "reduce_scatter", "alltoall", "broadcast", "reduce",
        "Simple", "LL", "LL128", "", "-1", "0", "1", "&amp;", "\u00e9"};
    private static final String[] TOKENS = {"<", ">", "/>", "\"", "=", "&", "<!--", "-->", "<step/>", "</tb>",
        "<tb id=\"9\">", "<gpu id=\"0\"/>", "<copy i_off=\"0\" o_off=\"0\"/>", " cnt=\"1\"", "<?xml version=\"1.0\"?>",
        "]]>", "<![CDATA[x]]>", "\u0000", "\n", " depid=\"0\" deps=\"0\"", "<algo>"};

    @Test
    void shouldOnlyReturnOrThrowFormatExceptionWhenInputIsMutated()
    {
        final int[] outcomes = assertTimeoutPreemptively(Duration.ofSeconds(60),
            () -> run(SEED, MAX_ITERATIONS, BUDGET_NS), "reader or validator hung");
        assertTrue(outcomes[0] + outcomes[1] + outcomes[2] >= MIN_ITERATIONS, "ran too few iterations");
        assertTrue(outcomes[0] > 0 && outcomes[1] > 0 && outcomes[2] > 0,
            "expected rejected, invalid and valid mutants alike: " + java.util.Arrays.toString(outcomes));
    }

    /**
     * @return how many mutants the reader rejected, the validator found errors in, and passed both.
     */
    static int[] run(final long seed, final int maxIterations, final long budgetNs)
    {
        final List<String> seeds = seeds();
        assertFalse(seeds.isEmpty());
        final int[] outcomes = new int[3];
        final Random random = new Random(seed);
        final long start = System.nanoTime();
        for (int i = 0; i < maxIterations; i++)
        {
            if (i >= MIN_ITERATIONS && System.nanoTime() - start > budgetNs)
            {
                break;
            }
            String text = seeds.get(random.nextInt(seeds.size()));
            final int mutations = random.nextInt(4) == 0 ? 2 : 1;
            for (int m = 0; m < mutations; m++)
            {
                text = mutate(text, random);
            }
            outcomes[check(text, i, random.nextBoolean())]++;
        }
        return outcomes;
    }

    /** @return 0 when the reader rejected it, 1 when the validator found errors, 2 when both passed. */
    private static int check(final String text, final int iteration, final boolean strict)
    {
        try
        {
            final MscclSchedule schedule = new MscclReader().readString(text, "fuzz-" + iteration + ".xml");
            final List<MscclProblem> problems = MscclValidator.check(schedule, strict);
            for (final MscclProblem p : problems)
            {
                assertTrue(p.path() != null && p.message() != null && p.line() >= 0, p::toString);
            }
            if (problems.stream().anyMatch(MscclProblem::isError))
            {
                return 1;
            }
            if ((long)schedule.ngpus() * schedule.nchunksperloop() <= 100_000)
            {
                MscclSemanticCheck.check(schedule);
                MscclWriter.write(schedule);
            }
            return 2;
        }
        catch (final MscclFormatException e)
        {
            assertFalse(e.errors().isEmpty());
            assertFalse(e.getMessage().contains("internal error"), () -> "iteration " + iteration + ": " +
                e.getMessage() + "\n--- input:\n" + text);
            return 0;
        }
        catch (final AssertionError e)
        {
            throw e;
        }
        catch (final Throwable t)
        {
            fail("iteration " + iteration + " threw " + t + "\n--- input:\n" + text, t);
            return -1;
        }
    }

    private static String mutate(final String text, final Random random)
    {
        if (text.isEmpty())
        {
            return TOKENS[random.nextInt(TOKENS.length)];
        }
        final int at = random.nextInt(text.length());
        // mostly edits that keep the XML well-formed, so that the validator and the semantic check see many mutants
        switch (random.nextInt(12))
        {
            case 0:
            {
                final int end = Math.min(text.length(), at + 1 + random.nextInt(50));
                return text.substring(0, at) + text.substring(end);
            }
            case 1:
                return text.substring(0, at) + TOKENS[random.nextInt(TOKENS.length)] + text.substring(at);
            case 2, 3, 4, 5:
                return replaceNth(NUMBER, text, random, NUMBERS[random.nextInt(NUMBERS.length)]);
            case 6, 7, 8:
                return replaceNth(VALUE, text, random, "\"" + VALUES[random.nextInt(VALUES.length)] + "\"");
            case 9:
                return lines(text, random, true);
            case 10:
                return lines(text, random, false);
            default:
            {
                if (random.nextBoolean())
                {
                    return text.substring(0, at);
                }
                final char c = (char)(' ' + random.nextInt(95));
                return text.substring(0, at) + c + text.substring(Math.min(text.length(), at + 1));
            }
        }
    }

    private static String replaceNth(final Pattern pattern, final String text, final Random random,
        final String replacement)
    {
        final Matcher m = pattern.matcher(text);
        final List<int[]> spans = new ArrayList<>();
        while (m.find())
        {
            spans.add(new int[] {m.start(), m.end()});
        }
        if (spans.isEmpty())
        {
            return text;
        }
        final int[] span = spans.get(random.nextInt(spans.size()));
        return text.substring(0, span[0]) + replacement + text.substring(span[1]);
    }

    private static String lines(final String text, final Random random, final boolean duplicate)
    {
        final List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        final int i = random.nextInt(lines.size());
        if (duplicate)
        {
            lines.add(random.nextInt(lines.size() + 1), lines.get(i));
        }
        else if (random.nextBoolean())
        {
            lines.remove(i);
        }
        else
        {
            final int j = random.nextInt(lines.size());
            final String t = lines.get(i);
            lines.set(i, lines.get(j));
            lines.set(j, t);
        }
        return String.join("\n", lines);
    }

    private static List<String> seeds()
    {
        final List<String> seeds = new ArrayList<>();
        for (final String name : MscclTestFiles.resourceNames())
        {
            seeds.add(MscclTestFiles.resource(name));
        }
        try
        {
            for (final Path file : MscclTestFiles.sharedValidIfPresent())
            {
                if (Files.size(file) <= MAX_SEED_BYTES)
                {
                    seeds.add(Files.readString(file));
                }
            }
        }
        catch (final IOException e)
        {
            fail(e);
        }
        return seeds;
    }
}
