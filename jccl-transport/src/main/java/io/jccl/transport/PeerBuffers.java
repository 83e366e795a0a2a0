package io.jccl.transport;

import io.jccl.JcclSystemException;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The buffers of peer processes that this process's receivers read in place: each mapped read-only the first time
 * a direct slot names it ({@link SharedBuffers}' file name from the slot header), then kept until {@link #close()}.
 * When a new buffer of a peer process is mapped, the mappings of that process's buffers whose files are gone (the
 * peer freed them, so no call reads them any more) are unmapped, so that a peer that allocates and frees over and
 * over does not pin its freed memory here. One per {@link Connections}; receivers keep the last mappings
 * they used, so this is asked only when a slot names another buffer. Thread-safe.
 */
public final class PeerBuffers implements AutoCloseable
{
    private final Path directory;
    private final Map<Key, Mapping> mappings = new HashMap<>();
    private boolean closed;

    /** @param directory where peers' buffer files live ({@code /dev/shm}). */
    public PeerBuffers(final Path directory)
    {
        this.directory = directory;
    }

    /**
     * @param namespace the owner's pid namespace, from the slot header.
     * @param id        the buffer's id, from the slot header.
     * @return the buffer mapped in this process, mapping it on first use.
     * @throws JcclSystemException if the buffer's file is missing (its owner freed it while a call used it, or
     *                             exited) or cannot be mapped.
     */
    public synchronized Mapping map(final long namespace, final long id)
    {
        if (closed)
        {
            throw new JcclSystemException("the connections are closed; no peer buffer can be mapped");
        }
        final Key key = new Key(namespace, id);
        final Mapping known = mappings.get(key);
        if (known != null)
        {
            return known;
        }
        final Path file = directory.resolve(SharedBuffers.fileName(namespace, id));
        final Mapping mapping;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
            mapping = new Mapping(namespace, id, BufferUtil.address(buffer), buffer.capacity(), buffer);
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            throw new JcclSystemException("cannot map the peer buffer " + file + " (process " + (id >>> 32) +
                "): " + ex + "; a buffer must stay allocated until every call that uses it has completed", ex);
        }
        dropFreed(namespace, id >>> 32);
        mappings.put(key, mapping);
        return mapping;
    }

    /** Unmaps the buffers of one peer process whose files are gone. */
    private void dropFreed(final long namespace, final long pid)
    {
        for (final Iterator<Mapping> it = mappings.values().iterator(); it.hasNext(); )
        {
            final Mapping m = it.next();
            if (m.namespace == namespace && m.id >>> 32 == pid &&
                !Files.exists(directory.resolve(SharedBuffers.fileName(namespace, m.id))))
            {
                it.remove();
                IoUtil.unmap(m.buffer);
            }
        }
    }

    /** @return the peer buffers mapped now (for tests). */
    public synchronized int mappedCount()
    {
        return mappings.size();
    }

    /** Unmaps every peer buffer; no receiver may read one afterwards. */
    @Override
    public synchronized void close()
    {
        closed = true;
        mappings.values().forEach(m -> IoUtil.unmap(m.buffer));
        mappings.clear();
    }

    private record Key(long namespace, long id)
    {
    }

    /** A peer's buffer mapped in this process. */
    public static final class Mapping
    {
        final long namespace;
        final long id;
        final long address;
        final long length;
        private final MappedByteBuffer buffer;

        Mapping(final long namespace, final long id, final long address, final long length,
            final MappedByteBuffer buffer)
        {
            this.namespace = namespace;
            this.id = id;
            this.address = address;
            this.length = length;
            this.buffer = buffer;
        }

        /** @return where the buffer is mapped in this process. */
        public long address()
        {
            return address;
        }

        /** @return the bytes mapped (the buffer's length rounded up to a page). */
        public long length()
        {
            return length;
        }
    }
}
