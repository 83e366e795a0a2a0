package io.jccl.core;

import io.jccl.UniqueId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ranks on several hosts: child JVMs in network namespaces joined by veth links at MTU 9000 ({@link NetNamespaces}),
 * each namespace its own host ({@code JCCL_HOSTID}), so pairs across namespaces go over TCP (or Aeron UDP, with
 * {@code JCCL_NET=aeron}) and pairs inside one over shared memory. The grid of {@link MultiProcessChild} is exact on
 * every rank, with 1% of packets dropped too; a killed rank becomes a named error on every survivor, a stopped one
 * is waited for; nothing of jccl's is left in {@code /dev/shm}. Skips, saying why, only where namespaces cannot be
 * made (not root, no iproute2).
 */
class MultiHostTest
{
    private NetNamespaces hosts;
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void cleanUp()
    {
        children.forEach(Process::destroyForcibly);
        for (final Process p : children)
        {
            try
            {
                p.waitFor(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
        if (hosts != null)
        {
            hosts.close();
        }
    }

    private void makeHosts(final int count) throws IOException
    {
        final String reason = NetNamespaces.unavailable();
        Assumptions.assumeTrue(reason == null, () -> "multi-host tests skipped: " + reason);
        hosts = NetNamespaces.create(count, 9000);
    }

    /** Variables every child gets besides its host id. */
    private Map<String, String> env = Map.of();
    /** The children's {@link MultiProcessChild#MEMORY_PROPERTY}. */
    private String memory = "plain";

    /** @return rank r's child started on host {@code hostOfRank[r]}. */
    private Process start(final int[] hostOfRank, final int rank, final UniqueId id, final String... extra)
        throws IOException
    {
        final Map<String, String> vars = new java.util.HashMap<>(env);
        vars.put("JCCL_HOSTID", "ns-host-" + hostOfRank[rank]);
        final Process p = MultiProcessTest.start(hosts.exec(hostOfRank[rank]), vars, rank, hostOfRank.length, id,
            memory, extra);
        children.add(p);
        return p;
    }

    private void runGrid(final int[] hostOfRank, final String... extra) throws Exception
    {
        final UniqueId id = UniqueId.create(hosts.address(hostOfRank[0]), 29500);
        for (int rank = hostOfRank.length - 1; rank >= 0; rank--)
        {
            start(hostOfRank, rank, id, extra);
        }
        assertEquals("", MultiProcessTest.awaitAll(children, new ArrayList<>()));
        assertNothingLeft(id);
    }

    @Test
    @Timeout(300)
    void shouldGiveExactResultsWithOneRankOnEachOfTwoHosts() throws Exception
    {
        makeHosts(2);
        runGrid(new int[] {0, 1});
    }

    /**
     * The CUDA path across processes and hosts (the device double in each process): the two ranks of host 0 pass
     * their kernels' slots through pinned FIFOs, proxies and shared memory, and rank 2's through the network.
     */
    @Test
    @Timeout(300)
    void shouldGiveExactResultsOnCudaWithTwoRanksOnOneHostAndOneOnAnother() throws Exception
    {
        makeHosts(2);
        memory = "emulated-cuda";
        runGrid(new int[] {0, 0, 1});
    }

    @Test
    @Timeout(300)
    void shouldGiveExactResultsWithFourRanksOnThreeHostsTwoSharingOne() throws Exception
    {
        makeHosts(3);
        runGrid(new int[] {0, 0, 1, 2});
    }

    /**
     * Sends and receives ({@link P2pWorkload}) between ranks that share a host and ranks that do not, over jccl's
     * TCP carrier and over Aeron UDP.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "aeron"})
    @Timeout(300)
    void shouldDeliverEverySendExactlyWithThreeRanksOnTwoHosts(final String wire) throws Exception
    {
        makeHosts(2);
        env = Map.of("JCCL_NET", wire);
        runGrid(new int[] {0, 0, 1}, "p2p");
    }

    /** The Aeron UDP wire ({@code JCCL_NET=aeron}) carries the same grid across three hosts. */
    @Test
    @Timeout(300)
    void shouldGiveExactResultsOverAeronWithFourRanksOnThreeHosts() throws Exception
    {
        makeHosts(3);
        env = Map.of("JCCL_NET", "aeron");
        runGrid(new int[] {0, 1, 1, 2});
    }

    @Test
    @Timeout(300)
    void shouldGiveExactResultsWithTheTreeChainingEachHostAndTreeingTheHosts() throws Exception
    {
        makeHosts(3);
        // AllReduce, Broadcast and Reduce run the host-aware tree; the others fall back to the ring
        env = Map.of("JCCL_ALGO", "tree");
        runGrid(new int[] {0, 1, 0, 2});
    }

    /** Aeron's retransmission (UDP), or the kernel's (TCP), keeps every result exact with 1% of packets lost. */
    @ParameterizedTest
    @CsvSource({"aeron, udp", "tcp, tcp"})
    @Timeout(300)
    void shouldStayExactWhenOnePercentOfPacketsAreDropped(final String wire, final String protocol) throws Exception
    {
        final String reason = NetNamespaces.dropUnavailable();
        Assumptions.assumeTrue(reason == null, () -> "packet-loss test skipped: " + reason);
        makeHosts(2);
        env = Map.of("JCCL_NET", wire);
        hosts.drop(1, protocol, 1);
        hosts.drop(0, protocol, 1);
        runGrid(new int[] {0, 1});
        assertTrue(hosts.dropped(1) > 0 && hosts.dropped(0) > 0,
            "packets dropped: " + hosts.dropped(0) + " and " + hosts.dropped(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"aeron", "tcp"})
    @Timeout(180)
    void shouldBreakEverySurvivorNamingTheDeadRankWhenARankOnAnotherHostIsKilled(final String wire) throws Exception
    {
        makeHosts(3);
        env = Map.of("JCCL_NET", wire);
        final int[] hostOfRank = {0, 1, 2};
        final int victim = 1;
        final UniqueId id = UniqueId.create(hosts.address(0), 29500);
        final Process[] ranks = new Process[3];
        final BufferedReader[] out = new BufferedReader[3];
        for (int rank = 0; rank < 3; rank++)
        {
            ranks[rank] = start(hostOfRank, rank, id, "loop", "30000");
            out[rank] = new BufferedReader(new InputStreamReader(ranks[rank].getInputStream()));
        }
        assertEquals("READY", MultiProcessTest.firstLineStartingWith(out[victim], "READY"));
        ranks[victim].destroyForcibly().waitFor();
        final long killedNs = System.nanoTime();
        for (int rank = 0; rank < 3; rank++)
        {
            if (rank != victim)
            {
                final String broken = MultiProcessTest.firstLineStartingWith(out[rank], "BROKEN");
                assertTrue(broken.contains("rank " + victim), "rank " + rank + ": " + broken);
                assertTrue(ranks[rank].waitFor(60, TimeUnit.SECONDS), "rank " + rank + " exits");
                assertEquals(3, ranks[rank].exitValue(), "rank " + rank + " saw the error");
            }
        }
        assertTrue(System.nanoTime() - killedNs < TimeUnit.SECONDS.toNanos(30), "within the 30 s deadline");
        assertNothingLeft(id);
    }

    @ParameterizedTest
    @ValueSource(strings = {"aeron", "tcp"})
    @Timeout(180)
    void shouldFinishExactlyWhenARankOnAnotherHostIsStoppedForThreeSeconds(final String wire) throws Exception
    {
        makeHosts(2);
        env = Map.of("JCCL_NET", wire);
        final int[] hostOfRank = {0, 1};
        final UniqueId id = UniqueId.create(hosts.address(0), 29500);
        final Process[] ranks = new Process[2];
        final BufferedReader[] out = new BufferedReader[2];
        for (int rank = 0; rank < 2; rank++)
        {
            ranks[rank] = start(hostOfRank, rank, id, "steady", "30000");
            out[rank] = new BufferedReader(new InputStreamReader(ranks[rank].getInputStream()));
        }
        assertEquals("READY", MultiProcessTest.firstLineStartingWith(out[1], "READY"));
        MultiProcessTest.signal("STOP", ranks[1]);
        Thread.sleep(3000);
        MultiProcessTest.signal("CONT", ranks[1]);
        for (int rank = 0; rank < 2; rank++)
        {
            assertEquals("rank " + rank + " OK", MultiProcessTest.firstLineStartingWith(out[rank], "rank " + rank));
            assertTrue(ranks[rank].waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, ranks[rank].exitValue(), "rank " + rank);
        }
        assertNothingLeft(id);
    }

    /** Neither the communicator's FIFO files nor any child's Aeron directory is left in /dev/shm. */
    private void assertNothingLeft(final UniqueId id) throws IOException
    {
        assertTrue(MultiProcessTest.leftovers(id).isEmpty(), "left in /dev/shm: " + MultiProcessTest.leftovers(id));
        final Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm))
        {
            try (Stream<Path> files = Files.list(shm))
            {
                final List<Path> aeron = files.filter(p -> children.stream().anyMatch(c -> p.getFileName().toString()
                    .startsWith("jccl-aeron-" + c.pid() + "-"))).toList();
                assertTrue(aeron.isEmpty(), "Aeron directories left: " + aeron);
            }
        }
    }
}
