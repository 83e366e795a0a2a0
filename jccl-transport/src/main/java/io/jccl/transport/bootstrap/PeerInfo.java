package io.jccl.transport.bootstrap;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Settings;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.net.InetAddress;
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
     * @throws IOException if the input ends early, fails, or holds values out of range.
     */
    public static PeerInfo readFrom(final DataInput in) throws IOException
    {
        final int rank = in.readInt();
        final String hostname = in.readUTF();
        final String bootId = in.readUTF();
        final long pid = in.readLong();
        final int endpointLength = in.readInt();
        if (endpointLength < 0 || endpointLength > MAX_ENDPOINT_LENGTH)
        {
            throw new IOException("peer info: endpoint length " + endpointLength + " is outside 0.." +
                MAX_ENDPOINT_LENGTH);
        }
        final byte[] endpoint = new byte[endpointLength];
        in.readFully(endpoint);
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

    private static void checkName(final String name, final String value)
    {
        if (value == null || value.length() > MAX_NAME_LENGTH)
        {
            throw new JcclInvalidArgumentException(name + " is null or longer than " + MAX_NAME_LENGTH + " characters");
        }
    }
}
