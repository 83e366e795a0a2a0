package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.kernels.HostDevice;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** P2P with SIMPLE lets the receiver read the sender's memory; every other combination stages. */
class DirectSlotTest
{
    private final Connections transport = new Connections();
    /** The sender's memory that direct slots point into. */
    private final long buffer = HostDevice.INSTANCE.allocate(4096);

    @AfterEach
    void close()
    {
        HostDevice.INSTANCE.free(buffer);
        transport.close();
    }

    @Test
    void shouldHandTheSendersAddressToTheReceiverWhenDirect()
    {
        final SendConnector sender = transport.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        final RecvConnector receiver = transport.receiver(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        assertTrue(sender.direct());
        for (int round = 0; round < 3 * FifoDescriptor.SLOTS; round++)
        {
            UnsafeApi.putLong(buffer + 8L * round, round * 7L);
            sender.publishDirect(buffer + 8L * round, 8, 11, 12, 13);
            assertFalse(sender.drained(), "the receiver has not released the slot");
            assertTrue(receiver.hasData());
            assertTrue(receiver.isDirect());
            assertEquals(buffer + 8L * round, receiver.slotAddress());
            assertEquals(round * 7L, UnsafeApi.getLong(receiver.slotAddress()));
            assertEquals(8, receiver.dataLength());
            assertEquals(11, receiver.seq());
            receiver.release();
            assertTrue(sender.drained());

            // a staged slot in the same FIFO is read from the FIFO again, and holds no reference to the
            // sender's memory: it never keeps the sender waiting
            UnsafeApi.putLong(sender.slotAddress(), -round);
            sender.publish(8, 11, 12, 13);
            assertTrue(sender.drained(), "a staged slot holds its own copy");
            assertTrue(receiver.hasData());
            assertFalse(receiver.isDirect());
            assertEquals(-round, UnsafeApi.getLong(receiver.slotAddress()));
            receiver.release();
        }
    }

    @Test
    void shouldWaitForTheLastDirectSlotEvenBehindStagedOnes()
    {
        final SendConnector sender = transport.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        final RecvConnector receiver = transport.receiver(0, 1, 0, Protocol.SIMPLE, TransportKind.P2P);
        assertFalse(receiver.hasData(), "nothing published yet");
        sender.publishDirect(buffer, 8, 1, 2, 3);
        sender.publish(8, 1, 2, 3);
        assertFalse(sender.drained(), "the direct slot is unread");
        assertTrue(receiver.hasData());
        assertTrue(receiver.isDirect());
        receiver.release();
        assertTrue(sender.drained(), "only the staged slot is left, and it holds its own copy");
        assertTrue(receiver.hasData());
        assertFalse(receiver.isDirect());
        receiver.release();
        assertFalse(receiver.hasData(), "both slots were read");
    }

    @Test
    void shouldCarrySmallStagedSlotsInTheirHeaderLine()
    {
        final SendConnector sender = transport.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.SHM);
        final RecvConnector receiver = transport.receiver(0, 1, 0, Protocol.SIMPLE, TransportKind.SHM);
        final long dataSlot = sender.slotAddress();
        for (int round = 0; round < 3 * FifoDescriptor.SLOTS; round++)
        {
            // alternate inline (at most INLINE_MAX bytes) and data-slot slots through the same headers
            final int length = round % 2 == 0 ? FifoDescriptor.INLINE_MAX : FifoDescriptor.INLINE_MAX + 8;
            final long at = sender.slotAddress(length);
            assertEquals(round % 2 == 0, at != sender.slotAddress(), "inline exactly up to INLINE_MAX bytes");
            final long out = sender.slotAddress(length);
            for (int i = 0; i < length; i += 8)
            {
                UnsafeApi.putLong(out + i, round * 1000L + i);
            }
            sender.publish(length, 40 + round, 12, 13);
            assertTrue(receiver.hasData());
            assertFalse(receiver.isDirect());
            assertEquals(length, receiver.dataLength());
            assertEquals(40 + round, receiver.seq());
            for (int i = 0; i < length; i += 8)
            {
                assertEquals(round * 1000L + i, UnsafeApi.getLong(receiver.slotAddress() + i));
            }
            receiver.release();
            assertFalse(receiver.hasData());
        }
        assertTrue(dataSlot != 0);
        assertEquals(sender.slotAddress(FifoDescriptor.INLINE_MAX), sender.slotAddress(FifoDescriptor.INLINE_MAX),
            "the place does not move until the slot is published");
        final SendConnector ll = transport.sender(1, 0, 0, Protocol.LL, TransportKind.P2P);
        assertEquals(ll.slotAddress(), ll.slotAddress(8), "LL never places a slot in its header");
    }

    @Test
    void shouldStageWhenShmOrNotSimple()
    {
        assertFalse(transport.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.SHM).direct());
        assertFalse(transport.sender(0, 1, 0, Protocol.LL, TransportKind.P2P).direct());
        assertFalse(transport.sender(0, 1, 0, Protocol.LL128, TransportKind.P2P).direct());
        final SendConnector staged = transport.sender(1, 0, 0, Protocol.SIMPLE, TransportKind.SHM);
        assertThrows(UnsupportedOperationException.class, () -> staged.publishDirect(64, 8, 1, 1, 1));
    }

    @Test
    void shouldRefuseNetWhereTheCommunicatorHasNoNetworkTransport()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> transport.sender(0, 1, 0, Protocol.SIMPLE, TransportKind.NET));
        assertTrue(ex.getMessage().contains("needs the network transport"), ex.getMessage());
    }
}
