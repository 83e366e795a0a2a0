package io.jccl.transport.net;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Protocol;
import io.jccl.transport.RecvConnector;
import io.jccl.transport.SendConnector;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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

    /** Every protocol on every wire. */
    static Stream<Arguments> protocolsAndWires()
    {
        return Arrays.stream(NetConfig.Wire.values()).flatMap(w -> Arrays.stream(Protocol.values())
            .map(p -> Arguments.of(p, w)));
    }

    @ParameterizedTest
    @MethodSource("protocolsAndWires")
    void slotsCrossIntactInOrderOnEveryChannel(final Protocol protocol, final NetConfig.Wire wire) throws Exception
    {
        try (NetTransport net = NetTransport.start(loopback(1408).withWire(wire)))
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

    @Test
    void theSocketBufferIsTheKernelsWholeLimit() throws IOException
    {
        final Path rmemMax = Path.of("/proc/sys/net/core/rmem_max");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(rmemMax), "no " + rmemMax + " on this system");
        final long kernel;
        try (java.io.BufferedReader in = Files.newBufferedReader(rmemMax))
        {
            kernel = Long.parseLong(in.readLine().trim());
        }
        final int expected = (int)Math.max(64 << 10, Math.min(16 << 20, kernel));
        final NetConfig config = NetConfig.fromEnvironment(Map.of(), "127.0.0.1", 1000);
        assertEquals(expected, config.socketBuffer(), "net.core.rmem_max is " + kernel);
        assertEquals(Math.min(NetConfig.DEFAULT_TERM_LENGTH / 2, expected), config.receiveWindow());
    }

    @Test
    void smallKernelSocketLimitsAreNamedWithTheSysctlThatLiftsThem()
    {
        assertNull(NetConfig.socketBufferAdvice(2 << 20, 4 << 20, 2 << 20), "both limits reach the window");
        final String advice = NetConfig.socketBufferAdvice(2 << 20, 212992, 4 << 20);
        assertNotNull(advice, "rmem_max is below the window");
        assertTrue(advice.contains("net.core.rmem_max=212992") && advice.contains("below the 2097152 bytes") &&
            advice.contains("sysctl -w net.core.rmem_max=2097152 net.core.wmem_max=2097152"), advice);
        assertNotNull(NetConfig.socketBufferAdvice(2 << 20, 4 << 20, 65536), "wmem_max alone is below the window");
    }

    @Test
    void theWireComesFromJcclNet()
    {
        assertEquals(NetConfig.Wire.TCP, NetConfig.fromEnvironment(Map.of(), "127.0.0.1", 1000).wire());
        assertEquals(NetConfig.Wire.AERON, NetConfig.fromEnvironment(Map.of(NetConfig.WIRE_ENV, "Aeron"),
            "127.0.0.1", 1000).wire());
        assertEquals(NetConfig.Wire.AERON, NetConfig.fromEnvironment(Map.of(NetConfig.AERON_DIR_ENV, "/dev/shm/x"),
            "127.0.0.1", 1000).wire(), "a named media driver means Aeron");
        assertEquals(NetConfig.Wire.TCP, NetConfig.fromEnvironment(Map.of(NetConfig.AERON_DIR_ENV, "/dev/shm/x",
            NetConfig.WIRE_ENV, "tcp"), "127.0.0.1", 1000).wire());
        final JcclInvalidArgumentException bad = assertThrows(JcclInvalidArgumentException.class,
            () -> NetConfig.fromEnvironment(Map.of(NetConfig.WIRE_ENV, "ib"), "127.0.0.1", 1000));
        assertTrue(bad.getMessage().contains("JCCL_NET=ib"), bad.getMessage());
    }

    @Test
    void tcpStartsNoAeron()
    {
        try (NetTransport net = NetTransport.start(loopback(8192).withWire(NetConfig.Wire.TCP)))
        {
            assertTrue(net.endpoint().startsWith("127.0.0.1:"), net.endpoint());
            assertNull(NetRuntime.currentDirectory(), "no media driver for TCP");
            assertTrue(net.describe().contains("tcp"), net.describe());
        }
    }

    /**
     * Garbage, a wrong secret and a silent connection on the TCP port are dropped: slots still cross intact, and
     * the transport reports no lost peer.
     */
    @Test
    void strangersOnTheTcpPortAreDroppedWhileSlotsStillCross() throws Exception
    {
        final byte[] secret = secret(5);
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        try (NetTransport net = NetTransport.start(loopback(8192).withWire(NetConfig.Wire.TCP), secret);
            Socket garbage = connect(net.endpoint());
            Socket wrongSecret = connect(net.endpoint());
            Socket silent = connect(net.endpoint()))
        {
            net.onFailure(failures::add);
            assertTrue(silent.isConnected(), "a connection that never says hello");
            final byte[] noise = new byte[100_000];
            new Random(6).nextBytes(noise);
            garbage.getOutputStream().write(noise);
            final byte[] wrong = secret.clone();
            wrong[3] ^= 1;
            wrongSecret.getOutputStream().write(hello(wrong, "127.0.0.1:1"));
            net.connect(new String[] {net.endpoint(), net.endpoint()});
            final SendConnector send = net.sender(0, 1, 0, Protocol.SIMPLE);
            final RecvConnector recv = net.receiver(0, 1, 0, Protocol.SIMPLE);
            final AtomicReference<Throwable> error = new AtomicReference<>();
            final Thread sender = new Thread(() -> sendAll(send, 0, 30, error));
            sender.start();
            final Random lengths = new Random(0);
            for (int s = 0; s < 30; s++)
            {
                awaitData(recv);
                assertEquals(length(lengths, send.slotLength()), recv.dataLength(), "slot " + s);
                for (int i = 0; i < recv.dataLength(); i++)
                {
                    assertEquals(pattern(0, s, i), UnsafeApi.getByte(recv.slotAddress() + i));
                }
                recv.release();
            }
            sender.join(TIMEOUT_MS);
            assertNull(error.get());
            assertTrue(failures.isEmpty(), failures.toString());
        }
    }

    /** A peer whose connection ends without its goodbye (its process died) is a lost peer, named by endpoint. */
    @Test
    void aTcpPeerThatVanishesIsReportedLost() throws Exception
    {
        final byte[] secret = secret(7);
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        try (NetTransport net = NetTransport.start(loopback(8192).withWire(NetConfig.Wire.TCP), secret))
        {
            net.onFailure(failures::add);
            net.connect(new String[] {net.endpoint(), "127.0.0.1:9"});
            try (Socket peer = connect(net.endpoint()))
            {
                peer.getOutputStream().write(hello(secret, "127.0.0.1:9"));
                Thread.sleep(100);
            }
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
            while (failures.isEmpty() && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            assertEquals(1, failures.size(), failures.toString());
            final String message = failures.get(0).getMessage();
            assertTrue(message.contains("rank 1") && message.contains("without a goodbye"), message);
        }
    }

    /**
     * Over TCP with a short deadline: a link that is merely quiet stays alive on heartbeats, while a peer that said
     * hello and then fell silent (its host gone, no FIN) is reported lost once the deadline passes, and a stranger
     * that never says hello is dropped without a failure.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aSilentTcpPeerIsLostAfterTheDeadlineWhileAQuietLinkLivesOnHeartbeats() throws Exception
    {
        final byte[] secret = secret(8);
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final long timeoutMs = 800;
        try (NetTransport net = NetTransport.start(new NetConfig("127.0.0.1", 8192, 1 << 20, 1 << 20, timeoutMs,
            null, NetConfig.Wire.TCP), secret))
        {
            net.onFailure(failures::add);
            net.connect(new String[] {net.endpoint(), net.endpoint(), "127.0.0.1:9"});
            // a link to itself that carries one slot, then nothing for several deadlines
            final SendConnector send = net.sender(0, 1, 0, Protocol.SIMPLE);
            final RecvConnector recv = net.receiver(0, 1, 0, Protocol.SIMPLE);
            assertTrue(send.hasSpace());
            send.publish(0, 1, 2, 3);
            awaitData(recv);
            recv.release();
            try (Socket stranger = connect(net.endpoint()))
            {
                stranger.setSoTimeout((int)(5 * timeoutMs));
                Thread.sleep(3 * timeoutMs);
                assertTrue(failures.isEmpty(), "a quiet link and a stranger are no failure: " + failures);
                assertTrue(stranger.getInputStream().read() < 0, "the stranger was dropped");
            }
            try (Socket peer = connect(net.endpoint()))
            {
                peer.getOutputStream().write(hello(secret, "127.0.0.1:9"));
                final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10 * timeoutMs);
                while (failures.isEmpty() && System.nanoTime() < deadline)
                {
                    Thread.sleep(10);
                }
                assertEquals(1, failures.size(), failures.toString());
                final String message = failures.get(0).getMessage();
                assertTrue(message.contains("rank 2") && message.contains("no data or heartbeat for 800 ms"),
                    message);
            }
        }
    }

    /** @return a communicator's 16-byte secret, the same for the same seed. */
    private static byte[] secret(final long seed)
    {
        final byte[] secret = new byte[16];
        new Random(seed).nextBytes(secret);
        return secret;
    }

    private static Socket connect(final String endpoint) throws IOException
    {
        final int colon = endpoint.lastIndexOf(':');
        return new Socket(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1)));
    }

    private static byte[] hello(final byte[] secret, final String endpoint)
    {
        final byte[] name = endpoint.getBytes(StandardCharsets.US_ASCII);
        final ByteBuffer b = ByteBuffer.allocate(22 + name.length).order(ByteOrder.nativeOrder());
        b.putInt(TcpCarrier.MAGIC).put(secret).putShort((short)name.length).put(name);
        return b.array();
    }
}
