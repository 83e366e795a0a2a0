package io.jccl.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CFormatTest
{
    @Test
    void shouldRoundExactBinaryValueHalfToEvenWhenFixed()
    {
        // 0.125 is exact in binary: glibc gives 0.12 (ties to even), String.format gives 0.13
        assertEquals("  0.12", CFormat.fixed(0.125, 6, 2));
        assertEquals("  0.38", CFormat.fixed(0.375, 6, 2));
        // 2.675 is 2.67499999... in binary: C prints 2.67
        assertEquals("2.67", CFormat.fixed(2.675, 0, 2));
        assertEquals("   10314", CFormat.fixed(10314.4, 8, 0));
        assertEquals("  5202.2", CFormat.fixed(5202.25, 8, 1));
        assertEquals("  5202.3", CFormat.fixed(5202.31, 8, 1));
        assertEquals("-0.00", CFormat.fixed(-0.001, 0, 2));
        assertEquals("   nan", CFormat.fixed(Double.NaN, 6, 2));
        assertEquals("   inf", CFormat.fixed(Double.POSITIVE_INFINITY, 6, 2));
    }

    @Test
    void shouldStripTrailingZerosWhenGeneral()
    {
        assertEquals("194.675", CFormat.general(194.675, 0));
        assertEquals("0", CFormat.general(0, 0));
        assertEquals("    0", CFormat.general(0, 5));
        assertEquals("   12", CFormat.general(12, 5));
        assertEquals("1.5", CFormat.general(1.5, 0));
        assertEquals("123457", CFormat.general(123456.7, 0));
        assertEquals("0.0001234", CFormat.general(0.0001234, 0));
    }

    @Test
    void shouldUseExponentWhenGeneralOutOfRange()
    {
        assertEquals("1e+06", CFormat.general(1e6, 0));
        assertEquals("1.23457e+08", CFormat.general(123456789, 0));
        assertEquals("1.234e-05", CFormat.general(0.00001234, 0));
        assertEquals("1e+100", CFormat.general(1e100, 0));
    }
}
