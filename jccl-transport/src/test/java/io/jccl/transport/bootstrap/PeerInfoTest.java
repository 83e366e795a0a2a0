package io.jccl.transport.bootstrap;

import io.jccl.JcclInvalidArgumentException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PeerInfoTest
{
    @Test
    void shouldReadBackWhatItWroteWhenSerialised() throws IOException
    {
        final PeerInfo info = new PeerInfo(5, "node-7", "0b1c-boot", 4242, new byte[]{ 1, 2, 3 });
        final PeerInfo empty = new PeerInfo(0, "", "", 1, new byte[0]);
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        info.writeTo(out);
        empty.writeTo(out);
        final DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
        assertEquals(info, PeerInfo.readFrom(in));
        assertEquals(empty, PeerInfo.readFrom(in));
        assertEquals(0, in.available());
        assertEquals(info.hashCode(), new PeerInfo(5, "node-7", "0b1c-boot", 4242, new byte[]{ 1, 2, 3 }).hashCode());
    }

    @Test
    void shouldShareAHostOnlyWhenNameAndBootIdAgree()
    {
        final PeerInfo a = new PeerInfo(0, "node", "boot-1", 10, new byte[0]);
        assertTrue(a.sameHost(new PeerInfo(1, "node", "boot-1", 11, new byte[]{ 9 })));
        assertFalse(a.sameHost(new PeerInfo(1, "node", "boot-2", 11, new byte[0])));
        assertFalse(a.sameHost(new PeerInfo(1, "other", "boot-1", 11, new byte[0])));
    }

    @Test
    void shouldDescribeThisProcessWhenLocal() throws IOException
    {
        final PeerInfo info = PeerInfo.local(3, "shm-name".getBytes(StandardCharsets.UTF_8));
        assertEquals(3, info.rank());
        assertEquals(ProcessHandle.current().pid(), info.pid());
        assertFalse(info.hostname().isEmpty());
        final Path bootId = Path.of("/proc/sys/kernel/random/boot_id");
        assertEquals(Files.isReadable(bootId) ? Files.readString(bootId).trim() : "", info.bootId());
        assertArrayEquals("shm-name".getBytes(StandardCharsets.UTF_8), info.endpoint());
        assertTrue(info.sameHost(PeerInfo.local(4, new byte[0])));
    }

    @Test
    void shouldCopyTheEndpointInAndOut()
    {
        final byte[] endpoint = { 1, 2 };
        final PeerInfo info = new PeerInfo(0, "h", "b", 1, endpoint);
        endpoint[0] = 9;
        info.endpoint()[1] = 9;
        assertArrayEquals(new byte[]{ 1, 2 }, info.endpoint());
        assertNotEquals(info, new PeerInfo(0, "h", "b", 1, new byte[]{ 1, 3 }));
    }

    @Test
    void shouldRejectBadComponentsNamingThem()
    {
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new PeerInfo(-1, "h", "b", 1, new byte[0])).getMessage().contains("rank=-1"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new PeerInfo(0, null, "b", 1, new byte[0])).getMessage().contains("hostname"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new PeerInfo(0, "h", "b".repeat(256), 1, new byte[0])).getMessage().contains("bootId"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> new PeerInfo(0, "h", "b", 1, new byte[PeerInfo.MAX_ENDPOINT_LENGTH + 1])).getMessage()
            .contains("endpoint"));
    }

    @Test
    void shouldNameTheFieldAndTheBytesWhenTheInputEndsEarly() throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new PeerInfo(3, "node", "boot-id", 99, new byte[]{ 1, 2, 3 }).writeTo(new DataOutputStream(bytes));
        final byte[] whole = bytes.toByteArray();
        // rank 0..3, hostname 4..5 + 6..9, bootId 10..11 + 12..18, pid 19..26, endpoint length 27..30, endpoint 31..33
        final String[][] cuts = {
            {"0", "rank needs 4 bytes from byte 0, only 0 follow"},
            {"2", "rank needs 4 bytes from byte 0, only 2 follow"},
            {"5", "length of hostname needs 2 bytes from byte 4, only 1 follow"},
            {"8", "hostname needs 4 bytes from byte 6, only 2 follow"},
            {"15", "bootId needs 7 bytes from byte 12, only 3 follow"},
            {"20", "pid needs 8 bytes from byte 19, only 1 follow"},
            {"27", "endpoint length needs 4 bytes from byte 27, only 0 follow"},
            {"33", "endpoint needs 3 bytes from byte 31, only 2 follow"}};
        for (final String[] cut : cuts)
        {
            final byte[] truncated = java.util.Arrays.copyOf(whole, Integer.parseInt(cut[0]));
            final IOException ex = assertThrows(IOException.class,
                () -> PeerInfo.readFrom(new DataInputStream(new ByteArrayInputStream(truncated))));
            assertTrue(String.valueOf(ex.getMessage()).contains(cut[1]), cut[0] + " bytes: " + ex.getMessage());
        }
    }

    @Test
    void shouldRefuseAnEndpointLengthOutOfRangeWhenReading() throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0);
        out.writeUTF("h");
        out.writeUTF("b");
        out.writeLong(1);
        out.writeInt(-5);
        final IOException ex = assertThrows(IOException.class,
            () -> PeerInfo.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()))));
        assertTrue(ex.getMessage().contains("endpoint length -5"), ex.getMessage());
    }
}
