package io.jccl.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SizesTest
{
    @Test
    void shouldParsePlainBytesWhenNoSuffix()
    {
        assertEquals(8, Sizes.parseSize("8"));
        assertEquals(0, Sizes.parseSize("0"));
    }

    @Test
    void shouldUseBinaryUnitsWhenSuffixGiven()
    {
        assertEquals(1024, Sizes.parseSize("1K"));
        assertEquals(1024, Sizes.parseSize("1k"));
        assertEquals(128L << 20, Sizes.parseSize("128M"));
        assertEquals(1L << 30, Sizes.parseSize("1G"));
        assertEquals(8L << 30, Sizes.parseSize("8g"));
        assertEquals(1536, Sizes.parseSize("1.5K"));
        assertEquals(1L << 20, Sizes.parseSize("1MB"));
        assertEquals(1L << 20, Sizes.parseSize("1MiB"));
    }

    @Test
    void shouldRejectSizeWhenNotANumber()
    {
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize("abc"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize("1T"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize("-8"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseSize(""));
    }

    @Test
    void shouldReadIntegersAsStrtolBaseZeroWhenPrefixed()
    {
        assertEquals(20, Sizes.parseInteger("20"));
        assertEquals(16, Sizes.parseInteger("0x10"));
        assertEquals(8, Sizes.parseInteger("010"));
        assertEquals(0, Sizes.parseInteger("0"));
        assertEquals(-1, Sizes.parseInteger("-1"));
    }

    @Test
    void shouldRejectIntegerWhenTrailingGarbage()
    {
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseInteger("12abc"));
        assertThrows(IllegalArgumentException.class, () -> Sizes.parseInteger("09"));
    }

    @Test
    void shouldMultiplyWhenStepFactorAboveOne()
    {
        assertEquals(List.of(8L, 16L, 32L, 64L, 128L), Sizes.sequence(8, 128, 1 << 20, 2));
        assertEquals(List.of(8L, 16L, 32L, 64L, 128L), Sizes.sequence(8, 255, 1 << 20, 2));
        assertEquals(List.of(1L, 4L, 16L), Sizes.sequence(1, 16, 0, 4));
    }

    @Test
    void shouldAddStepBytesWhenStepFactorIsOne()
    {
        assertEquals(List.of(32L << 20), Sizes.sequence(32 << 20, 32 << 20, 1 << 20, 1));
        assertEquals(List.of(100L, 150L, 200L), Sizes.sequence(100, 220, 50, 1));
    }

    @Test
    void shouldRejectSequenceWhenItNeverAdvances()
    {
        assertThrows(IllegalArgumentException.class, () -> Sizes.sequence(0, 8, 1, 2));
        assertThrows(IllegalArgumentException.class, () -> Sizes.sequence(8, 16, 0, 1));
        assertEquals(List.of(8L), Sizes.sequence(8, 8, 0, 1));
    }

    @Test
    void shouldRejectSequenceWhenMinAboveMax()
    {
        assertThrows(IllegalArgumentException.class, () -> Sizes.sequence(16, 8, 1, 1));
    }

    @Test
    void shouldLabelSizesAsTheyAreTypedWhenLabel()
    {
        assertEquals(List.of("0B", "8B", "1023B", "1K", "1.5K", "64M", "1.33M", "2G", "1024G"), List.of(
            Sizes.label(0), Sizes.label(8), Sizes.label(1023), Sizes.label(1024), Sizes.label(1536),
            Sizes.label(64L << 20), Sizes.label((1L << 20) + (1L << 20) / 3), Sizes.label(2L << 30),
            Sizes.label(1L << 40)));
        assertEquals(1536, Sizes.parseSize(Sizes.label(1536)));
    }
}
