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
                final int length = length(sent);
                for (int i = 0; i < length; i++)
                {
                    UnsafeApi.putByte(sender.slotAddress() + i, pattern(sent, i));
                }
                sender.publish(length, sent, 7L * sent, 11L);
                sent++;
            }
            while (receiver.hasData())
            {
                final int length = receiver.dataLength();
                assertEquals(length(received), length);
                assertEquals(received, receiver.seq());
                assertEquals(7L * received, receiver.shape());
                assertEquals(11L, receiver.plan());
                for (int i = 0; i < length; i++)
                {
                    if (pattern(received, i) != UnsafeApi.getByte(receiver.slotAddress() + i))
                    {
                        assertEquals(pattern(received, i), UnsafeApi.getByte(receiver.slotAddress() + i),
                            "slot " + received + " byte " + i);
                    }
                }
                receiver.release();
                received++;
            }
        }
        assertFalse(receiver.hasData());
    }

    @Test
    void shouldCarryAFullSlotWhenPayloadIsAtCapacity()
    {
        final int length = sender.slotLength();
        for (int i = 0; i < length; i++)
        {
            UnsafeApi.putByte(sender.slotAddress() + i, pattern(3, i));
        }
        sender.publish(length, 3, 0, 0);
        assertTrue(receiver.hasData());
        assertEquals(length, receiver.dataLength());
        for (int i = 0; i < length; i++)
        {
            assertEquals(pattern(3, i), UnsafeApi.getByte(receiver.slotAddress() + i));
        }
    }

    /** Lengths from 0 up, not multiples of 4 (LL words) or 120 (LL128 lines), and some whole slots. */
    private int length(final int slot)
    {
        return slot % 97 == 0 ? sender.slotLength() : (slot * 37) % 1000;
    }

    private static byte pattern(final int slot, final int i)
    {
        return (byte)(slot * 31 + i * 7 + (i >>> 8));
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
