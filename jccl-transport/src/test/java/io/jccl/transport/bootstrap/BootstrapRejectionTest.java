package io.jccl.transport.bootstrap;

import io.jccl.JcclRemoteException;
import io.jccl.JcclTimeoutException;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.jccl.transport.bootstrap.BootstrapTestSupport.TIMEOUT_MS;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.UPPER_BOUND_S;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.closeAll;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.get;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.info;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.newId;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.runAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Rank 0 drops whatever is not a rank of its communicator, and the real ranks connect all the same. */
class BootstrapRejectionTest
{
    @Test
    @Timeout(120)
    void shouldDropStrangersWhileTheRealRanksConnect() throws Exception
    {
        final int size = 3;
        final UniqueId id = newId();
        final ExecutorService executor = Executors.newFixedThreadPool(size);
        final Bootstrap[] ranks = new Bootstrap[size];
        final List<Socket> strangers = new ArrayList<>();
        try
        {
            final Future<Bootstrap> root = executor.submit(() -> Bootstrap.connect(id, 0, size, info(0), TIMEOUT_MS));

            final Socket silent = connectRaw(id);
            strangers.add(silent);
            final Socket garbage = connectRaw(id);
            strangers.add(garbage);
            final byte[] noise = new byte[256];
            new Random(42).nextBytes(noise);
            noise[0] = 0x00;
            garbage.getOutputStream().write(noise);
            final Socket wrongSecret = connectRaw(id);
            strangers.add(wrongSecret);
            wrongSecret.getOutputStream().write(hello(UniqueId.create("127.0.0.1", id.port()).secret(), 1, size));
            final Socket outOfRange = connectRaw(id);
            strangers.add(outOfRange);
            outOfRange.getOutputStream().write(hello(id.secret(), 7, size));

            assertDroppedWithoutAWord(garbage);
            assertDroppedWithoutAWord(wrongSecret);
            assertTrue(readReject(outOfRange).contains("rank 7 is outside 1..2"));
            // the silent one is dropped after a second, while rank 0 still waits for the real ranks
            assertDroppedWithoutAWord(silent);

            final List<Future<Bootstrap>> peers = new ArrayList<>();
            for (int r = 1; r < size; r++)
            {
                final int rank = r;
                peers.add(executor.submit(() -> Bootstrap.connect(id, rank, size, info(rank), TIMEOUT_MS)));
            }
            ranks[0] = get(root);
            for (int r = 1; r < size; r++)
            {
                ranks[r] = get(peers.get(r - 1));
            }
            for (final Bootstrap rank : ranks)
            {
                assertEquals(List.of(info(0), info(1), info(2)), rank.peers());
            }
        }
        finally
        {
            for (final Socket stranger : strangers)
            {
                stranger.close();
            }
            executor.shutdownNow();
            closeAll(ranks);
        }
    }

    /**
     * A hello whose peer info stops inside the host name (its announced length matches what is sent) is refused
     * with a reason that names the field and the bytes, not {@code malformed peer info: null}.
     */
    @Test
    @Timeout(120)
    void shouldNameTheFieldAndTheBytesWhenAPeerInfoIsTruncated() throws Exception
    {
        final int size = 2;
        final UniqueId id = newId();
        final ExecutorService executor = Executors.newFixedThreadPool(size);
        final Bootstrap[] ranks = new Bootstrap[size];
        try
        {
            final Future<Bootstrap> root = executor.submit(() -> Bootstrap.connect(id, 0, size, info(0), TIMEOUT_MS));
            try (Socket truncated = connectRaw(id))
            {
                final ByteArrayOutputStream info = new ByteArrayOutputStream();
                new PeerInfo(1, "truncated-host", "boot", 7, new byte[0]).writeTo(new DataOutputStream(info));
                // rank (4 bytes), the host name's length (2) and 4 of its 14 bytes
                truncated.getOutputStream().write(hello(id.secret(), 1, size, Arrays.copyOf(info.toByteArray(), 10)));
                final String reason = readReject(truncated);
                assertTrue(reason.contains("hostname") && reason.contains("14 bytes") && reason.contains("byte 6") &&
                    reason.contains("4 follow"), reason);
            }
            final Future<Bootstrap> one = executor.submit(() -> Bootstrap.connect(id, 1, size, info(1), TIMEOUT_MS));
            ranks[0] = get(root);
            ranks[1] = get(one);
            assertEquals(List.of(info(0), info(1)), ranks[1].peers());
        }
        finally
        {
            executor.shutdownNow();
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldRefuseADuplicateRankAndKeepTheFirst() throws Exception
    {
        final int size = 3;
        final UniqueId id = newId();
        final CountDownLatch rankOneIn = new CountDownLatch(1);
        final BootstrapListener listener = new BootstrapListener()
        {
            @Override
            public void accepted(final int rank)
            {
                if (rank == 1)
                {
                    rankOneIn.countDown();
                }
            }
        };
        final ExecutorService executor = Executors.newFixedThreadPool(size);
        final Bootstrap[] ranks = new Bootstrap[size];
        try
        {
            final Future<Bootstrap> root =
                executor.submit(() -> Bootstrap.connect(id, 0, size, info(0), TIMEOUT_MS, listener));
            final Future<Bootstrap> one = executor.submit(() -> Bootstrap.connect(id, 1, size, info(1), TIMEOUT_MS));
            assertTrue(rankOneIn.await(UPPER_BOUND_S, TimeUnit.SECONDS));

            final PeerInfo imposter = PeerInfo.local(1, "imposter".getBytes(StandardCharsets.UTF_8));
            final JcclRemoteException duplicate = assertThrows(JcclRemoteException.class,
                () -> Bootstrap.connect(id, 1, size, imposter, TIMEOUT_MS));
            assertTrue(duplicate.getMessage().contains("refused it: rank 1 is already connected"),
                duplicate.getMessage());
            final JcclRemoteException otherSize = assertThrows(JcclRemoteException.class,
                () -> Bootstrap.connect(id, 2, size + 1, info(2), TIMEOUT_MS));
            assertTrue(otherSize.getMessage().contains("has size 4, rank 0 has size 3"), otherSize.getMessage());

            final Future<Bootstrap> two = executor.submit(() -> Bootstrap.connect(id, 2, size, info(2), TIMEOUT_MS));
            ranks[0] = get(root);
            ranks[1] = get(one);
            ranks[2] = get(two);
            for (final Bootstrap rank : ranks)
            {
                assertArrayEquals("endpoint-1".getBytes(StandardCharsets.UTF_8), rank.peers().get(1).endpoint());
            }
        }
        finally
        {
            executor.shutdownNow();
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldTimeOutNamingTheSecretWhenARankHasTheWrongOne() throws Exception
    {
        final UniqueId id = newId();
        final UniqueId forged = UniqueId.create(id.host(), id.port());
        final List<Exception> failures = runAll(2, (r) ->
        {
            try
            {
                Bootstrap.connect(r == 0 ? id : forged, r, 2, info(r), 1500).close();
                return null;
            }
            catch (final RuntimeException ex)
            {
                return ex;
            }
        });
        assertInstanceOf(JcclTimeoutException.class, failures.get(0));
        assertTrue(failures.get(0).getMessage().contains("waiting for ranks [1] of 2"), failures.get(0).getMessage());
        assertInstanceOf(JcclTimeoutException.class, failures.get(1));
        assertTrue(failures.get(1).getMessage().contains("wrong secret"), failures.get(1).getMessage());
    }

    /** Connects once rank 0 listens. */
    private static Socket connectRaw(final UniqueId id) throws IOException, InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(UPPER_BOUND_S);
        while (true)
        {
            final Socket socket = new Socket();
            try
            {
                socket.connect(new InetSocketAddress(id.host(), id.port()));
                socket.setSoTimeout((int)TimeUnit.SECONDS.toMillis(UPPER_BOUND_S));
                return socket;
            }
            catch (final ConnectException ex)
            {
                socket.close();
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw ex;
                }
                Thread.sleep(10);
            }
        }
    }

    /** A well-formed hello. */
    private static byte[] hello(final byte[] secret, final int rank, final int size) throws IOException
    {
        final ByteArrayOutputStream info = new ByteArrayOutputStream();
        PeerInfo.local(rank, new byte[0]).writeTo(new DataOutputStream(info));
        return hello(secret, rank, size, info.toByteArray());
    }

    /** A hello carrying the given peer info bytes, announced at their length. */
    private static byte[] hello(final byte[] secret, final int rank, final int size, final byte[] info)
        throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(BootstrapProtocol.MAGIC);
        out.writeInt(BootstrapProtocol.VERSION);
        out.write(secret);
        out.writeInt(rank);
        out.writeInt(size);
        out.writeInt(info.length);
        out.write(info);
        return bytes.toByteArray();
    }

    /** The socket ends (closed or reset) before rank 0 sends a single byte. */
    private static void assertDroppedWithoutAWord(final Socket socket) throws IOException
    {
        final InputStream in = socket.getInputStream();
        try
        {
            final int read = in.read();
            assertEquals(-1, read, "rank 0 answered a stranger");
        }
        catch (final SocketException ex)
        {
            assertTrue(ex.getMessage().contains("reset"), ex.toString());
        }
    }

    /** @return the reason of the REJECT frame rank 0 sends before it closes. */
    private static String readReject(final Socket socket) throws IOException
    {
        final DataInputStream in = new DataInputStream(socket.getInputStream());
        final int length = in.readInt();
        assertEquals(BootstrapProtocol.REJECT, in.readByte());
        final byte[] payload = new byte[length - 1];
        in.readFully(payload);
        try
        {
            in.readByte();
            fail("rank 0 kept the connection open after REJECT");
        }
        catch (final EOFException | SocketException ex)
        {
            // closed, as it should be
        }
        return BootstrapProtocol.decode(payload).readUTF();
    }
}
