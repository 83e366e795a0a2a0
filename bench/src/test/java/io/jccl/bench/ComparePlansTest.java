package io.jccl.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --compare-plans} and {@code --rounds}: the plans parsed with the sweep's keys, and every mistake named with
 * its flag.
 */
class ComparePlansTest
{
    private static BenchOptions parse(final String... args)
    {
        final BenchOptions options = new BenchOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }

    private static String error(final String text)
    {
        return assertThrows(IllegalArgumentException.class, () -> ComparePlans.parse(text)).getMessage();
    }

    private static String optionsError(final BenchOptions options)
    {
        return assertThrows(IllegalArgumentException.class, options::validate).getMessage();
    }

    @Test
    void shouldParsePlansInOrderGivenWhenDefaultAndPins()
    {
        final List<SweepCombination> plans = ComparePlans.parse("default; proto=ll,nchannels=2 ;algo=tree,chunk=32K");

        assertEquals(List.of(SweepCombination.DEFAULT,
            new SweepCombination(Map.of(SweepKey.PROTO, "ll", SweepKey.NCHANNELS, "2")),
            new SweepCombination(Map.of(SweepKey.ALGO, "tree", SweepKey.CHUNK, "32K"))), plans);
        assertEquals("proto=ll,nchannels=2", plans.get(1).compactLabel());
    }

    @Test
    void shouldNameFlagAndPlanWhenPlanIsWrong()
    {
        assertTrue(error("proto=ll").startsWith("--compare-plans 'proto=ll' needs at least two plans"));
        assertEquals("--compare-plans plan 2 is empty; give 'default' for no pins", error("default;"));
        assertTrue(error("default;speed=11").startsWith("--compare-plans plan 2 key 'speed' is not one of [algo"),
            error("default;speed=11"));
        assertTrue(error("default;proto").startsWith("--compare-plans plan 2 'proto' is not key=value"));
        assertEquals("--compare-plans plan 2 sets proto twice", error("default;proto=ll,proto=simple"));
        assertEquals("--compare-plans plan 3 'proto=ll' is given twice", error("default;proto=ll;proto=ll"));
        assertEquals("--compare-plans plan 1 proto has an empty value", error("proto=;default"));
        assertTrue(error("default;nchannels=0").startsWith("--compare-plans plan 2 nchannels=0: "),
            error("default;nchannels=0"));
        assertTrue(error("default;proto=fast").startsWith("--compare-plans plan 2 proto=fast: "),
            error("default;proto=fast"));
    }

    @Test
    void shouldDefaultToFiveRoundsWhenRoundsNotGiven()
    {
        final BenchOptions options = parse("--compare-plans", "default;proto=ll");
        options.validate();

        assertEquals(5, options.rounds());
        assertEquals(2, options.comparePlans().size());
        assertEquals(3, parse("--compare-plans", "default;proto=ll", "--rounds", "3").rounds());
    }

    @Test
    void shouldNameFlagsWhenGivenWithSweepTunerOrWithoutPlans()
    {
        assertTrue(optionsError(parse("--compare-plans", "default;proto=ll", "--sweep", "nchannels=1,2"))
            .startsWith("--compare-plans and --sweep together"));
        parse("--compare-plans", "default;proto=ll").processes(0, 2).validate();
        assertTrue(optionsError(parse("--rounds", "3")).startsWith("--rounds 3 needs --compare-plans"));
        assertTrue(optionsError(parse("--compare-plans", "default;proto=ll", "--rounds", "0"))
            .contains("--rounds"));
        assertTrue(optionsError(parse("--compare-plans", "default;proto=ll", "--tuner", "auto"))
            .startsWith("--compare-plans and --tuner auto"));
        assertTrue(optionsError(parse("--compare-plans", "default")).startsWith("--compare-plans 'default' needs"));
    }
}
