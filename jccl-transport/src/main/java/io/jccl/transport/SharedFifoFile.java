package io.jccl.transport;

import io.jccl.JcclSystemException;
import io.jccl.JcclTimeoutException;
import io.jccl.Protocol;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A FIFO between two processes of one host: a file under {@code /dev/shm} (mode 0600) that both map. Whichever end
 * comes first creates it at its full length (the kernel zeroes it); the other maps it. Each end then counts itself in
 * the FIFO's attach word, and the second one unlinks the file, so once both ends are attached nothing is left by
 * name, whatever happens to the processes later. A direct FIFO ({@link #attachDirect}) carries references to the
 * sender's shared buffers where its data lies in one, and stages the rest.
 * <p>
 * Until the second end attaches, the file needs its name: that is how the peer finds it (a JVM cannot pass a file
 * descriptor to another process), and that wait lasts as long as the peer takes to make its first call on the
 * connection, possibly forever when it dies. So the name cannot be what tells a stale file, and the file records its
 * creator instead: the creator makes it under a name of its own ({@value #TEMP_PREFIX}{@code <pid namespace>-<pid>-
 * <n>}), writes its pid and pid namespace into the header ({@link FifoDescriptor#OWNER_PID_OFFSET}), and only then
 * links it to the shared name, which fails if the peer was first. A file under the shared name therefore always names
 * a creator, and {@link StaleSharedFiles} removes it once that process is gone, whatever phase it died in; a temporary
 * name carries its pid as a buffer's does. A live creator's file is never judged stale, so a peer about to attach
 * never loses it; a peer still to attach to the file of a dead creator only ever waited on a communicator that is
 * broken.
 */
public final class SharedFifoFile
{
    /** The start of the name under which a creator prepares a FIFO file before it links it to the shared name. */
    public static final String TEMP_PREFIX = "jccl-fifo-";

    /**
     * The names {@link SharedFileTransport} gives FIFO files: {@code jccl-<communicator>-<from>-<to>-<channel>-
     * <protocol>-<kind>}.
     */
    static final Pattern NAME = Pattern.compile("jccl-[0-9a-f]{1,64}-\\d{1,10}-\\d{1,10}-\\d{1,10}-[a-z0-9]{1,16}-" +
        "[a-z0-9]{1,16}");

    private static final AtomicLong NEXT_TEMP = new AtomicLong();

    private SharedFifoFile()
    {
    }

    /**
     * @param directory where the file lives ({@code /dev/shm}).
     * @param name      the file's name, the same in both processes and unique to the communicator and connection.
     * @param protocol  the framing.
     * @param from      sending rank.
     * @param to        receiving rank.
     * @param timeoutMs how long to wait for the peer to create the file at its full length.
     * @return the FIFO, staging every slot; this process uses one of its ends.
     * @throws JcclTimeoutException if the peer's file does not reach its length in time.
     * @throws JcclSystemException if the file cannot be created or mapped.
     */
    public static MemoryFifo attach(final Path directory, final String name, final Protocol protocol,
        final int from, final int to, final long timeoutMs)
    {
        return attach(directory, name, protocol, from, to, timeoutMs, null, null);
    }

    /**
     * A direct FIFO (P2P with SIMPLE): a sender in this process publishes data that lies in {@code ownBuffers} in
     * place, a receiver here reads the sender's buffers through {@code peerBuffers}; other data is staged.
     *
     * @param directory   where the file lives ({@code /dev/shm}).
     * @param name        the file's name, the same in both processes and unique to the communicator and connection.
     * @param from        sending rank.
     * @param to          receiving rank.
     * @param timeoutMs   how long to wait for the peer to create the file at its full length.
     * @param ownBuffers  this process's shared allocator.
     * @param peerBuffers this process's mappings of peers' buffers.
     * @return the FIFO; this process uses one of its ends.
     * @throws JcclTimeoutException if the peer's file does not reach its length in time.
     * @throws JcclSystemException if the file cannot be created or mapped.
     */
    public static MemoryFifo attachDirect(final Path directory, final String name, final int from, final int to,
        final long timeoutMs, final SharedBuffers ownBuffers, final PeerBuffers peerBuffers)
    {
        return attach(directory, name, Protocol.SIMPLE, from, to, timeoutMs, ownBuffers, peerBuffers);
    }

    private static MemoryFifo attach(final Path directory, final String name, final Protocol protocol,
        final int from, final int to, final long timeoutMs, final SharedBuffers ownBuffers,
        final PeerBuffers peerBuffers)
    {
        final long length = MemoryFifo.totalLength(protocol);
        final Path file = directory.resolve(name);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try
        {
            final MappedByteBuffer mapped = map(file, length, deadline, from, to);
            final long address = BufferUtil.address(mapped);
            if (UnsafeApi.getAndAddLong(null, address + FifoDescriptor.ATTACH_OFFSET, 1) == 1)
            {
                Files.deleteIfExists(file);
            }
            return peerBuffers == null ? new MemoryFifo(address, a -> IoUtil.unmap(mapped), protocol, from, to) :
                new MemoryFifo(address, a -> IoUtil.unmap(mapped), ownBuffers, peerBuffers, from, to);
        }
        catch (final IOException ex)
        {
            throw new JcclSystemException("cannot map the shared FIFO " + file + " between ranks " + from + " and " +
                to + ": " + ex, ex);
        }
    }

    private static MappedByteBuffer map(final Path file, final long length, final long deadline, final int from,
        final int to) throws IOException
    {
        final MappedByteBuffer created = create(file, length);
        if (created != null)
        {
            return created;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            // a file linked by a creator has its full length; an empty one at the name is an earlier run's
            while (channel.size() < length)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new JcclTimeoutException("the shared FIFO " + file + " between ranks " + from +
                        " and " + to + " did not reach " + length + " bytes in time (its creator stalled)");
                }
                Thread.yield();
            }
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
    }

    /**
     * Makes the FIFO file under a name of this process's, records this process as its creator, and links it to
     * {@code file}.
     *
     * @return the file mapped at its full length, or null where another process linked its own first.
     */
    private static MappedByteBuffer create(final Path file, final long length) throws IOException
    {
        final Path temp = file.resolveSibling(TEMP_PREFIX + StaleSharedFiles.pidNamespace() + "-" +
            ProcessHandle.current().pid() + "-" + NEXT_TEMP.incrementAndGet());
        try (FileChannel channel = FileChannel.open(temp, EnumSet.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))))
        {
            // mapping past the end extends the file, zeroed
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
            final long address = BufferUtil.address(mapped);
            UnsafeApi.putLong(address + FifoDescriptor.OWNER_PID_OFFSET, ProcessHandle.current().pid());
            UnsafeApi.putLong(address + FifoDescriptor.OWNER_NAMESPACE_OFFSET, StaleSharedFiles.pidNamespace());
            try
            {
                Files.createLink(file, temp);
                return mapped;
            }
            catch (final FileAlreadyExistsException ex)
            {
                IoUtil.unmap(mapped);
                return null;
            }
        }
        finally
        {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * Reads who created a FIFO file, without mapping it.
     *
     * @param file a file named as {@link SharedFileTransport} names FIFO files.
     * @return the creator's pid and pid namespace, or null where the file is too short to hold them, names none (an
     *         earlier version's, or one another program made), or cannot be read.
     */
    static long[] creator(final Path file)
    {
        final ByteBuffer header = ByteBuffer.allocate(2 * Long.BYTES).order(ByteOrder.nativeOrder());
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            while (header.hasRemaining())
            {
                if (channel.read(header, FifoDescriptor.OWNER_PID_OFFSET + header.position()) < 0)
                {
                    return null;
                }
            }
        }
        catch (final IOException | SecurityException ex)
        {
            return null;
        }
        final long pid = header.getLong(0);
        return pid <= 0 ? null : new long[] {pid, header.getLong(Long.BYTES)};
    }
}
