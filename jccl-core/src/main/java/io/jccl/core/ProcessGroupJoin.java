package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.JcclInvalidUsageException;
import io.jccl.Topology;
import io.jccl.UniqueId;
import io.jccl.autotune.Calibration;
import io.jccl.kernels.HostDevice;
import io.jccl.transport.InProcessTransport;
import io.jccl.transport.SharedMemoryDevice;
import io.jccl.transport.StaleSharedFiles;
import io.jccl.transport.bootstrap.Bootstrap;
import io.jccl.transport.bootstrap.PeerInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Joins one rank of this process to a communicator whose ranks live in several processes of this host
 * ({@code ncclCommInitRank}): the bootstrap's rendezvous and table of peers, rank 0's cost-model calibration for
 * every rank (so every rank predicts, and chooses, the same plans), a check that every rank's settings agree, and
 * FIFO files in {@code /dev/shm} between the processes. A peer the bootstrap sees die breaks the communicator on
 * every survivor with an error naming it.
 * <p>
 * Nothing of jccl's is to outlive its processes in {@code /dev/shm}: every rank removes the files of dead processes
 * ({@link StaleSharedFiles}: shared buffers of killed ranks, say) when it joins, the survivors again when a peer
 * dies and when the broken communicator closes, and then this communicator's FIFO files too (one a survivor made
 * for a peer that never came).
 */
final class ProcessGroupJoin
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");

    private ProcessGroupJoin()
    {
    }

    static Communicator join(final Context context, final int rank, final int size, final UniqueId id)
    {
        HostDevice.checkJvmFlags();
        final Bootstrap bootstrap = Bootstrap.connect(id, rank, size, PeerInfo.local(rank, new byte[0]),
            context.timeoutMs());
        CommGroup group = null;
        try
        {
            final List<PeerInfo> peers = bootstrap.peers();
            for (final PeerInfo peer : peers)
            {
                if (!peer.sameHost(peers.get(rank)))
                {
                    throw new JcclInvalidUsageException("rank " + peer.rank() + " runs on host " + peer.hostname() +
                        " (boot id " + peer.bootId() + ") and rank " + rank + " on " + peers.get(rank).hostname() +
                        " (boot id " + peers.get(rank).bootId() + "): ranks on other hosts need the network " +
                        "transport, which jccl does not have yet");
                }
            }
            final java.nio.file.Path directory = SharedMemoryDevice.INSTANCE.directory();
            StaleSharedFiles.sweep(directory);
            if (rank == 0)
            {
                sweepStaleFifos(directory, sharedPrefix(id));
            }
            // no rank makes a FIFO file before rank 0 has swept (the gather below is the barrier)
            final Calibration calibration = decode(bootstrap.allGather(
                rank == 0 ? encode(context.calibration()) : new byte[0])[0]);
            final int[] hosts = new int[size];
            final int[] processes = new int[size];
            java.util.Arrays.setAll(processes, r -> r);
            final InProcessTransport transport = new InProcessTransport(r -> r == rank, directory, sharedPrefix(id),
                context.timeoutMs());
            final CommGroup[] joined = new CommGroup[1];
            group = CommGroup.createShared(context, Topology.of(hosts, processes), new int[] {rank}, transport,
                calibration, () ->
                {
                    bootstrap.close();
                    if (joined[0].failure() != null)
                    {
                        StaleSharedFiles.sweep(directory);
                        sweepStaleFifos(directory, sharedPrefix(id));
                    }
                }, bootstrap::abort);
            joined[0] = group;
            checkSameSettings(bootstrap, group, rank);
            final CommGroup failing = group;
            bootstrap.onPeerFailure(error ->
            {
                failing.fail(error);
                // a killed peer's shared buffers: its pid is gone (or a zombie) by the time its socket closed
                StaleSharedFiles.sweep(directory);
            });
            if (context.debugInfo())
            {
                LOG.info("jccl INFO rank {}/{} joined {} in process {} (shared memory with {} peer processes)", rank,
                    size, id.host() + ":" + id.port(), ProcessHandle.current().pid(), size - 1);
            }
            return group.communicators()[0];
        }
        catch (final RuntimeException ex)
        {
            if (group != null)
            {
                group.communicators()[0].close();
            }
            bootstrap.close();
            throw ex;
        }
    }

    /**
     * Deletes FIFO files of this communicator's name that a crashed earlier run with the same rendezvous left (a
     * reused {@code JCCL_COMM_ID} or derived secret): an empty one would stall the attach until the deadline. Run
     * at a broken communicator's close as well, for a FIFO a survivor made for a peer that died before it came.
     */
    static void sweepStaleFifos(final java.nio.file.Path directory, final String prefix)
    {
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(directory))
        {
            files.filter(f -> f.getFileName().toString().startsWith(prefix + "-")).forEach(f ->
            {
                try
                {
                    java.nio.file.Files.deleteIfExists(f);
                    LOG.warn("jccl WARN removed {}, a FIFO file of this rendezvous that no live peer holds", f);
                }
                catch (final java.io.IOException ex)
                {
                    LOG.warn("jccl WARN cannot remove stale {}: {}", f, ex.toString());
                }
            });
        }
        catch (final java.io.IOException ex)
        {
            LOG.warn("jccl WARN cannot list {} for stale FIFO files: {}", directory, ex.toString());
        }
    }

    /** Ranks whose pins, tuner table or calibration differ would bind different plans: fail at creation. */
    private static void checkSameSettings(final Bootstrap bootstrap, final CommGroup group, final int rank)
    {
        final byte[][] hashes = bootstrap.allGather(ByteBuffer.allocate(Long.BYTES)
            .putLong(group.tuner.stableHash() * 31 + group.schedules.stableHash()).array());
        for (int r = 0; r < hashes.length; r++)
        {
            if (!java.util.Arrays.equals(hashes[r], hashes[rank]))
            {
                throw new JcclInvalidUsageException("rank " + r + " and rank " + rank + " have different plan " +
                    "settings (JCCL_ALGO, JCCL_PROTO, channels, chunk, threads, transport, the tuner table or " +
                    "JCCL_SCHEDULE_FILES): " +
                    "every rank must run the same plan for the same call; this rank's are " +
                    group.tuner.constraints());
            }
        }
    }

    /**
     * @param id the communicator's rendezvous.
     * @return the prefix of the names of its FIFO files: the same in every process, unguessable without the id.
     */
    static String sharedPrefix(final UniqueId id)
    {
        try
        {
            final byte[] digest = MessageDigest.getInstance("SHA-256")
                .digest(id.toString().getBytes(StandardCharsets.UTF_8));
            return "jccl-" + HexFormat.of().formatHex(digest, 0, 8);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
        }
    }

    static byte[] encode(final Calibration c)
    {
        final ByteBuffer b = ByteBuffer.allocate(Integer.BYTES + 15 * Double.BYTES);
        b.putInt(c.cores());
        for (final Calibration.ProtocolCost p : List.of(c.simple(), c.ll(), c.ll128()))
        {
            b.putDouble(p.stepNs()).putDouble(p.slotNs());
        }
        for (final Calibration.TransportCost t : List.of(c.p2p(), c.shm(), c.net()))
        {
            b.putDouble(t.hopNs()).putDouble(t.threadGBps()).putDouble(t.capGBps());
        }
        return b.array();
    }

    static Calibration decode(final byte[] bytes)
    {
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        final int cores = b.getInt();
        final Calibration.ProtocolCost[] p = new Calibration.ProtocolCost[3];
        for (int i = 0; i < p.length; i++)
        {
            p[i] = new Calibration.ProtocolCost(b.getDouble(), b.getDouble());
        }
        final Calibration.TransportCost[] t = new Calibration.TransportCost[3];
        for (int i = 0; i < t.length; i++)
        {
            t[i] = new Calibration.TransportCost(b.getDouble(), b.getDouble(), b.getDouble());
        }
        return new Calibration(p[0], p[1], p[2], t[0], t[1], t[2], cores);
    }
}
