package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.JcclInvalidUsageException;
import io.jccl.Settings;
import io.jccl.StableHash;
import io.jccl.Topology;
import io.jccl.TransportKind;
import io.jccl.UniqueId;
import io.jccl.autotune.Calibration;
import io.jccl.kernels.HostDevice;
import io.jccl.transport.Connections;
import io.jccl.transport.SharedMemoryDevice;
import io.jccl.transport.StaleSharedFiles;
import io.jccl.transport.bootstrap.Bootstrap;
import io.jccl.transport.bootstrap.PeerInfo;
import io.jccl.transport.net.NetConfig;
import io.jccl.transport.net.NetTransport;
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
 * every rank (so every rank predicts, and chooses, the same plans), a check that every rank's settings agree, FIFO
 * files in {@code /dev/shm} between the processes of a host, and TCP or Aeron UDP between hosts (each process's
 * endpoint all-gathered through the bootstrap). A peer the bootstrap or the network sees die breaks the communicator
 * on every survivor with an error naming it.
 * <p>
 * Nothing of jccl's is to outlive its processes in {@code /dev/shm}: every rank removes the files of dead processes
 * ({@link StaleSharedFiles}: shared buffers of killed ranks, FIFO files of any communicator whose creator died before
 * its peer attached) when it joins, the survivors again when a peer dies, and a broken communicator (a timeout, a
 * dead peer, an abort) at its close, with this communicator's FIFO files too (one a rank made for a peer that never
 * came).
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
        NetTransport net = null;
        Standings standings = null;
        try
        {
            final List<PeerInfo> peers = bootstrap.peers();
            final int[] hosts = hostNumbers(peers);
            final java.nio.file.Path directory = SharedMemoryDevice.INSTANCE.directory();
            StaleSharedFiles.sweep(directory);
            if (rank == 0)
            {
                sweepStaleFifos(directory, sharedPrefix(id));
            }
            // no rank makes a FIFO file before rank 0 has swept (the gather below is the barrier)
            final Calibration calibration = decode(bootstrap.allGather(
                rank == 0 ? encode(context.calibration()) : new byte[0])[0]);
            final int[] processes = new int[size];
            java.util.Arrays.setAll(processes, r -> r);
            final Topology topology = Topology.of(hosts, processes);
            // every rank decides alike: the peer table is the same everywhere and the pins are compared below
            if (topology.hosts() > 1 || context.constraints().transport() == TransportKind.NET)
            {
                net = NetTransport.start(
                    NetConfig.fromEnvironment(Settings.environment(), id.host(), context.timeoutMs()),
                    id.secret());
                net.connect(gatherEndpoints(bootstrap, net, rank));
            }
            final Connections transport = new Connections(r -> r == rank, hosts, directory,
                sharedPrefix(id), context.timeoutMs(), net);
            final NetTransport network = net;
            final CommGroup[] joined = new CommGroup[1];
            final long[] pids = peers.stream().mapToLong(PeerInfo::pid).toArray();
            standings = Standings.shared(rank, pids, hosts, directory, sharedPrefix(id));
            group = CommGroup.createShared(context, topology, new int[] {rank}, transport, calibration,
                new CommGroup.Outside(standings, bootstrap::announceFailure, bootstrap::abort,
                    () -> quiesce(bootstrap, network != null || context.cuda() != null), () ->
                    {
                        bootstrap.close();
                        if (joined[0].failure() != null)
                        {
                            StaleSharedFiles.sweep(directory);
                            sweepStaleFifos(directory, sharedPrefix(id));
                        }
                    }));
            joined[0] = group;
            checkSameSettings(bootstrap, group, rank);
            // every rank made its standing file before the gather above
            standings.mapPeers();
            group.splitter = (r, generation, color, key) -> split(context, bootstrap, id, r, color, key);
            if (group.online != null)
            {
                final CommGroup tuned = group;
                if (rank == 0)
                {
                    group.tunerNotices = new TunerReplication.Outbox(bootstrap::notifyPeers);
                }
                else
                {
                    bootstrap.onNotice(notice -> TunerReplication.apply(tuned.online, notice, tuned.id));
                }
            }
            final CommGroup failing = group;
            bootstrap.onPeerFailure(error ->
            {
                failing.fail(error);
                // a killed peer's shared buffers: its pid is gone (or a zombie) by the time its socket closed
                StaleSharedFiles.sweep(directory);
            });
            if (net != null)
            {
                net.onFailure(group::fail);
            }
            if (context.debugInfo())
            {
                LOG.info("jccl INFO rank {}/{} joined {} in process {} ({} hosts, {} peer processes{})", rank, size,
                    id.host() + ":" + id.port(), ProcessHandle.current().pid(), topology.hosts(), size - 1,
                    net == null ? "" : ", network " + net.endpoint() + " " + net.config().wireSummary());
            }
            return group.communicators()[0];
        }
        catch (final RuntimeException ex)
        {
            if (group != null)
            {
                group.communicators()[0].close();
            }
            else
            {
                if (net != null)
                {
                    net.close();
                }
                if (standings != null)
                {
                    // the group would have removed it at its close
                    standings.close();
                }
            }
            bootstrap.close();
            throw ex;
        }
    }

    /**
     * {@code ncclCommSplit} across processes: every rank's color and key through the bootstrap, then the first rank of
     * each color (by key) creates a fresh {@link UniqueId} on the address that reaches the parent's rendezvous, the
     * ids go round once more, and the members of each color join theirs.
     */
    private static Communicator split(final Context context, final Bootstrap bootstrap, final UniqueId parent,
        final int rank, final int color, final int key)
    {
        final byte[][] all = bootstrap.allGather(ByteBuffer.allocate(8).putInt(color).putInt(key).array());
        final int[] colors = new int[all.length];
        final int[] keys = new int[all.length];
        for (int r = 0; r < all.length; r++)
        {
            colors[r] = ByteBuffer.wrap(all[r]).getInt(0);
            keys[r] = ByteBuffer.wrap(all[r]).getInt(4);
        }
        final int[] members = color < 0 ? new int[0] : Splitter.members(colors, keys, color);
        byte[] mine = new byte[0];
        if (members.length > 0 && members[0] == rank)
        {
            final String host = NetConfig.localAddressToward(parent.host()).getHostAddress();
            try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName(host)))
            {
                mine = UniqueId.create(host, probe.getLocalPort()).toString().getBytes(StandardCharsets.US_ASCII);
            }
            catch (final java.io.IOException ex)
            {
                throw new io.jccl.JcclSystemException("split: no free port on " + host + ": " + ex, ex);
            }
        }
        final byte[][] ids = bootstrap.allGather(mine);
        if (members.length == 0)
        {
            return null;
        }
        final int newRank = java.util.Arrays.stream(members).boxed().toList().indexOf(rank);
        return join(context, newRank, members.length,
            UniqueId.parse(new String(ids[members[0]], StandardCharsets.US_ASCII)));
    }

    /**
     * @param peers every rank's info.
     * @return a host number per rank: ranks with the same host name and boot id (or {@code JCCL_HOSTID}) share one.
     */
    static int[] hostNumbers(final List<PeerInfo> peers)
    {
        final int[] hosts = new int[peers.size()];
        final java.util.Map<String, Integer> numbers = new java.util.HashMap<>();
        for (int r = 0; r < hosts.length; r++)
        {
            final PeerInfo p = peers.get(r);
            hosts[r] = numbers.computeIfAbsent(p.hostname() + "\n" + p.bootId(), k -> numbers.size());
        }
        return hosts;
    }

    /**
     * Before the transport closes: a barrier, so every rank has finished its calls and no peer still waits for a slot
     * this process has yet to send over the network, and on CUDA every process has let go of the FIFOs the others
     * exported to it through IPC before they free them. A failing barrier (a peer gone) only shortens the wait.
     */
    private static void quiesce(final Bootstrap bootstrap, final boolean needed)
    {
        if (!needed)
        {
            return;
        }
        try
        {
            bootstrap.barrier();
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("jccl WARN closing without the final barrier ({}): a peer may lose its last slots", ex.toString());
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

    /**
     * @return every rank's network endpoint, once every rank is known to use the same wire ({@code JCCL_NET}).
     * @throws JcclInvalidUsageException naming two ranks whose wires differ, before anything is sent.
     */
    private static String[] gatherEndpoints(final Bootstrap bootstrap, final NetTransport net, final int rank)
    {
        final String own = net.config().wire().name();
        final byte[][] gathered = bootstrap.allGather((own + "/" + net.endpoint()).getBytes(StandardCharsets.US_ASCII));
        final String[] endpoints = new String[gathered.length];
        for (int r = 0; r < gathered.length; r++)
        {
            final String text = new String(gathered[r], StandardCharsets.US_ASCII);
            final int slash = text.indexOf('/');
            if (!text.substring(0, slash).equals(own))
            {
                throw new JcclInvalidUsageException("rank " + r + " carries network traffic over " +
                    text.substring(0, slash) + " and rank " + rank + " over " + own + ": set " +
                    NetConfig.WIRE_ENV + " alike on every rank");
            }
            endpoints[r] = text.substring(slash + 1);
        }
        return endpoints;
    }

    /** Ranks whose pins, tuner table or calibration differ would bind different plans: fail at creation. */
    private static void checkSameSettings(final Bootstrap bootstrap, final CommGroup group, final int rank)
    {
        // with the online tuner, its settings too: every process must run the same search
        long settings = StableHash.mix(StableHash.OFFSET_BASIS, group.tuner.stableHash());
        settings = StableHash.mix(settings, group.schedules.stableHash());
        settings = StableHash.mix(settings, group.online == null ? "offline" : group.online.config().toString());
        final byte[][] hashes = bootstrap.allGather(ByteBuffer.allocate(Long.BYTES).putLong(settings).array());
        for (int r = 0; r < hashes.length; r++)
        {
            if (!java.util.Arrays.equals(hashes[r], hashes[rank]))
            {
                throw new JcclInvalidUsageException("rank " + r + " and rank " + rank + " have different plan " +
                    "settings (JCCL_ALGO, JCCL_PROTO, channels, chunk, threads, transport, the tuner table, " +
                    "JCCL_SCHEDULE_FILES or the online tuner's JCCL_TUNER_* settings): " +
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
