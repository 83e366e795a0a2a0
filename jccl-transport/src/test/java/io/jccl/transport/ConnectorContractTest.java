package io.jccl.transport;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What every connector pair must do, whatever carries its bytes ({@link ConnectorPairs}: memory, shared files and
 * the network, with every protocol): slots arrive in order with their headers, a full connection refuses more until
 * the receiver frees a slot, sequence numbers survive many wrap-arounds, and two threads can drive the two ends.
 * Across the network a slot, and a freed slot's credit, take a trip: there the test waits for them, with a deadline.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConnectorContractTest
{
    static Stream<ConnectorPairs.Pair> pairs()
    {
        return ConnectorPairs.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void namesThePeers(final ConnectorPairs.Pair pair) throws Exception
    {
        run(pair, (sender, receiver) ->
        {
            assertEquals(5, sender.peer());
            assertEquals(3, receiver.peer());
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void deliversNothingWhenNothingWasPublished(final ConnectorPairs.Pair pair) throws Exception
    {
        run(pair, (sender, receiver) ->
        {
            await(sender::hasSpace, "space on a new connection");
            assertFalse(receiver.hasData());
        });
    }

    /**
     * A memory FIFO holds exactly its slots and has space again once one is freed; the network holds at least as many
     * (its two rings) and has space again once half a ring is freed.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void refusesWhenEverySlotIsInFlightAndTakesMoreOnceOneIsFreed(final ConnectorPairs.Pair pair) throws Exception
    {
        run(pair, (sender, receiver) ->
        {
            int published = 0;
            while (pair.exact() ? sender.hasSpace() : eventually(sender::hasSpace, 300))
            {
                sender.publish(8, published, 0, 0);
                published++;
                assertTrue(published <= 4 * FifoDescriptor.SLOTS, "no bound on slots in flight");
            }
            if (pair.exact())
            {
                assertEquals(FifoDescriptor.SLOTS, published);
            }
            else
            {
                assertTrue(published >= FifoDescriptor.SLOTS, published + " slots in flight");
            }
            assertFalse(sender.hasSpace());
            // the network returns credit by halves of the ring (a packet per freed slot would cost more)
            final int freed = pair.exact() ? 1 : FifoDescriptor.SLOTS / 2;
            for (int k = 0; k < freed; k++)
            {
                await(receiver::hasData, "slot " + k);
                assertEquals(k, receiver.seq());
                receiver.release();
            }
            await(sender::hasSpace, "space once " + freed + " slots are freed");
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void deliversInOrderWithHeadersWhenWrappingManyTimes(final ConnectorPairs.Pair pair) throws Exception
    {
        run(pair, (sender, receiver) ->
        {
            final int slots = (int)(FifoDescriptor.SLOTS * 1000 * pair.scale()) + 3;
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ConnectorPairs.NET_TIMEOUT_MS * 3);
            int sent = 0;
            int received = 0;
            while (received < slots)
            {
                assertTrue(System.nanoTime() - deadline < 0, "received " + received + " of " + slots);
                while (sent < slots && sender.hasSpace())
                {
                    final int length = length(sent, sender.slotLength());
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
                    assertEquals(length(received, sender.slotLength()), length);
                    assertEquals(received, receiver.seq());
                    assertEquals(7L * received, receiver.shape());
                    assertEquals(11L, receiver.plan());
                    for (int i = 0; i < length; i++)
                    {
                        if (pattern(received, i) != UnsafeApi.getByte(receiver.slotAddress() + i))
                        {
                            fail("slot " + received + " byte " + i + ": " +
                                UnsafeApi.getByte(receiver.slotAddress() + i) + " instead of " + pattern(received, i));
                        }
                    }
                    receiver.release();
                    received++;
                }
                Thread.onSpinWait();
            }
            assertFalse(receiver.hasData());
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void carriesAFullSlotWhenThePayloadIsAtCapacity(final ConnectorPairs.Pair pair) throws Exception
    {
        run(pair, (sender, receiver) ->
        {
            final int length = sender.slotLength();
            await(sender::hasSpace, "space on a new connection");
            for (int i = 0; i < length; i++)
            {
                UnsafeApi.putByte(sender.slotAddress() + i, pattern(3, i));
            }
            sender.publish(length, 3, 0, 0);
            await(receiver::hasData, "the slot");
            assertEquals(length, receiver.dataLength());
            for (int i = 0; i < length; i++)
            {
                assertEquals(pattern(3, i), UnsafeApi.getByte(receiver.slotAddress() + i), "byte " + i);
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pairs")
    void deliversEverySlotWhenTheEndsRunOnTwoThreads(final ConnectorPairs.Pair pair) throws Exception
    {
        run(pair, (sender, receiver) ->
        {
            final int slots = (int)(50_000 * pair.scale());
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread producer = new Thread(() ->
            {
                try
                {
                    for (int k = 0; k < slots; k++)
                    {
                        await(sender::hasSpace, "space for slot " + k);
                        UnsafeApi.putLong(sender.slotAddress(), k);
                        sender.publish(8, k, 0, 0);
                    }
                }
                catch (final Throwable ex)
                {
                    failure.set(ex);
                }
            });
            producer.start();
            for (int k = 0; k < slots; k++)
            {
                await(receiver::hasData, "slot " + k);
                assertEquals(k, UnsafeApi.getLong(receiver.slotAddress()));
                assertEquals(k, receiver.seq());
                receiver.release();
            }
            producer.join();
            assertNull(failure.get());
        });
    }

    /** The body of a contract test, given the two ends of a pair. */
    @FunctionalInterface
    private interface EndsTest
    {
        void run(SendConnector sender, RecvConnector receiver) throws Exception;
    }

    /** Opens the pair, runs the body on its ends, and closes the pair whatever happens. */
    private static void run(final ConnectorPairs.Pair pair, final EndsTest body) throws Exception
    {
        final ConnectorPairs.Ends ends = pair.open().get();
        try (AutoCloseable close = ends.close())
        {
            body.run(ends.sender(), ends.receiver());
        }
    }

    /** Lengths from 0 up, not multiples of 4 (LL words) or 120 (LL128 lines), and some whole slots. */
    private static int length(final int slot, final int slotLength)
    {
        return slot % 97 == 0 ? slotLength : (slot * 37) % 1000;
    }

    private static byte pattern(final int slot, final int i)
    {
        return (byte)(slot * 31 + i * 7 + (i >>> 8));
    }

    /** Waits for the condition, spinning then yielding, failing after the network's deadline. */
    private static void await(final BooleanSupplier condition, final String what)
    {
        if (!eventually(condition, ConnectorPairs.NET_TIMEOUT_MS))
        {
            fail("no " + what + " within " + ConnectorPairs.NET_TIMEOUT_MS + " ms");
        }
    }

    private static boolean eventually(final BooleanSupplier condition, final long timeoutMs)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (int spins = 0; !condition.getAsBoolean(); spins++)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            if (spins > 100)
            {
                Thread.yield();
            }
        }
        return true;
    }
}
