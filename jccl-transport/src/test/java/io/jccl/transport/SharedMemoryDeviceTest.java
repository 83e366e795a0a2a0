package io.jccl.transport;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** Shared memory is a mapped file that no longer exists by name once mapped. */
class SharedMemoryDeviceTest
{
    @Test
    void shouldMapZeroedMemoryAndLeaveNoFileBehind(@TempDir final Path dir) throws IOException
    {
        final SharedMemoryDevice device = new SharedMemoryDevice(dir);
        final long a = device.allocate(1 << 20);
        final long b = device.allocate(100);
        try
        {
            assertNotEquals(0, a);
            assertEquals(0, a % 64, "aligned");
            assertEquals(0L, UnsafeApi.getLong(a + (1 << 20) - 8), "zeroed");
            UnsafeApi.putLong(a, 42);
            device.copy(a, b, 8);
            assertEquals(42L, UnsafeApi.getLong(b));
            try (var files = Files.list(dir))
            {
                assertEquals(0, files.count(), "unlinked once mapped");
            }
            assertEquals(2, device.liveMappings());
        }
        finally
        {
            device.free(a);
            device.free(b);
        }
        assertEquals(0, device.liveMappings());
    }

    @Test
    void shouldUseDevShmWhereItExists()
    {
        if (Files.isDirectory(Path.of("/dev/shm")) && Files.isWritable(Path.of("/dev/shm")))
        {
            assertEquals(Path.of("/dev/shm"), SharedMemoryDevice.INSTANCE.directory());
        }
        else
        {
            assertEquals(Path.of(System.getProperty("java.io.tmpdir")), SharedMemoryDevice.INSTANCE.directory());
        }
    }
}
