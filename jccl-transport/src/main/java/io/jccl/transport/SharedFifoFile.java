package io.jccl.transport;

import io.jccl.JcclSystemException;
import io.jccl.JcclTimeoutException;
import io.jccl.Protocol;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * A FIFO between two processes of one host: a file under {@code /dev/shm} (mode 0600) that both map. Whichever end
 * comes first creates it at its full length (the kernel zeroes it); the other waits for that length and maps it. Each
 * end then counts itself in the FIFO's attach word, and the second one unlinks the file, so once both ends are
 * attached nothing is left by name, whatever happens to the processes later. A direct FIFO ({@link #attachDirect})
 * carries references to the sender's shared buffers where its data lies in one, and stages the rest.
 */
public final class SharedFifoFile
{
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
        try (FileChannel channel = FileChannel.open(file, EnumSet.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))))
        {
            // mapping past the end extends the file, zeroed
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
        }
        catch (final FileAlreadyExistsException ex)
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
            {
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
    }
}
