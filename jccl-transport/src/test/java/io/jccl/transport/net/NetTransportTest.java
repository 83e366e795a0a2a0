package io.jccl.transport.net;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Protocol;
import io.jccl.transport.RecvConnector;
import io.jccl.transport.SendConnector;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The network transport over loopback, in one process: slots of every length cross intact with their headers, in
 * order, on several channels at once, through fragmentation and credits, with a receiver that lags far behind.
 */
class NetTransportTest
{
    private static final long TIMEOUT_MS = 20_000;

    private static NetConfig loopback(final int mtu)
    {
        return new NetConfig("127.0.0.1", mtu, 1 << 20, 1 << 20, TIMEOUT_MS, null);
    }

    @ParameterizedTest
    @EnumSource(Protocol.class)
    void slotsCrossIntactInOrderOnEveryChannel(final Protocol protocol) throws Exception
    {
        try (NetTransport net = NetTransport.start(loopback(1408)))
        {
            net.connect(new String[] {net.endpoint(), net.endpoint()});
            final int channels = 3;
            final int slots = 40;
            final Thread[] senders = new Thread[channels];
            final AtomicReference<Throwable> error = new AtomicReference<>();
            for (int c = 0; c < channels; c++)
            {
                final SendConnector send = net.sender(0, 1, c, protocol);
                final int channel = c;
                senders[c] = new Thread(() -> sendAll(send, channel, slots, error));
                senders[c].start();
            }
            // the receiver starts late: the sender's ring and the receiver's credits hold everything meanwhile
            Thread.sleep(200);
            for (int c = 0; c < channels; c++)
            {
                final RecvConnector recv = net.receiver(0, 1, c, protocol);
                final Random lengths = new Random(c);
                for (int s = 0; s < slots; s++)
                {
                    awaitData(recv);
                    final int length = length(lengths, io.jccl.transport.ProtocolDescriptor.payloadLength(protocol));
                    assertEquals(length, recv.dataLength(), "length of slot " + s + " on channel " + c);
                    assertEquals(1000L * c + s, recv.seq());
                    assertEquals(7L * s, recv.shape());
                    assertEquals(c, recv.plan());
                    for (int i = 0; i < length; i++)
                    {
                        if (UnsafeApi.getByte(recv.slotAddress() + i) != pattern(c, s, i))
                        {
                            throw new AssertionError("byte " + i + " of slot " + s + " on channel " + c);
                        }
                    }
                    recv.release();
                }
            }
            for (final Thread t : senders)
            {
                t.join(TIMEOUT_MS);
            }
            assertNull(error.get());
            assertTrue(net.describe().contains("received"), net.describe());
        }
    }

    private static void sendAll(final SendConnector send, final int channel, final int slots,
        final AtomicReference<Throwable> error)
    {
        try
        {
            final Random lengths = new Random(channel);
            for (int s = 0; s < slots; s++)
            {
                final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
                while (!send.hasSpace())
                {
                    if (System.nanoTime() > deadline)
                    {
                        throw new AssertionError("no space for slot " + s);
                    }
                    Thread.yield();
                }
                final int length = length(lengths, send.slotLength());
                for (int i = 0; i < length; i++)
                {
                    UnsafeApi.putByte(send.slotAddress() + i, pattern(channel, s, i));
                }
                send.publish(length, 1000L * channel + s, 7L * s, channel);
            }
        }
        catch (final Throwable t)
        {
            error.set(t);
        }
    }

    /** Lengths 0, 1, the whole slot, and random ones in between. */
    private static int length(final Random random, final int slotLength)
    {
        final int pick = random.nextInt(8);
        return pick == 0 ? 0 : pick == 1 ? 1 : pick == 2 ? slotLength : random.nextInt(slotLength + 1);
    }

    private static byte pattern(final int channel, final int slot, final int i)
    {
        return (byte)(i * 31 + slot * 7 + channel);
    }

    private static void awaitData(final RecvConnector recv)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        while (!recv.hasData())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("no data from rank " + recv.peer());
            }
            Thread.yield();
        }
    }

    @Test
    void closingDeletesTheEmbeddedDriversDirectory()
    {
        final NetTransport net = NetTransport.start(loopback(8192));
        final String endpoint = net.endpoint();
        assertTrue(endpoint.startsWith("127.0.0.1:"), endpoint);
        final Path dir = Path.of(NetRuntime.currentDirectory());
        assertTrue(Files.isDirectory(dir), dir.toString());
        net.close();
        assertFalse(Files.exists(dir), dir + " survived close");
    }

    @Test
    void directoriesOfDeadProcessesAreSwept() throws Exception
    {
        final Path base = Files.createTempDirectory("jccl-sweep");
        final Path dead = Files.createDirectories(base.resolve(NetRuntime.DIR_PREFIX + Integer.MAX_VALUE + "-ab"));
        Files.writeString(dead.resolve("cnc.dat"), "x");
        final Path alive = Files.createDirectories(base.resolve(NetRuntime.DIR_PREFIX +
            ProcessHandle.current().pid() + "-cd"));
        NetRuntime.sweepDeadDrivers(base);
        assertFalse(Files.exists(dead));
        assertTrue(Files.exists(alive));
        Files.delete(alive);
        Files.delete(base);
    }

    @Test
    void badSettingsNameTheVariable()
    {
        final JcclInvalidArgumentException mtu = assertThrows(JcclInvalidArgumentException.class,
            () -> NetConfig.fromEnvironment(Map.of(NetConfig.MTU_ENV, "1000"), "127.0.0.1", 1000));
        assertTrue(mtu.getMessage().contains("JCCL_NET_MTU=1000"), mtu.getMessage());
        final JcclInvalidArgumentException term = assertThrows(JcclInvalidArgumentException.class,
            () -> NetConfig.fromEnvironment(Map.of(NetConfig.TERM_LENGTH_ENV, "3M"), "127.0.0.1", 1000));
        assertTrue(term.getMessage().contains("JCCL_NET_TERM_LENGTH"), term.getMessage());
        final JcclInvalidArgumentException ifname = assertThrows(JcclInvalidArgumentException.class,
            () -> NetConfig.fromEnvironment(Map.of(NetConfig.SOCKET_IFNAME_ENV, "nosuch0"), "127.0.0.1", 1000));
        assertTrue(ifname.getMessage().contains("JCCL_SOCKET_IFNAME=nosuch0") &&
            ifname.getMessage().contains("lo"), ifname.getMessage());
    }

    @Test
    void defaultsFollowTheInterface()
    {
        final NetConfig config = NetConfig.fromEnvironment(Map.of(), "127.0.0.1", 1000);
        assertEquals("127.0.0.1", config.bindAddress());
        assertEquals(32768, config.mtu(), "loopback's MTU is 65536, capped");
        final NetConfig lo = NetConfig.fromEnvironment(Map.of(NetConfig.SOCKET_IFNAME_ENV, "l*",
            NetConfig.MTU_ENV, "8960", NetConfig.TERM_LENGTH_ENV, "8M"), "127.0.0.1", 1000);
        assertEquals(8960, lo.mtu());
        assertEquals(8 << 20, lo.termLength());
    }
}
