package io.jccl.transport;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every connector pair must do, whatever carries its bytes: slots arrive in order with their headers, a full
 * FIFO refuses more until the receiver frees a slot, and sequence numbers survive many wrap-arounds. Subclasses
 * give the pair.
 */
abstract class ConnectorContractTest
{
    protected SendConnector sender;
    protected RecvConnector receiver;

    /** Creates {@link #sender} and {@link #receiver}, connected, from rank 3 to rank 5. */
    protected abstract void connect();

    /** Frees what {@link #connect()} made. */
    protected abstract void disconnect();

    @BeforeEach
    void setUp()
    {
        connect();
    }

    @AfterEach
    void tearDown()
    {
        disconnect();
    }

    @Test
    void shouldNameThePeersWhenConnected()
    {
        assertEquals(5, sender.peer());
        assertEquals(3, receiver.peer());
    }

    @Test
    void shouldDeliverNothingWhenNothingWasPublished()
    {
        assertFalse(receiver.hasData());
        assertTrue(sender.hasSpace());
    }

    @Test
    void shouldRefuseWhenEverySlotIsInFlight()
    {
        for (int k = 0; k < FifoDescriptor.SLOTS; k++)
        {
            assertTrue(sender.hasSpace(), "slot " + k);
            sender.publish(8, k, 0, 0);
        }
        assertFalse(sender.hasSpace());
        assertTrue(receiver.hasData());
        receiver.release();
        assertTrue(sender.hasSpace());
    }

    @Test
    @Timeout(30)
    void shouldDeliverInOrderWithHeadersWhenWrappingManyTimes()
    {
        final int slots = FifoDescriptor.SLOTS * 1000 + 3;
        int sent = 0;
        int received = 0;
        while (received < slots)
        {
            while (sent < slots && sender.hasSpace())
            {
                final int length = 8 + (sent % 13) * 8;
                for (int i = 0; i < length; i += 8)
                {
                    UnsafeApi.putLong(sender.slotAddress() + i, (long)sent * 1000 + i);
                }
                sender.publish(length, sent, 7L * sent, 11L);
                sent++;
            }
            while (receiver.hasData())
            {
                final int length = receiver.dataLength();
                assertEquals(8 + (received % 13) * 8, length);
                assertEquals(received, receiver.seq());
                assertEquals(7L * received, receiver.shape());
                assertEquals(11L, receiver.plan());
                for (int i = 0; i < length; i += 8)
                {
                    assertEquals((long)received * 1000 + i, UnsafeApi.getLong(receiver.slotAddress() + i));
                }
                receiver.release();
                received++;
            }
        }
        assertFalse(receiver.hasData());
    }

    @Test
    @Timeout(30)
    void shouldDeliverEverySlotWhenEndsRunOnTwoThreads() throws InterruptedException
    {
        final int slots = 200_000;
        final Thread producer = new Thread(() ->
        {
            for (int k = 0; k < slots; k++)
            {
                while (!sender.hasSpace())
                {
                    Thread.onSpinWait();
                }
                UnsafeApi.putLong(sender.slotAddress(), k);
                sender.publish(8, k, 0, 0);
            }
        });
        producer.start();
        for (int k = 0; k < slots; k++)
        {
            while (!receiver.hasData())
            {
                Thread.yield();
            }
            assertEquals(k, UnsafeApi.getLong(receiver.slotAddress()));
            assertEquals(k, receiver.seq());
            receiver.release();
        }
        producer.join();
    }
}
