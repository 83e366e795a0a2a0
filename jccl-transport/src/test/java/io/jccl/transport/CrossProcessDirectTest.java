package io.jccl.transport;

import io.jccl.JcclSystemException;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.kernels.HostDevice;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * P2P with SIMPLE between two processes, played by two transports of one JVM that each own one rank and meet
 * through files in a directory: data in the sender's shared buffers is read in place through the receiver's own
 * mapping of them, other data is staged, SHM and the LL protocols always stage.
 */
class CrossProcessDirectTest
{
    @TempDir
    Path dir;

    private SharedBuffers senderBuffers;
    private Connections senderProcess;
    private Connections receiverProcess;

    @BeforeEach
    void start()
    {
        senderBuffers = new SharedBuffers(dir);
        senderProcess = new Connections(r -> r == 0, dir, "jccl-test", 5_000, senderBuffers);
        receiverProcess = new Connections(r -> r == 1, dir, "jccl-test", 5_000, new SharedBuffers(dir));
    }

    @AfterEach
    void close()
    {
        senderProcess.close();
        receiverProcess.close();
    }

    @Test
    void shouldReadTheSendersSharedBufferInPlaceAndStageOtherMemory()
    {
        final SendConnector sender = senderProcess.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        final RecvConnector receiver = receiverProcess.receiver(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        final SharedBuffers.Segment input = senderBuffers.allocate(1 << 20);
        final SharedBuffers.Segment output = senderBuffers.allocate(1 << 20);
        final long plain = HostDevice.INSTANCE.allocate(4096);
        try
        {
            assertTrue(sender.direct());
            assertTrue(sender.readableInPlace(input.address() + 64, 4096));
            assertFalse(sender.readableInPlace(input.address() + (1 << 20) - 8, 16), "runs past the buffer");
            assertFalse(sender.readableInPlace(plain, 8), "private memory of the sending process");
            for (int round = 0; round < 3 * FifoDescriptor.SLOTS; round++)
            {
                // a call alternates its input and output buffers, as a ring's steps do
                final SharedBuffers.Segment buffer = round % 2 == 0 ? input : output;
                final long at = buffer.address() + 4096L * round;
                UnsafeApi.putLong(at, round * 7L);
                UnsafeApi.putLong(at + 4088, -round);
                sender.publishDirect(at, 4096, 11, 12, 13);
                assertFalse(sender.drained(), "the receiver has not released the slot");
                assertTrue(receiver.hasData());
                assertTrue(receiver.isDirect());
                assertNotEquals(at, receiver.slotAddress(), "the receiver's own mapping of the sender's buffer");
                assertEquals(round * 7L, UnsafeApi.getLong(receiver.slotAddress()));
                assertEquals(-round, UnsafeApi.getLong(receiver.slotAddress() + 4088));
                assertEquals(4096, receiver.dataLength());
                assertEquals(11, receiver.seq());
                assertEquals(12, receiver.shape());
                assertEquals(13, receiver.plan());
                receiver.release();
                assertTrue(sender.drained());

                // a staged slot in the same FIFO is read from the FIFO again
                UnsafeApi.putLong(sender.slotAddress(), -7L * round);
                sender.publish(8, 11, 12, 13);
                assertTrue(receiver.hasData());
                assertFalse(receiver.isDirect());
                assertEquals(-7L * round, UnsafeApi.getLong(receiver.slotAddress()));
                receiver.release();
            }
        }
        finally
        {
            HostDevice.INSTANCE.free(plain);
            senderBuffers.free(input);
            senderBuffers.free(output);
        }
    }

    @Test
    void shouldUnmapAPeersFreedBuffersWhenItMapsANewOne()
    {
        final SendConnector sender = senderProcess.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        final RecvConnector receiver = receiverProcess.receiver(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        final PeerBuffers mapped = receiverProcess.peerBuffers();
        for (int call = 0; call < 5; call++)
        {
            final SharedBuffers.Segment buffer = senderBuffers.allocate(8192);
            UnsafeApi.putLong(buffer.address() + 8, call);
            sender.publishDirect(buffer.address() + 8, 8, call, 0, 0);
            assertTrue(receiver.hasData());
            assertEquals(call, UnsafeApi.getLong(receiver.slotAddress()));
            receiver.release();
            assertEquals(1, mapped.mappedCount(), "call " + call + ": the freed buffers are unmapped");
            senderBuffers.free(buffer);
        }
    }

    @Test
    void shouldFailNamingTheFileWhenTheSendersBufferIsGone()
    {
        final SendConnector sender = senderProcess.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        final RecvConnector receiver = receiverProcess.receiver(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        final SharedBuffers.Segment buffer = senderBuffers.allocate(8192);
        sender.publishDirect(buffer.address(), 8, 1, 0, 0);
        senderBuffers.free(buffer);
        assertTrue(receiver.hasData());
        final JcclSystemException ex = assertThrows(JcclSystemException.class, receiver::slotAddress);
        assertTrue(ex.getMessage().contains(buffer.file().getFileName().toString()), ex.getMessage());
    }

    @Test
    void shouldStageEveryByteWithShmOrTheLlProtocols() throws java.io.IOException
    {
        assertFalse(senderProcess.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.SHM).direct());
        assertFalse(senderProcess.sender(0, 1, 0, Protocol.LL, TransportKind.P2P).direct());
        assertFalse(senderProcess.sender(0, 1, 0, Protocol.LL128, TransportKind.P2P).direct());
        final SharedBuffers.Segment buffer = senderBuffers.allocate(64);
        try
        {
            assertFalse(senderProcess.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.SHM)
                .readableInPlace(buffer.address(), 8));
        }
        finally
        {
            senderBuffers.free(buffer);
        }
        // the P2P and SHM FIFOs of one pair are files of their own, each waiting for its peer
        try (var files = Files.list(dir))
        {
            assertEquals(3, files.filter(f -> f.getFileName().toString().startsWith("jccl-test-0-1-0-")).count());
        }
    }
}
