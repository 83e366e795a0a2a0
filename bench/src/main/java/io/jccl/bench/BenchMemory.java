package io.jccl.bench;

import io.jccl.HostBuffer;
import io.jccl.core.Jccl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the bench's buffers live. As nccl-tests allocates with {@code ncclMemAlloc}, the bench allocates with jccl's
 * shared allocator ({@link Jccl#allocate(long)}: memory the ranks of other processes read in place, so P2P sends
 * without a staging copy across processes too), unless {@code --plain-memory} asks for memory private to each process
 * ({@link HostBuffer#allocate(long)}: staged through shared FIFOs between processes) or the ranks are not jccl's
 * ({@link CommunicatorFactory#sharedMemory()}). Shared buffers are freed by {@link #freeAll()}; the limit of a
 * buffer's size follows the memory: the JVM's direct memory, or the space left in {@code /dev/shm}, which every rank
 * of the host shares. Used by one thread.
 */
final class BenchMemory
{
    private static final Logger LOG = LoggerFactory.getLogger(BenchMemory.class);

    private final boolean shared;
    private final List<HostBuffer> allocated = new ArrayList<>();

    private BenchMemory(final boolean shared)
    {
        this.shared = shared;
    }

    /**
     * @param options the flags ({@code --plain-memory}).
     * @param factory where the ranks come from.
     * @return the bench's memory for this run.
     */
    static BenchMemory of(final BenchOptions options, final CommunicatorFactory factory)
    {
        return new BenchMemory(!options.plainMemory() && factory.sharedMemory());
    }

    /** @return true for jccl's shared allocator, false for private memory. */
    boolean shared()
    {
        return shared;
    }

    /**
     * @param localRanks the ranks of this process, each with a send and a receive buffer.
     * @param hostRanks  the ranks of the host, who all allocate from {@code /dev/shm} when the memory is shared.
     * @return the most bytes one buffer may have, guard bytes excluded.
     */
    long bytesPerBufferLimit(final int localRanks, final int hostRanks)
    {
        if (!shared)
        {
            return BenchRunner.bytesPerBufferLimit(localRanks);
        }
        long space;
        try
        {
            space = Files.getFileStore(Jccl.sharedMemoryDirectory()).getUsableSpace();
        }
        catch (final IOException ex)
        {
            LOG.debug("space of {} unknown", Jccl.sharedMemoryDirectory(), ex);
            space = Long.MAX_VALUE;
        }
        // a quarter stays for the FIFO files and everybody else
        final long perBuffer = space / 4 * 3 / (2L * hostRanks) - ResultChecker.GUARD_BYTES;
        final long sharedBufferMax = Integer.MAX_VALUE - 4096 - ResultChecker.GUARD_BYTES;
        return Math.max(0, Math.min(perBuffer, sharedBufferMax));
    }

    /**
     * @param length bytes.
     * @return zeroed memory of that length, shared or private.
     */
    HostBuffer allocate(final long length)
    {
        if (!shared)
        {
            return HostBuffer.allocate(length);
        }
        final HostBuffer buffer = Jccl.allocate(length);
        allocated.add(buffer);
        return buffer;
    }

    /** Frees the shared buffers; every call that used them must have completed. */
    void freeAll()
    {
        for (final HostBuffer buffer : allocated)
        {
            try
            {
                Jccl.free(buffer);
            }
            catch (final RuntimeException ex)
            {
                LOG.warn("freeing {} failed: {}", buffer, ex.toString());
            }
        }
        allocated.clear();
    }

    /** @return the memory in words, for the log. */
    String describe()
    {
        return shared ? "buffers in jccl's shared memory (Jccl.allocate; --plain-memory for private memory)" :
            "buffers in private memory (HostBuffer.allocate)";
    }
}
