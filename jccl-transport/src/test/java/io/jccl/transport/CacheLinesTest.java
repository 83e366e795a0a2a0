package io.jccl.transport;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CacheLinesTest
{
    @Test
    void shouldBeAvailableOnX86WhereTheJdkPackageIsExportedToJccl()
    {
        assumeTrue("amd64".equals(System.getProperty("os.arch")), "the JDK flushes lines on x86-64; this is " +
            System.getProperty("os.arch"));
        assertTrue(Object.class.getModule().isExported("jdk.internal.misc", CacheLinesTest.class.getModule()),
            "the build exports jdk.internal.misc to the tests, as the bench launcher does");
        assertTrue(CacheLines.available(), "writebackMemory found and enabled");
    }

    @Test
    void shouldLeaveTheContentsAsTheyWere()
    {
        final int length = 3 * 4096 + 100;
        final long address = UnsafeApi.allocateMemory(length + 64);
        try
        {
            // an unaligned range of odd length: lines on both edges are partly outside it
            final long start = address + 13;
            for (int i = 0; i < length; i++)
            {
                UnsafeApi.putByte(start + i, (byte)(i * 31 + 7));
            }
            CacheLines.writeback(start, length);
            CacheLines.writeback(start, 0);
            for (int i = 0; i < length; i++)
            {
                assertEquals((byte)(i * 31 + 7), UnsafeApi.getByte(start + i), "byte " + i);
            }
        }
        finally
        {
            UnsafeApi.freeMemory(address);
        }
    }
}
