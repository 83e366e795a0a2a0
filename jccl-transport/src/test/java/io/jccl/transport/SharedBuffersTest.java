package io.jccl.transport;

import io.jccl.JcclInvalidArgumentException;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * jccl's shared allocator: a buffer is a mode-0600 file named after this process that a second mapping (a peer's)
 * sees the same bytes through; freeing unlinks and forgets it; sweeps remove the files of dead processes only.
 */
class SharedBuffersTest
{
    /** Above the kernel's largest pid_max (2^22): no process can have it. */
    private static final long DEAD_PID = Integer.MAX_VALUE;

    @Test
    void shouldShareZeroedMemoryThroughAFileNamedForThisProcessWithMode0600(@TempDir final Path dir)
        throws IOException
    {
        final SharedBuffers buffers = new SharedBuffers(dir);
        final SharedBuffers.Segment segment = buffers.allocate(10_000);
        final long pid = ProcessHandle.current().pid();
        assertEquals(pid, segment.id() >>> 32, "the id carries the owner's pid");
        assertEquals(SharedBuffers.fileName(StaleSharedFiles.pidNamespace(), segment.id()),
            segment.file().getFileName().toString());
        assertTrue(segment.file().getFileName().toString().startsWith("jccl-mem-" +
            StaleSharedFiles.pidNamespace() + "-" + pid + "-"), segment.file().toString());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(segment.file())));
        assertEquals(0, segment.address() % 4096, "page aligned");
        assertEquals(10_000, segment.length());
        for (long i = 0; i < 10_000; i += 8)
        {
            assertEquals(0, UnsafeApi.getLong(segment.address() + i), "zeroed");
        }
        UnsafeApi.putLong(segment.address() + 9_992, 0x1234_5678_9ABC_DEF0L);
        segment.memory().putInt(16, 77);

        // what a peer process does: map the file by name, read-only
        final MappedByteBuffer peer;
        try (FileChannel channel = FileChannel.open(segment.file(), StandardOpenOption.READ))
        {
            peer = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
        }
        try
        {
            final long peerAddress = BufferUtil.address(peer);
            assertTrue(peerAddress != segment.address(), "another mapping");
            assertEquals(0x1234_5678_9ABC_DEF0L, UnsafeApi.getLong(peerAddress + 9_992));
            assertEquals(77, UnsafeApi.getInt(peerAddress + 16));
        }
        finally
        {
            IoUtil.unmap(peer);
        }
        buffers.free(segment);
    }

    @Test
    void shouldUnlinkAndForgetABufferWhenFreed(@TempDir final Path dir)
    {
        final SharedBuffers buffers = new SharedBuffers(dir);
        final SharedBuffers.Segment kept = buffers.allocate(4096);
        final SharedBuffers.Segment freed = buffers.allocate(100);
        assertEquals(2, buffers.liveCount());
        buffers.free(freed);
        assertFalse(Files.exists(freed.file()), "unlinked");
        assertTrue(Files.exists(kept.file()));
        assertEquals(1, buffers.liveCount());
        assertNull(buffers.find(freed.address(), 1));
        final JcclInvalidArgumentException twice = assertThrows(JcclInvalidArgumentException.class,
            () -> buffers.free(freed));
        assertTrue(twice.getMessage().contains("not a live buffer"), twice.getMessage());
        buffers.free(kept);
        assertEquals(0, buffers.liveCount());
    }

    @Test
    void shouldFindTheBufferThatHoldsARangeOnlyWhenItHoldsAllOfItWithOrWithoutAHint(@TempDir final Path dir)
    {
        final SharedBuffers buffers = new SharedBuffers(dir);
        final SharedBuffers.Segment a = buffers.allocate(1000);
        final SharedBuffers.Segment b = buffers.allocate(5000);
        final SharedBuffers.Segment c = buffers.allocate(0);
        try
        {
            assertSame(a, buffers.find(a.address(), 1000));
            assertSame(a, buffers.find(a.address() + 999, 1));
            assertNull(buffers.find(a.address() + 999, 2), "runs past the end");
            assertNull(buffers.find(a.address() + 1000, 1), "the page's slack is not the buffer's");
            assertSame(b, buffers.find(b.address() + 10, 4990));
            assertSame(c, buffers.find(c.address(), 0));
            assertNull(buffers.find(c.address(), 1));
            assertNull(buffers.find(a.address() - 1, 1));
            assertNull(buffers.find(8, 8));
            // a caller's last answer as a hint changes no answer, whatever it is
            final SharedBuffers.Segment freed = buffers.allocate(64);
            buffers.free(freed);
            final long[][] ranges = {
                {a.address(), 1000}, {a.address() + 999, 1}, {a.address() + 999, 2}, {a.address() + 1000, 1},
                {a.address() + 1000, 0}, {b.address() + 10, 4990}, {b.address() + 10, 4991}, {c.address(), 0},
                {c.address(), 1}, {a.address() - 1, 1}, {freed.address(), 1}, {8, 8}};
            for (final SharedBuffers.Segment hint : new SharedBuffers.Segment[] {null, a, b, c, freed})
            {
                for (final long[] range : ranges)
                {
                    assertSame(buffers.find(range[0], range[1]), buffers.find(hint, range[0], range[1]),
                        "range at " + range[0] + " of " + range[1] + " bytes with hint " + hint);
                }
            }
        }
        finally
        {
            buffers.free(a);
            buffers.free(b);
            buffers.free(c);
        }
    }

    @Test
    void shouldRemoveOnlyTheFilesOfDeadProcessesOfThisNamespaceWhenSweeping(@TempDir final Path dir)
        throws IOException
    {
        final long ns = StaleSharedFiles.pidNamespace();
        final long self = ProcessHandle.current().pid();
        final Path deadBuffer = Files.createFile(dir.resolve("jccl-mem-" + ns + "-" + DEAD_PID + "-1"));
        final Path deadMapping = Files.createFile(dir.resolve("jccl-" + DEAD_PID + "-3"));
        final Path liveBuffer = Files.createFile(dir.resolve("jccl-mem-" + ns + "-" + self + "-999"));
        final Path liveMapping = Files.createFile(dir.resolve("jccl-" + self + "-5"));
        final Path otherNamespace = Files.createFile(dir.resolve("jccl-mem-" + (ns + 1) + "-" + DEAD_PID + "-1"));
        final Path fifo = Files.createFile(dir.resolve("jccl-0123456789012345-0-1-0-simple-p2p"));
        final Path foreign = Files.createFile(dir.resolve("not-jccl-" + DEAD_PID + "-1"));
        final String standing = "jccl-0123456789abcdef" + StaleSharedFiles.STANDING_INFIX;
        final Path deadStanding = Files.createFile(dir.resolve(standing + ns + "-" + DEAD_PID + "-3"));
        final Path liveStanding = Files.createFile(dir.resolve(standing + ns + "-" + self + "-0"));
        final Path otherStanding = Files.createFile(dir.resolve(standing + (ns + 1) + "-" + DEAD_PID + "-1"));

        final List<Path> removed = StaleSharedFiles.sweep(dir);

        assertEquals(List.of(deadBuffer, deadMapping, deadStanding).stream().sorted().toList(),
            removed.stream().sorted().toList());
        assertFalse(Files.exists(deadBuffer));
        assertFalse(Files.exists(deadMapping));
        for (final Path kept : List.of(liveBuffer, liveMapping, otherNamespace, fifo, foreign, liveStanding,
            otherStanding))
        {
            assertTrue(Files.exists(kept), kept + " is kept");
        }
    }

    @Test
    void shouldSweepTheFilesOfDeadProcessesOnTheFirstAllocation(@TempDir final Path dir) throws IOException
    {
        final Path dead = Files.createFile(dir.resolve("jccl-mem-" + StaleSharedFiles.pidNamespace() + "-" +
            DEAD_PID + "-7"));
        final SharedBuffers buffers = new SharedBuffers(dir);
        final SharedBuffers.Segment segment = buffers.allocate(64);
        assertFalse(Files.exists(dead), "swept");
        buffers.free(segment);
    }

    @Test
    void shouldTellALiveProcessFromAGoneOne()
    {
        assertTrue(StaleSharedFiles.alive(ProcessHandle.current().pid()));
        assertFalse(StaleSharedFiles.alive(DEAD_PID));
    }

    @Test
    void shouldRefuseALengthOutOfRange(@TempDir final Path dir)
    {
        final SharedBuffers buffers = new SharedBuffers(dir);
        assertThrows(JcclInvalidArgumentException.class, () -> buffers.allocate(-1));
        assertThrows(JcclInvalidArgumentException.class, () -> buffers.allocate(Integer.MAX_VALUE));
    }
}
