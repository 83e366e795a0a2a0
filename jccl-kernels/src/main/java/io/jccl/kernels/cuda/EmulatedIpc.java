package io.jccl.kernels.cuda;

import io.jccl.JcclSystemException;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The device double's CUDA IPC: device memory that other processes map, as {@code cuIpcOpenMemHandle} maps an
 * allocation into another process. With a directory (an {@link EmulatedCuda#shareable} double), each allocation is a
 * file named after this process's pid and a number, deleted when freed and, when its process died, by the next such
 * double; a handle carries the pid, the address, the number and the size. An open leaves a marker file beside the
 * allocation's, which its close deletes, so the owner's free can refuse memory a live process still has open, as a
 * GPU makes that undefined. Without a directory the memory is private, and only this process's own handles open.
 * Thread-safe.
 */
final class EmulatedIpc
{
    /** What device memory holds before anything writes it: code relying on zeros fails on the double too. */
    static final byte FILL = 0x5a;
    private static final int MAGIC = 0x6a63636c;
    private static final int HANDLE_BYTES = 64;
    private static final String PREFIX = "jccl-emucuda-";
    /** Between an allocation's file name and the pid of a process that has it open: {@code <file>.open-<pid>-<n>}. */
    private static final String OPEN_MARK = ".open-";

    /** Where shareable allocations live, or null: device memory private to this process. */
    private final java.nio.file.Path directory;
    private final AtomicLong nextShared = new AtomicLong();
    private final Map<Long, Shared> shared = new ConcurrentHashMap<>();
    /** Other processes' allocations mapped here, with the marker file that says so to their owner. */
    private final Map<Long, Opened> opened = new ConcurrentHashMap<>();
    private final AtomicLong nextOpen = new AtomicLong();

    /** @param directory where shareable allocations live, or null for private memory only. */
    EmulatedIpc(final java.nio.file.Path directory)
    {
        this.directory = directory;
        if (directory != null)
        {
            sweepDeadProcesses(directory);
            // a process that exits without freeing (System.exit after a failure) leaves no file behind
            Runtime.getRuntime().addShutdownHook(new Thread(() -> shared.values()
                .forEach(file -> org.agrona.IoUtil.delete(file.path.toFile(), true)), "jccl-emucuda-cleanup"));
        }
    }

    /**
     * @param bytes at least 1.
     * @return the address of a new allocation other processes can map, filled with {@link #FILL}; 0 when this
     *         double's memory is private (or the size is past one mapping's).
     */
    long allocate(final long bytes)
    {
        if (directory == null || bytes > Integer.MAX_VALUE)
        {
            return 0;
        }
        final long id = nextShared.getAndIncrement();
        final java.nio.file.Path file = directory.resolve(PREFIX + ProcessHandle.current().pid() + "-" + id);
        final java.nio.MappedByteBuffer mapped = map(file, bytes, true);
        final long address = org.agrona.BufferUtil.address(mapped);
        UnsafeApi.setMemory(address, bytes, FILL);
        shared.put(address, new Shared(file, id, mapped));
        return address;
    }

    /**
     * @param pointer an address.
     * @return whether it is the start of an allocation of {@link #allocate}.
     */
    boolean maps(final long pointer)
    {
        return shared.containsKey(pointer);
    }

    /**
     * Frees an allocation of {@link #allocate}.
     *
     * @param pointer an address.
     * @return false when it is not one (private memory, which the double frees itself).
     * @throws JcclSystemException if a live process still has it open.
     */
    boolean free(final long pointer)
    {
        final Shared file = shared.get(pointer);
        if (file == null)
        {
            return false;
        }
        checkNotOpenElsewhere(file.path);
        shared.remove(pointer);
        org.agrona.IoUtil.unmap(file.mapped);
        org.agrona.IoUtil.delete(file.path.toFile(), true);
        return true;
    }

    /**
     * @param pointer the start of an allocation (of {@link #allocate}, or private memory the double checked).
     * @return its 64-byte handle: only this process opens a private allocation's.
     */
    byte[] handle(final long pointer)
    {
        final Shared file = shared.get(pointer);
        final ByteBuffer b = ByteBuffer.allocate(HANDLE_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putLong(ProcessHandle.current().pid()).putLong(pointer);
        if (file != null)
        {
            b.putLong(file.id).putLong(file.mapped.capacity());
        }
        return b.array();
    }

    /**
     * @param handle a {@link #handle} from this process or another.
     * @return the allocation's address here: its own for this process's handles, else the file mapped.
     * @throws JcclSystemException if it is not a handle of the double, or another process's without a directory.
     */
    long open(final byte[] handle)
    {
        final ByteBuffer b = ByteBuffer.wrap(handle).order(ByteOrder.LITTLE_ENDIAN);
        if (handle.length != HANDLE_BYTES || b.getInt() != MAGIC)
        {
            throw new JcclSystemException("emulated CUDA: cuIpcOpenMemHandle failed: CUDA_ERROR_INVALID_VALUE " +
                "(not a handle of the emulation)");
        }
        final long pid = b.getLong();
        final long pointer = b.getLong();
        if (pid == ProcessHandle.current().pid())
        {
            return pointer;
        }
        final long id = b.getLong();
        final long bytes = b.getLong();
        if (directory == null || bytes == 0)
        {
            throw new JcclSystemException("emulated CUDA: cuIpcOpenMemHandle failed: CUDA_ERROR_INVALID_VALUE (a " +
                "handle of process " + pid + ": only EmulatedCuda.shareable maps other processes' memory)");
        }
        final String name = PREFIX + pid + "-" + id;
        final java.nio.MappedByteBuffer mapped = map(directory.resolve(name), bytes, false);
        final long address = org.agrona.BufferUtil.address(mapped);
        // the owner's cuMemFree refuses while a live process has it open, as freeing it then is undefined on a GPU
        final java.nio.file.Path marker = directory.resolve(name + OPEN_MARK + ProcessHandle.current().pid() + "-" +
            nextOpen.incrementAndGet());
        try
        {
            java.nio.file.Files.createFile(marker);
        }
        catch (final java.io.IOException ex)
        {
            throw new JcclSystemException("emulated CUDA: cannot mark " + marker + ": " + ex, ex);
        }
        opened.put(address, new Opened(mapped, marker));
        return address;
    }

    /** @param pointer an address {@link #open} returned: unmapped, its marker gone (this process's own: nothing). */
    void close(final long pointer)
    {
        final Opened mapping = opened.remove(pointer);
        if (mapping != null)
        {
            org.agrona.IoUtil.unmap(mapping.mapped());
            org.agrona.IoUtil.delete(mapping.marker().toFile(), true);
        }
    }

    /**
     * Refuses to free an allocation another live process still has open through IPC: on a GPU that is undefined
     * ({@code cuMemFree} before the importer's {@code cuIpcCloseMemHandle}); the marks of dead processes go.
     */
    private static void checkNotOpenElsewhere(final java.nio.file.Path file)
    {
        final String mark = file.getFileName() + OPEN_MARK;
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(file.getParent()))
        {
            for (final java.nio.file.Path f : (Iterable<java.nio.file.Path>)files::iterator)
            {
                final String name = f.getFileName().toString();
                if (name.startsWith(mark))
                {
                    final String rest = name.substring(mark.length());
                    final long pid = Long.parseLong(rest.substring(0, rest.indexOf('-')));
                    if (ProcessHandle.of(pid).isPresent())
                    {
                        throw new JcclSystemException("emulated CUDA: cuMemFree of " + file.getFileName() + ", which " +
                            "process " + pid + " still has open through CUDA IPC: freeing memory before its " +
                            "importers call cuIpcCloseMemHandle is undefined on a GPU");
                    }
                    java.nio.file.Files.deleteIfExists(f);
                }
            }
        }
        catch (final java.io.IOException ex)
        {
            throw new JcclSystemException("emulated CUDA: cannot list " + file.getParent() + ": " + ex, ex);
        }
    }

    private static java.nio.MappedByteBuffer map(final java.nio.file.Path file, final long bytes,
        final boolean create)
    {
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
            create ? java.util.EnumSet.of(java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE) :
                java.util.EnumSet.of(java.nio.file.StandardOpenOption.READ,
                java.nio.file.StandardOpenOption.WRITE)))
        {
            return channel.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, bytes);
        }
        catch (final java.io.IOException ex)
        {
            throw new JcclSystemException("emulated CUDA: cannot map " + file + ": " + ex, ex);
        }
    }

    /** Deletes the allocations of processes that died before freeing them. */
    private static void sweepDeadProcesses(final java.nio.file.Path directory)
    {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(directory))
        {
            files.filter(f -> f.getFileName().toString().startsWith(PREFIX)).forEach(f ->
            {
                final String rest = f.getFileName().toString().substring(PREFIX.length());
                final int dash = rest.indexOf('-');
                try
                {
                    final long pid = Long.parseLong(rest.substring(0, dash));
                    if (ProcessHandle.of(pid).isEmpty())
                    {
                        java.nio.file.Files.deleteIfExists(f);
                    }
                }
                catch (final RuntimeException | java.io.IOException ignore)
                {
                    // not ours, or already gone
                }
            });
        }
        catch (final java.io.IOException ignore)
        {
            // nothing to sweep
        }
    }

    private record Shared(java.nio.file.Path path, long id, java.nio.MappedByteBuffer mapped)
    {
    }

    private record Opened(java.nio.MappedByteBuffer mapped, java.nio.file.Path marker)
    {
    }
}
