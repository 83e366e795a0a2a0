package io.jccl.transport;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.EnumSet;

/**
 * jccl's allocator of host memory that the ranks of other processes on this host read in place (NCCL's
 * {@code ncclMemAlloc}): every buffer is a file in {@code /dev/shm} (mode 0600) named
 * {@code jccl-mem-<pid namespace>-<pid>-<n>}, mapped here and kept by name while the buffer lives, so that a peer
 * that meets the buffer in a slot header ({@link FifoDescriptor#HEADER_DIRECT_SEGMENT}) maps it once by that name
 * ({@link PeerBuffers}). The name is unlinked when the buffer is freed and, for buffers still live, when the JVM
 * exits; a killed owner's files are removed by {@link StaleSharedFiles#sweep}, which the first allocation of every
 * process runs.
 * <p>
 * The allocator also answers which buffer an address lies in ({@link #find(long, long)}), without allocating and
 * without a lock: the executor asks once per call, a sender once per direct slot whose buffer changed.
 * Thread-safe.
 */
public final class SharedBuffers implements InPlaceReads
{
    /** The prefix of the names of buffer files. */
    public static final String NAME_PREFIX = "jccl-mem-";

    private static final Segment[] NONE = new Segment[0];
    private static final int PAGE = 4096;

    /** The process's allocator, in {@code /dev/shm} (else the JVM's temporary directory). */
    public static final SharedBuffers INSTANCE = new SharedBuffers(SharedMemoryDevice.defaultDirectory());

    private final Path directory;
    private final long pid = ProcessHandle.current().pid();
    private long nextNumber;
    private boolean swept;
    private Thread exitHook;
    /** Live buffers sorted by address; replaced, never changed, so that {@link #find} reads it without a lock. */
    private volatile Segment[] segments = NONE;

    /**
     * An allocator of its own (tests); the ranks of a communicator must use the directory of
     * {@link Connections}'s shared FIFOs, which is {@link #INSTANCE}'s.
     *
     * @param directory where buffer files are made.
     */
    public SharedBuffers(final Path directory)
    {
        this.directory = directory;
    }

    /** @return where buffer files are made. */
    public Path directory()
    {
        return directory;
    }

    /**
     * @param namespace the pid namespace of the buffer's owner ({@link StaleSharedFiles#pidNamespace()}).
     * @param id        the buffer's {@link Segment#id()}.
     * @return the buffer file's name.
     */
    public static String fileName(final long namespace, final long id)
    {
        return NAME_PREFIX + namespace + "-" + (id >>> 32) + "-" + (id & 0xFFFF_FFFFL);
    }

    /**
     * Allocates zeroed shared memory, page aligned.
     *
     * @param length bytes, 0 to {@code Integer.MAX_VALUE - 4096}.
     * @return the buffer.
     * @throws JcclInvalidArgumentException if the length is out of range.
     * @throws JcclSystemException if the file cannot be made or mapped (no space left in {@code /dev/shm}, say).
     */
    public Segment allocate(final long length)
    {
        if (length < 0 || length > Integer.MAX_VALUE - PAGE)
        {
            throw new JcclInvalidArgumentException("length=" + length + " is outside 0.." + (Integer.MAX_VALUE - PAGE));
        }
        final long mapLength = Math.max(PAGE, (length + PAGE - 1) & -PAGE);
        synchronized (this)
        {
            if (!swept)
            {
                swept = true;
                StaleSharedFiles.sweep(directory);
            }
            final long id = (pid << 32) | (++nextNumber & 0xFFFF_FFFFL);
            final Path file = directory.resolve(fileName(StaleSharedFiles.pidNamespace(), id));
            final MappedByteBuffer mapping;
            try (FileChannel channel = FileChannel.open(file, EnumSet.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))))
            {
                // mapping past the end extends the file, zeroed
                mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, mapLength);
            }
            catch (final IOException | UnsupportedOperationException ex)
            {
                deleteQuietly(file);
                throw new JcclSystemException("cannot map " + length + " bytes of shared memory at " + file + ": " +
                    ex, ex);
            }
            catch (final Error ex)
            {
                // a full /dev/shm shows as an InternalError when the mapping is first touched or even made
                deleteQuietly(file);
                throw ex;
            }
            final Segment segment = new Segment(id, BufferUtil.address(mapping), length, file, mapping);
            final Segment[] grown = Arrays.copyOf(segments, segments.length + 1);
            grown[grown.length - 1] = segment;
            Arrays.sort(grown, (a, b) -> Long.compare(a.address, b.address));
            segments = grown;
            if (exitHook == null)
            {
                exitHook = new Thread(this::unlinkAll, "jccl-shared-buffers-exit");
                Runtime.getRuntime().addShutdownHook(exitHook);
            }
            return segment;
        }
    }

    /**
     * Unlinks a buffer's file and unmaps it. Every call that used the buffer must have completed: its memory is
     * gone, and touching it afterwards crashes the JVM, as using memory after {@code ncclMemFree} would crash.
     *
     * @param segment a live buffer of this allocator.
     * @throws JcclInvalidArgumentException if the buffer is not live here (freed already, or another's).
     */
    public void free(final Segment segment)
    {
        synchronized (this)
        {
            final int at = Arrays.asList(segments).indexOf(segment);
            if (at < 0)
            {
                throw new JcclInvalidArgumentException(segment + " is not a live buffer of this allocator " +
                    "(freed already?)");
            }
            final Segment[] shrunk = new Segment[segments.length - 1];
            System.arraycopy(segments, 0, shrunk, 0, at);
            System.arraycopy(segments, at + 1, shrunk, at, shrunk.length - at);
            segments = shrunk;
            segment.live = false;
        }
        deleteQuietly(segment.file);
        IoUtil.unmap(segment.mapping);
    }

    /**
     * @param address the first byte of a range.
     * @param length  the range's bytes.
     * @return the live buffer that holds the whole range, or null; allocates nothing.
     */
    public Segment find(final long address, final long length)
    {
        final Segment[] live = segments;
        int low = 0;
        int high = live.length - 1;
        while (low <= high)
        {
            final int mid = (low + high) >>> 1;
            final Segment s = live[mid];
            if (address < s.address)
            {
                high = mid - 1;
            }
            else if (address - s.address >= Math.max(1, s.length))
            {
                low = mid + 1;
            }
            else
            {
                return length <= s.length - (address - s.address) ? s : null;
            }
        }
        return null;
    }

    /**
     * Between processes, the ranks of other processes read in place exactly the ranges that lie wholly in one live
     * buffer of this allocator.
     *
     * @param address the first byte of a range.
     * @param length  the range's bytes.
     * @return the id of the live buffer that holds the whole range, or 0; allocates nothing.
     */
    @Override
    public long region(final long address, final long length)
    {
        final Segment segment = find(address, length);
        return segment == null ? 0 : segment.id();
    }

    /**
     * {@link #find(long, long)} for a caller that asks about the same buffer call after call.
     *
     * @param hint    the segment the last lookup returned, or null.
     * @param address the first byte of a range.
     * @param length  the range's bytes.
     * @return the live buffer that holds the whole range, or null.
     */
    public Segment find(final Segment hint, final long address, final long length)
    {
        return hint != null && hint.holds(address, length) ? hint : find(address, length);
    }

    /** @return the buffers live now. */
    public int liveCount()
    {
        return segments.length;
    }

    /** At exit: the names go, so that nothing is left in {@code /dev/shm}; the kernel releases the memory. */
    private void unlinkAll()
    {
        for (final Segment segment : segments)
        {
            deleteQuietly(segment.file);
        }
    }

    private static void deleteQuietly(final Path file)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException ignored)
        {
            // a sweep of another process may have removed it (it judged this process gone: it is exiting)
        }
    }

    /**
     * One buffer of the allocator: its id (the owner's pid in the high 32 bits, a number the owner counts in the
     * low), where it is mapped in this process, its length and its file.
     */
    public static final class Segment
    {
        private final long id;
        private final long address;
        private final long length;
        private final Path file;
        private final MappedByteBuffer mapping;
        /** False once freed: a sender that remembers the segment must not take a new buffer at its address for it. */
        private volatile boolean live = true;

        Segment(final long id, final long address, final long length, final Path file,
            final MappedByteBuffer mapping)
        {
            this.id = id;
            this.address = address;
            this.length = length;
            this.file = file;
            this.mapping = mapping;
        }

        /** @return the id peers find the buffer's file by ({@link #fileName(long, long)}); never 0. */
        public long id()
        {
            return id;
        }

        /** @return the buffer's address in this process. */
        public long address()
        {
            return address;
        }

        /** @return the buffer's length in bytes, as asked. */
        public long length()
        {
            return length;
        }

        /** @return true until the buffer is freed. */
        public boolean isLive()
        {
            return live;
        }

        /**
         * @param address the first byte of a range.
         * @param length  the range's bytes.
         * @return true when the buffer is live and holds the whole range, as {@link SharedBuffers#find} decides (a
         *         freed buffer's address may be a new buffer's now).
         */
        public boolean holds(final long address, final long length)
        {
            final long offset = address - this.address;
            return live && offset >= 0 && offset < Math.max(1, this.length) && length <= this.length - offset;
        }

        /** @return the buffer's file. */
        public Path file()
        {
            return file;
        }

        /** @return the buffer's memory, {@link #length()} bytes from index 0, native byte order. */
        public ByteBuffer memory()
        {
            return mapping.duplicate().order(ByteOrder.nativeOrder());
        }

        @Override
        public String toString()
        {
            return "shared buffer " + file.getFileName() + " (" + length + " bytes)";
        }
    }
}
