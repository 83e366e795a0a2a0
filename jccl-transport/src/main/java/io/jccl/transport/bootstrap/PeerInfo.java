package io.jccl.transport.bootstrap;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Settings;

import java.io.ByteArrayInputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.EOFException;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What one rank tells every other at rendezvous: where it runs and what its transports publish. Two ranks share a
 * host (and so may share memory) when both the host name and the kernel's boot id agree; the boot id tells apart
 * containers or clones that share a name. {@code JCCL_HOSTID} (as NCCL's {@code NCCL_HOSTID}) replaces the boot id
 * where the kernel's does not tell hosts apart: network namespaces or containers of one kernel that must not share
 * memory, such as the multi-host tests.
 *
 * @param rank     the rank, 0 or more.
 * @param hostname the host's name as the kernel reports it, at most {@link #MAX_NAME_LENGTH} characters.
 * @param bootId   the kernel's boot id ({@code /proc/sys/kernel/random/boot_id}), or {@code ""} where there is none;
 *                 at most {@link #MAX_NAME_LENGTH} characters.
 * @param pid      the process id.
 * @param endpoint opaque bytes a transport publishes (a shared-memory name, a channel); may be empty; at most
 *                 {@link #MAX_ENDPOINT_LENGTH} bytes. Copied in and out.
 */
public record PeerInfo(int rank, String hostname, String bootId, long pid, byte[] endpoint)
{
    /** The most characters of {@link #hostname()} and {@link #bootId()}. */
    public static final int MAX_NAME_LENGTH = 255;

    /** The most bytes of {@link #endpoint()}. */
    public static final int MAX_ENDPOINT_LENGTH = 64 * 1024;

    /** The most bytes {@link #writeTo(DataOutput)} writes: modified UTF-8 takes up to 3 bytes a character. */
    static final int MAX_ENCODED_LENGTH = 4 + 2 * (2 + 3 * MAX_NAME_LENGTH) + 8 + 4 + MAX_ENDPOINT_LENGTH;

    /** Variable that overrides the boot id, so ranks on one kernel count as on different hosts. */
    public static final String HOST_ID_ENV = Settings.HOSTID;
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");
    private static final Path HOSTNAME = Path.of("/proc/sys/kernel/hostname");

    /**
     * Validates and copies the components.
     *
     * @param rank     the rank, 0 or more.
     * @param hostname the host's name, not null, at most {@link #MAX_NAME_LENGTH} characters.
     * @param bootId   the kernel's boot id or {@code ""}, not null, at most {@link #MAX_NAME_LENGTH} characters.
     * @param pid      the process id.
     * @param endpoint what a transport publishes, not null, at most {@link #MAX_ENDPOINT_LENGTH} bytes; copied.
     * @throws JcclInvalidArgumentException naming the bad component.
     */
    public PeerInfo
    {
        if (rank < 0)
        {
            throw new JcclInvalidArgumentException("rank=" + rank + " is negative");
        }
        checkName("hostname", hostname);
        checkName("bootId", bootId);
        if (endpoint == null || endpoint.length > MAX_ENDPOINT_LENGTH)
        {
            throw new JcclInvalidArgumentException("endpoint is null or longer than " + MAX_ENDPOINT_LENGTH + " bytes");
        }
        endpoint = endpoint.clone();
    }

    /**
     * @param rank     this process's rank.
     * @param endpoint what this process's transports publish; may be empty.
     * @return this process's host name, boot id and pid with the given rank and endpoint.
     * @throws JcclInvalidArgumentException if the rank is negative or the endpoint null or too long.
     */
    public static PeerInfo local(final int rank, final byte[] endpoint)
    {
        return new PeerInfo(rank, localHostname(), localBootId(), ProcessHandle.current().pid(), endpoint);
    }

    /**
     * @param in where {@link #writeTo(DataOutput)} wrote a peer's info.
     * @return the info.
     * @throws IOException if the input ends early (naming the field it ends in, the bytes that field needs and the
     *                     bytes left), fails, or holds values out of range.
     */
    public static PeerInfo readFrom(final DataInput in) throws IOException
    {
        final FieldReader fields = new FieldReader(in);
        final int rank = ByteBuffer.wrap(fields.read("rank", Integer.BYTES)).getInt();
        final String hostname = fields.readUtf("hostname");
        final String bootId = fields.readUtf("bootId");
        final long pid = ByteBuffer.wrap(fields.read("pid", Long.BYTES)).getLong();
        final int endpointLength = ByteBuffer.wrap(fields.read("endpoint length", Integer.BYTES)).getInt();
        if (endpointLength < 0 || endpointLength > MAX_ENDPOINT_LENGTH)
        {
            throw new IOException("peer info: endpoint length " + endpointLength + " is outside 0.." +
                MAX_ENDPOINT_LENGTH);
        }
        final byte[] endpoint = fields.read("endpoint", endpointLength);
        try
        {
            return new PeerInfo(rank, hostname, bootId, pid, endpoint);
        }
        catch (final JcclInvalidArgumentException ex)
        {
            throw new IOException("peer info: " + ex.getMessage(), ex);
        }
    }

    /**
     * Writes rank, host name, boot id, pid and endpoint, in that order; {@link #readFrom(DataInput)} reads them back.
     *
     * @param out where to write.
     * @throws IOException if the output fails.
     */
    public void writeTo(final DataOutput out) throws IOException
    {
        out.writeInt(rank);
        out.writeUTF(hostname);
        out.writeUTF(bootId);
        out.writeLong(pid);
        out.writeInt(endpoint.length);
        out.write(endpoint);
    }

    /**
     * @param other another peer.
     * @return whether both run on the same host: the same host name and the same boot id.
     */
    public boolean sameHost(final PeerInfo other)
    {
        return hostname.equals(other.hostname) && bootId.equals(other.bootId);
    }

    /** @return a copy of the endpoint bytes. */
    @Override
    public byte[] endpoint()
    {
        return endpoint.clone();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof PeerInfo p && p.rank == rank && p.pid == pid && p.hostname.equals(hostname) &&
            p.bootId.equals(bootId) && Arrays.equals(p.endpoint, endpoint);
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * (31 * (31 * rank + hostname.hashCode()) + bootId.hashCode()) + Long.hashCode(pid)) +
            Arrays.hashCode(endpoint);
    }

    @Override
    public String toString()
    {
        return "PeerInfo[rank=" + rank + ", hostname=" + hostname + ", bootId=" + bootId + ", pid=" + pid +
            ", endpoint=" + HexFormat.of().formatHex(endpoint) + "]";
    }

    /** @return the host name from the kernel, else from the resolver, else {@code "localhost"}. */
    static String localHostname()
    {
        String name = readTrimmed(HOSTNAME);
        if (name.isEmpty())
        {
            try
            {
                name = InetAddress.getLocalHost().getHostName();
            }
            catch (final IOException ex)
            {
                name = "localhost";
            }
        }
        return name.length() > MAX_NAME_LENGTH ? name.substring(0, MAX_NAME_LENGTH) : name;
    }

    /** @return the kernel's boot id, or {@code ""} where the file is absent or unreadable. */
    static String localBootId()
    {
        final String hostId = Settings.value(HOST_ID_ENV);
        final String id = hostId != null && !hostId.isBlank() ? "hostid:" + hostId.trim() : readTrimmed(BOOT_ID);
        return id.length() > MAX_NAME_LENGTH ? id.substring(0, MAX_NAME_LENGTH) : id;
    }

    private static String readTrimmed(final Path file)
    {
        try
        {
            return Files.isReadable(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim() : "";
        }
        catch (final IOException ex)
        {
            return "";
        }
    }

    /**
     * Reads a peer info field by field, counting bytes, so that an input that ends early is reported by the field it
     * ends in ({@link DataInput}'s own {@link EOFException} carries no message).
     */
    private static final class FieldReader
    {
        private final DataInput in;
        /** Bytes read so far. */
        private int offset;

        FieldReader(final DataInput in)
        {
            this.in = in;
        }

        /** @return the next {@code length} bytes, the field {@code name}. */
        byte[] read(final String name, final int length) throws IOException
        {
            final byte[] bytes = new byte[length];
            for (int i = 0; i < length; i++)
            {
                try
                {
                    bytes[i] = in.readByte();
                }
                catch (final EOFException ex)
                {
                    throw new EOFException("peer info: its " + name + " needs " + length + " bytes from byte " +
                        offset + ", only " + i + " follow");
                }
            }
            offset += length;
            return bytes;
        }

        /** @return the next string, in {@link DataOutput#writeUTF}'s form (a 2-byte length, then modified UTF-8). */
        String readUtf(final String name) throws IOException
        {
            final byte[] length = read("length of " + name, 2);
            final byte[] text = read(name, ((length[0] & 0xFF) << 8) | (length[1] & 0xFF));
            final byte[] encoded = new byte[2 + text.length];
            encoded[0] = length[0];
            encoded[1] = length[1];
            System.arraycopy(text, 0, encoded, 2, text.length);
            try
            {
                return new DataInputStream(new ByteArrayInputStream(encoded)).readUTF();
            }
            catch (final UTFDataFormatException ex)
            {
                throw new IOException("peer info: its " + name + " is not modified UTF-8: " + ex.getMessage(), ex);
            }
        }
    }

    private static void checkName(final String name, final String value)
    {
        if (value == null || value.length() > MAX_NAME_LENGTH)
        {
            throw new JcclInvalidArgumentException(name + " is null or longer than " + MAX_NAME_LENGTH + " characters");
        }
    }
}
