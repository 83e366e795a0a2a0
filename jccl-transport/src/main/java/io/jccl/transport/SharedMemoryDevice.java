package io.jccl.transport;

import io.jccl.JcclSystemException;
import io.jccl.MemoryKind;
import io.jccl.kernels.Device;
import io.jccl.kernels.HostDevice;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Host shared memory: every allocation is a file under {@code /dev/shm} (mode 0600), mapped and unlinked at once,
 * so a crash leaves nothing behind (a kill in that moment leaves a {@code jccl-<pid>-<n>} file, which
 * {@link StaleSharedFiles} removes later). The SHM transport keeps its FIFOs here; between processes the peers map the
 * same file before it is unlinked, in one process the mapping alone is enough. Thread-safe.
 */
public final class SharedMemoryDevice implements Device
{
    /** The one instance. */
    public static final SharedMemoryDevice INSTANCE = new SharedMemoryDevice(defaultDirectory());

    private final Path directory;
    private final AtomicLong nextId = new AtomicLong();
    private final ConcurrentHashMap<Long, MappedByteBuffer> mappings = new ConcurrentHashMap<>();

    /** @param directory where the backing files are created and unlinked. */
    public SharedMemoryDevice(final Path directory)
    {
        this.directory = directory;
    }

    /** @return {@code /dev/shm} where it exists, else the JVM's temporary directory. */
    static Path defaultDirectory()
    {
        final Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** @return the directory of the backing files. */
    public Path directory()
    {
        return directory;
    }

    @Override
    public String name()
    {
        return "shm";
    }

    @Override
    public MemoryKind memoryKind()
    {
        return MemoryKind.HOST;
    }

    @Override
    public long allocate(final long length)
    {
        if (length < 0 || length > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("length=" + length + " is outside 0.." + Integer.MAX_VALUE);
        }
        final Path file = directory.resolve("jccl-" + ProcessHandle.current().pid() + "-" + nextId.incrementAndGet());
        try
        {
            // created and opened in one step: a sweep that took this file for a dead process's could not make the
            // open fail (StaleSharedFiles)
            try (FileChannel channel = FileChannel.open(file, java.util.EnumSet.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))))
            {
                final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, Math.max(1, length));
                final long address = BufferUtil.address(mapped);
                mappings.put(address, mapped);
                return address;
            }
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            throw new JcclSystemException("cannot map " + length + " bytes of shared memory at " + file + ": " + ex,
                ex);
        }
        finally
        {
            try
            {
                Files.deleteIfExists(file);
            }
            catch (final IOException ignored)
            {
                // the file was never created
            }
        }
    }

    @Override
    public void free(final long address)
    {
        final MappedByteBuffer mapped = address == 0 ? null : mappings.remove(address);
        if (mapped != null)
        {
            IoUtil.unmap(mapped);
        }
    }

    @Override
    public void copy(final long src, final long dst, final long length)
    {
        HostDevice.INSTANCE.copy(src, dst, length);
    }

    /** @return mappings currently held (for tests). */
    int liveMappings()
    {
        return mappings.size();
    }
}
