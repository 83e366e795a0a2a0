package io.jccl.transport;

import io.jccl.JcclTimeoutException;
import io.jccl.Protocol;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two mappings of one FIFO file, as two processes would make them: slots written through one arrive through the
 * other, and the file is gone by name once both are attached.
 */
class SharedFifoFileTest
{
    @ParameterizedTest
    @EnumSource(Protocol.class)
    void shouldCarrySlotsBetweenTwoMappingsAndUnlinkOnceBothAttached(final Protocol protocol,
        @TempDir final Path dir) throws IOException
    {
        final MemoryFifo senderSide = SharedFifoFile.attach(dir, "fifo", protocol, 0, 1, 1000);
        assertTrue(Files.exists(dir.resolve("fifo")), "kept until the peer attaches");
        final MemoryFifo receiverSide = SharedFifoFile.attach(dir, "fifo", protocol, 0, 1, 1000);
        try (var files = Files.list(dir))
        {
            assertEquals(0, files.count(), "unlinked once both ends are attached");
        }
        try
        {
            final SendConnector sender = senderSide.sender();
            final RecvConnector receiver = receiverSide.receiver();
            for (int slot = 0; slot < 5 * FifoDescriptor.SLOTS; slot++)
            {
                assertTrue(sender.hasSpace());
                final int length = 1 + slot * 37 % 1000;
                for (int i = 0; i < length; i++)
                {
                    UnsafeApi.putByte(sender.slotAddress() + i, (byte)(slot + i));
                }
                sender.publish(length, slot, 7, 9);
                assertTrue(receiver.hasData(), "slot " + slot);
                assertFalse(receiver.isDirect());
                assertEquals(length, receiver.dataLength());
                assertEquals(slot, receiver.seq());
                for (int i = 0; i < length; i++)
                {
                    assertEquals((byte)(slot + i), UnsafeApi.getByte(receiver.slotAddress() + i));
                }
                receiver.release();
            }
        }
        finally
        {
            senderSide.close();
            receiverSide.close();
        }
    }

    /**
     * A FIFO file waiting for its peer names its creator in its header: a sweep keeps it while the creator lives,
     * and removes it once the process it names is gone; the creator's temporary name is gone too.
     */
    @Test
    void shouldNameItsCreatorSoThatASweepRemovesItOnlyOnceTheCreatorIsGone(@TempDir final Path dir) throws Exception
    {
        final String name = "jccl-00c0ffee00c0ffee-1-0-0-simple-p2p";
        final MemoryFifo waiting = SharedFifoFile.attach(dir, name, Protocol.SIMPLE, 1, 0, 1000);
        try
        {
            final Path file = dir.resolve(name);
            try (var files = Files.list(dir))
            {
                assertEquals(List.of(file), files.toList(), "only the shared name, no temporary one");
            }
            assertArrayEquals(new long[] {ProcessHandle.current().pid(), StaleSharedFiles.pidNamespace()},
                SharedFifoFile.creator(file));
            assertEquals(List.of(), StaleSharedFiles.sweep(dir), "the creator lives");
            assertTrue(Files.exists(file));
            // the same file as a creator that has exited would leave it
            final Process gone = new ProcessBuilder("true").start();
            assertEquals(0, gone.waitFor());
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
            {
                final ByteBuffer pid = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.nativeOrder())
                    .putLong(0, gone.pid());
                channel.write(pid, FifoDescriptor.OWNER_PID_OFFSET);
            }
            assertEquals(List.of(file), StaleSharedFiles.sweep(dir), "the creator is gone");
        }
        finally
        {
            waiting.close();
        }
    }

    @Test
    void shouldTimeOutWhenTheCreatorNeverExtendsTheFile(@TempDir final Path dir) throws IOException
    {
        Files.createFile(dir.resolve("stalled"));
        final JcclTimeoutException ex = assertThrows(JcclTimeoutException.class,
            () -> SharedFifoFile.attach(dir, "stalled", Protocol.SIMPLE, 2, 3, 50));
        assertTrue(ex.getMessage().contains("ranks 2 and 3"), ex.getMessage());
    }
}
