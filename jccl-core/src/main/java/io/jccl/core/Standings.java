package io.jccl.core;

import io.jccl.transport.StaleSharedFiles;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Where each rank of a communicator stands, published by the rank itself so that a rank that times out can follow the
 * chain of waits to the rank that holds everyone up ({@link WhoIsBehind}). Per rank, one cache line: the number of the
 * call it runs (its oldest unfinished call, once it reaches the head of its queue), of the last call it completed and
 * of the last that failed on it, and, from its polls that found it stalled, the peer it waits on, in which call, and
 * when it last found itself waiting there.
 * <p>
 * The writes cost two ordered stores per call (started, completed or failed); the wait is written only on a stalled
 * poll's clock read, one in 32 such polls. Ranks of one process share one block of memory; ranks in several processes
 * each write a file of their own in the shared-memory directory, named after the communicator, the process and the
 * rank ({@code <communicator>-standing-<pid namespace>-<pid>-<rank>}), which peers on the same host map once every
 * rank has made its own ({@link #mapPeers()}). A peer on another host is not visible: the chain ends there, saying so.
 * Its owner deletes the file at close; {@link StaleSharedFiles} removes one whose owner was killed.
 * <p>
 * Threading: each rank writes only its own slot, from the thread that advances its calls; any thread reads. A reader
 * may see one rank's fields from different moments: what it reports is a diagnosis, not a decision.
 */
final class Standings implements AutoCloseable
{
    /** Bytes per rank: one cache line, so that ranks of one process do not share one. */
    static final int SLOT_BYTES = 64;
    /** The infix of a rank's file between the communicator's prefix and its owner. */
    static final String FILE_INFIX = StaleSharedFiles.STANDING_INFIX;

    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");
    private static final int CURRENT = 0;
    private static final int COMPLETED = 8;
    private static final int WAITS_ON = 16;
    private static final int WAIT_CALL = 24;
    private static final int WAIT_STAMP = 32;
    private static final int FAILED = 40;

    /**
     * What one rank published, read at one moment.
     *
     * @param current     the call it runs (its oldest unfinished), or the last it ran; -1 before its first.
     * @param completed   the last call it completed without an error, or -1.
     * @param failed      the last call that ended in an error on it (its own timeout, the group's failure), or -1.
     * @param waitsOn     the peer it last found itself waiting on, or -1.
     * @param waitCall    the call it was in then, or -1.
     * @param waitStampNs {@link System#nanoTime()} when it last found itself waiting there.
     */
    record Standing(long current, long completed, long failed, int waitsOn, long waitCall, long waitStampNs)
    {
    }

    private final UnsafeBuffer[] slots;
    private final Path ownFile;
    private final Path directory;
    private final String prefix;
    private final long[] pids;
    private final boolean[] sameHost;

    private Standings(final UnsafeBuffer[] slots, final Path ownFile, final Path directory, final String prefix,
        final long[] pids, final boolean[] sameHost)
    {
        this.slots = slots;
        this.ownFile = ownFile;
        this.directory = directory;
        this.prefix = prefix;
        this.pids = pids;
        this.sameHost = sameHost;
        for (final UnsafeBuffer slot : slots)
        {
            if (slot != null)
            {
                clear(slot);
            }
        }
    }

    /**
     * @param ranks the communicator's ranks, all in this process.
     * @return a board in this process's memory.
     */
    static Standings inMemory(final int ranks)
    {
        final UnsafeBuffer all = new UnsafeBuffer(BufferUtil.allocateDirectAligned(ranks * SLOT_BYTES, SLOT_BYTES));
        final UnsafeBuffer[] slots = new UnsafeBuffer[ranks];
        for (int r = 0; r < ranks; r++)
        {
            slots[r] = new UnsafeBuffer(all, r * SLOT_BYTES, SLOT_BYTES);
        }
        return new Standings(slots, null, null, null, null, null);
    }

    /**
     * Makes this process's file; a peer's is mapped when it is first read.
     *
     * @param rank      the rank of this process.
     * @param pids      every rank's process id.
     * @param hosts     every rank's host number: ranks on this rank's host are visible.
     * @param directory the shared-memory directory.
     * @param prefix    the communicator's prefix in that directory.
     * @return a board of files; one that sees only this rank where its file cannot be made (said in the log).
     */
    static Standings shared(final int rank, final long[] pids, final int[] hosts, final Path directory,
        final String prefix)
    {
        final boolean[] sameHost = new boolean[hosts.length];
        for (int r = 0; r < hosts.length; r++)
        {
            sameHost[r] = hosts[r] == hosts[rank];
        }
        final UnsafeBuffer[] slots = new UnsafeBuffer[pids.length];
        final Path file = directory.resolve(fileName(prefix, pids[rank], rank));
        Path own = null;
        try (FileChannel channel = FileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ, StandardOpenOption.WRITE),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))))
        {
            slots[rank] = new UnsafeBuffer(channel.map(FileChannel.MapMode.READ_WRITE, 0, SLOT_BYTES));
            own = file;
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            LOG.warn("jccl WARN rank {} cannot publish where it stands in {} ({}): a timeout elsewhere will not see " +
                "it", rank, file, ex.toString());
            slots[rank] = new UnsafeBuffer(BufferUtil.allocateDirectAligned(SLOT_BYTES, SLOT_BYTES));
        }
        return new Standings(slots, own, directory, prefix, pids.clone(), sameHost);
    }

    /**
     * @param prefix the communicator's prefix.
     * @param pid    the owner's process id.
     * @param rank   the owner's rank (one JVM may join one communicator several times: Spark's tasks in local mode).
     * @return the name of that rank's file, in this process's pid namespace.
     */
    static String fileName(final String prefix, final long pid, final int rank)
    {
        return prefix + FILE_INFIX + StaleSharedFiles.pidNamespace() + "-" + pid + "-" + rank;
    }

    /**
     * @param rank a rank of this process.
     * @return its slot, for {@link #started}, {@link #completed} and {@link #waiting}.
     */
    UnsafeBuffer slot(final int rank)
    {
        return slots[rank];
    }

    /**
     * @param slot a rank's slot.
     * @param call the number of the call that reached the head of its queue.
     */
    static void started(final UnsafeBuffer slot, final long call)
    {
        slot.putLongOrdered(CURRENT, call);
    }

    /**
     * @param slot a rank's slot.
     * @param call the number of the call it completed without an error.
     */
    static void completed(final UnsafeBuffer slot, final long call)
    {
        slot.putLongOrdered(COMPLETED, call);
    }

    /**
     * @param slot a rank's slot.
     * @param call the number of a call that ended in an error: where it last waited stays the rank's last word.
     */
    static void failed(final UnsafeBuffer slot, final long call)
    {
        slot.putLongOrdered(FAILED, call);
    }

    /**
     * @param slot  a rank's slot.
     * @param call  the call that waits.
     * @param peer  the peer it waits on, or -1 where it waits on none (its own steps, the tuner).
     * @param nowNs {@link System#nanoTime()}.
     */
    static void waiting(final UnsafeBuffer slot, final long call, final int peer, final long nowNs)
    {
        slot.putLong(WAITS_ON, peer);
        slot.putLong(WAIT_CALL, call);
        slot.putLongOrdered(WAIT_STAMP, nowNs);
    }

    /**
     * @param rank any rank.
     * @return what it published, or null where it is not visible from here (another host, no file yet).
     */
    Standing read(final int rank)
    {
        final UnsafeBuffer slot = slots[rank] != null ? slots[rank] : mapPeer(rank);
        if (slot == null)
        {
            return null;
        }
        final long stamp = slot.getLongVolatile(WAIT_STAMP);
        return new Standing(slot.getLongVolatile(CURRENT), slot.getLongVolatile(COMPLETED),
            slot.getLongVolatile(FAILED), (int)slot.getLongVolatile(WAITS_ON), slot.getLongVolatile(WAIT_CALL), stamp);
    }

    /** @return whether a rank lives on another host, so that its standing cannot be seen from here. */
    boolean onOtherHost(final int rank)
    {
        return sameHost != null && !sameHost[rank];
    }

    /**
     * Maps the files of every peer on this host, once every rank has made its own (after a barrier): a survivor of a
     * broken communicator removes the communicator's files as it closes, and a rank that times out later must still
     * read them. Mapped, a file stays readable after it is removed. A peer whose file is missing stays invisible.
     */
    void mapPeers()
    {
        for (int r = 0; r < slots.length; r++)
        {
            mapPeer(r);
        }
    }

    private synchronized UnsafeBuffer mapPeer(final int rank)
    {
        if (slots[rank] != null || directory == null || !sameHost[rank])
        {
            return slots[rank];
        }
        final Path file = directory.resolve(fileName(prefix, pids[rank], rank));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            if (channel.size() < SLOT_BYTES)
            {
                return null;
            }
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, SLOT_BYTES);
            slots[rank] = new UnsafeBuffer(mapped);
            return slots[rank];
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return null;
        }
    }

    private static void clear(final UnsafeBuffer slot)
    {
        slot.putLong(COMPLETED, -1);
        slot.putLong(FAILED, -1);
        slot.putLong(WAITS_ON, -1);
        slot.putLong(WAIT_CALL, -1);
        slot.putLong(WAIT_STAMP, 0);
        slot.putLongOrdered(CURRENT, -1);
    }

    /** Deletes this process's file; peers that mapped it keep their mapping. Idempotent. */
    @Override
    public void close()
    {
        if (ownFile != null)
        {
            try
            {
                Files.deleteIfExists(ownFile);
            }
            catch (final IOException ex)
            {
                LOG.debug("jccl cannot remove {}: {}", ownFile, ex.toString());
            }
        }
    }

    /** @return the file this process writes, or null. */
    Path ownFile()
    {
        return ownFile;
    }
}
