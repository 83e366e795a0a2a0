package io.jccl.transport.bootstrap;

import io.jccl.JcclAbortedException;
import io.jccl.JcclException;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclRemoteException;
import io.jccl.JcclTimeoutException;
import io.jccl.UniqueId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.jccl.transport.bootstrap.BootstrapTestSupport.TIMEOUT_MS;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.UPPER_BOUND_S;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.closeAll;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.connectAll;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.get;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.info;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.newId;
import static io.jccl.transport.bootstrap.BootstrapTestSupport.runAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BootstrapTest
{
    @ParameterizedTest
    @ValueSource(ints = { 2, 3, 4 })
    @Timeout(120)
    void shouldSeeTheSameTableWhenRanksStartInRandomOrder(final int size) throws Exception
    {
        final List<Integer> order = new ArrayList<>();
        for (int r = 0; r < size; r++)
        {
            order.add(r);
        }
        Collections.shuffle(order, new Random(size));
        Collections.swap(order, order.indexOf(0), size - 1);
        final Bootstrap[] ranks = connectAll(newId(), size, order);
        try
        {
            for (int r = 0; r < size; r++)
            {
                assertEquals(r, ranks[r].rank());
                assertEquals(size, ranks[r].size());
                assertEquals(ranks[0].peers(), ranks[r].peers());
                final PeerInfo mine = ranks[r].peers().get(r);
                assertEquals(info(r), mine);
                assertArrayEquals(("endpoint-" + r).getBytes(StandardCharsets.UTF_8), mine.endpoint());
                assertTrue(mine.sameHost(ranks[r].peers().get(0)));
            }
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldConnectWhenRankZeroStartsAfterEveryOtherRankHasTried() throws Exception
    {
        final int size = 3;
        final UniqueId id = newId();
        final Set<Integer> tried = ConcurrentHashMap.newKeySet();
        final CountDownLatch allTried = new CountDownLatch(size - 1);
        final BootstrapListener listener = new BootstrapListener()
        {
            @Override
            public void attemptFailed(final int rank, final String reason)
            {
                if (tried.add(rank))
                {
                    allTried.countDown();
                }
            }
        };
        final ExecutorService executor = Executors.newFixedThreadPool(size);
        Bootstrap[] ranks = new Bootstrap[size];
        try
        {
            final List<Future<Bootstrap>> peers = new ArrayList<>();
            for (int r = 1; r < size; r++)
            {
                final int rank = r;
                peers.add(executor.submit(() -> Bootstrap.connect(id, rank, size, info(rank), TIMEOUT_MS, listener)));
            }
            assertTrue(allTried.await(UPPER_BOUND_S, TimeUnit.SECONDS));
            ranks[0] = Bootstrap.connect(id, 0, size, info(0), TIMEOUT_MS);
            for (int r = 1; r < size; r++)
            {
                ranks[r] = get(peers.get(r - 1));
            }
            for (int r = 0; r < size; r++)
            {
                assertEquals(List.of(info(0), info(1), info(2)), ranks[r].peers());
            }
        }
        finally
        {
            executor.shutdownNow();
            closeAll(ranks);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = { 1, 2, 3, 4 })
    @Timeout(120)
    void shouldGatherEveryRanksBytesWhenAllGatherIsCalled(final int size) throws Exception
    {
        final Bootstrap[] ranks = connectAll(newId(), size);
        try
        {
            final int rounds = 5;
            final List<List<byte[][]>> results = runAll(size, (r) ->
            {
                final List<byte[][]> mine = new ArrayList<>();
                for (int round = 0; round < rounds; round++)
                {
                    mine.add(ranks[r].allGather(contribution(r, round)));
                }
                return mine;
            });
            for (int r = 0; r < size; r++)
            {
                for (int round = 0; round < rounds; round++)
                {
                    final byte[][] gathered = results.get(r).get(round);
                    assertEquals(size, gathered.length);
                    for (int k = 0; k < size; k++)
                    {
                        assertArrayEquals(contribution(k, round), gathered[k], "rank " + r + " round " + round);
                    }
                }
            }
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = { 2, 3, 4 })
    @Timeout(120)
    void shouldReleaseNoRankFromBarrierBeforeEveryRankArrives(final int size) throws Exception
    {
        final Bootstrap[] ranks = connectAll(newId(), size);
        try
        {
            final int rounds = 5;
            final AtomicInteger[] arrived = new AtomicInteger[rounds];
            for (int round = 0; round < rounds; round++)
            {
                arrived[round] = new AtomicInteger();
            }
            final List<List<Integer>> seen = runAll(size, (r) ->
            {
                final List<Integer> counts = new ArrayList<>();
                for (int round = 0; round < rounds; round++)
                {
                    arrived[round].incrementAndGet();
                    ranks[r].barrier();
                    counts.add(arrived[round].get());
                }
                return counts;
            });
            for (int r = 0; r < size; r++)
            {
                for (int round = 0; round < rounds; round++)
                {
                    assertEquals(size, seen.get(r).get(round), "rank " + r + " round " + round);
                }
            }
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldNameTheMissingRankWhenItNeverConnects() throws Exception
    {
        final UniqueId id = newId();
        final long timeoutMs = 1500;
        final List<Exception> failures = runAll(2, (r) ->
        {
            try
            {
                Bootstrap.connect(id, r, 3, info(r), timeoutMs).close();
                return null;
            }
            catch (final RuntimeException ex)
            {
                return ex;
            }
        });
        assertInstanceOf(JcclTimeoutException.class, failures.get(0));
        assertTrue(failures.get(0).getMessage().matches(".*waiting for ranks \\[(1, )?2] of 3.*"),
            failures.get(0).getMessage());
        assertInstanceOf(JcclTimeoutException.class, failures.get(1));
    }

    @Test
    @Timeout(120)
    void shouldNameRankZeroWhenItNeverStarts()
    {
        final JcclTimeoutException ex = assertThrows(JcclTimeoutException.class,
            () -> Bootstrap.connect(newId(), 1, 2, info(1), 500));
        assertTrue(ex.getMessage().contains("rank 0 at 127.0.0.1:"), ex.getMessage());
    }

    @Test
    @Timeout(120)
    void shouldNameTheMissingRankWhenAllGatherTimesOut() throws Exception
    {
        final UniqueId id = newId();
        final Bootstrap[] ranks = runAll(3, (r) -> Bootstrap.connect(id, r, 3, info(r), 2000))
            .toArray(new Bootstrap[0]);
        try
        {
            final List<Exception> failures = runAll(2, (r) ->
            {
                try
                {
                    ranks[r].barrier();
                    return null;
                }
                catch (final RuntimeException ex)
                {
                    return ex;
                }
            });
            assertInstanceOf(JcclTimeoutException.class, failures.get(0));
            assertTrue(failures.get(0).getMessage().contains("waiting for ranks [2]"), failures.get(0).getMessage());
            assertInstanceOf(JcclTimeoutException.class, failures.get(1));
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldReportTheDeadRankToEverySurvivorWhenAPeerCrashes() throws Exception
    {
        final Bootstrap[] ranks = connectAll(newId(), 3);
        try
        {
            final List<CompletableFuture<JcclException>> reports = watch(ranks);
            ranks[2].crashForTest();
            for (int r = 0; r < 2; r++)
            {
                final JcclException report = get(reports.get(r));
                assertTrue(report.getMessage().startsWith("rank 2 ("), report.getMessage());
                assertTrue(report.getMessage().contains("died"), report.getMessage());
            }
            final List<Exception> failures = runAll(2, (r) ->
            {
                try
                {
                    ranks[r].barrier();
                    return null;
                }
                catch (final RuntimeException ex)
                {
                    return ex;
                }
            });
            for (final Exception failure : failures)
            {
                assertInstanceOf(JcclRemoteException.class, failure);
                assertTrue(failure.getMessage().contains("rank 2 ("), failure.getMessage());
            }
            assertFalse(reports.get(2).isDone());
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldReportRankZeroToEveryPeerWhenRankZeroCrashes() throws Exception
    {
        final Bootstrap[] ranks = connectAll(newId(), 3);
        try
        {
            final List<CompletableFuture<JcclException>> reports = watch(ranks);
            ranks[0].crashForTest();
            for (int r = 1; r < 3; r++)
            {
                final JcclException report = get(reports.get(r));
                assertTrue(report.getMessage().startsWith("rank 0 ("), report.getMessage());
                assertTrue(report.getMessage().contains("died"), report.getMessage());
                final JcclRemoteException ex = assertThrows(JcclRemoteException.class, ranks[r]::barrier);
                assertTrue(ex.getMessage().contains("rank 0 ("), ex.getMessage());
            }
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldNotReportAPeerThatClosedCleanly() throws Exception
    {
        final Bootstrap[] ranks = connectAll(newId(), 3);
        final List<List<JcclException>> reports = new ArrayList<>();
        final CompletableFuture<JcclException> firstAtRoot = new CompletableFuture<>();
        for (int r = 0; r < 3; r++)
        {
            final List<JcclException> list = new CopyOnWriteArrayList<>();
            reports.add(list);
            final boolean root = r == 0;
            ranks[r].onPeerFailure((ex) ->
            {
                list.add(ex);
                if (root)
                {
                    firstAtRoot.complete(ex);
                }
            });
        }
        try
        {
            // close() returns once rank 0 has handled the goodbye, so a wrong report of rank 2 would come first
            ranks[2].close();
            ranks[1].crashForTest();
            assertTrue(get(firstAtRoot).getMessage().startsWith("rank 1 ("), firstAtRoot.get().getMessage());
            assertEquals(1, reports.get(0).size(), reports.get(0).toString());
            assertEquals(List.of(), reports.get(1));
            assertEquals(List.of(), reports.get(2));
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldNotReportRankZeroWhenItClosedCleanly() throws Exception
    {
        final Bootstrap[] ranks = connectAll(newId(), 2);
        final List<JcclException> reports = new CopyOnWriteArrayList<>();
        ranks[1].onPeerFailure(reports::add);
        try
        {
            ranks[0].close();
            final JcclRemoteException ex = assertThrows(JcclRemoteException.class, ranks[1]::barrier);
            assertTrue(ex.getMessage().contains("rank 0 has closed"), ex.getMessage());
            ranks[1].close();
            assertEquals(List.of(), reports);
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldDeliverAnEarlierFailureWhenTheListenerIsSetLate() throws Exception
    {
        final Bootstrap[] ranks = connectAll(newId(), 2);
        try
        {
            final CompletableFuture<JcclException> early = new CompletableFuture<>();
            ranks[0].onPeerFailure(early::complete);
            ranks[1].crashForTest();
            get(early);
            final List<JcclException> late = new CopyOnWriteArrayList<>();
            ranks[0].onPeerFailure(late::add);
            assertEquals(1, late.size());
            assertTrue(late.get(0).getMessage().startsWith("rank 1 ("), late.get(0).getMessage());
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @Test
    @Timeout(120)
    void shouldTellEveryPeerThatARankAbortedNamingItAndNeverCallItDead() throws Exception
    {
        for (final int aborting : new int[] {1, 0})
        {
            final Bootstrap[] ranks = connectAll(newId(), 3);
            final List<List<JcclException>> reports = new ArrayList<>();
            final List<CompletableFuture<JcclException>> first = new ArrayList<>();
            for (int r = 0; r < 3; r++)
            {
                final List<JcclException> list = new CopyOnWriteArrayList<>();
                final CompletableFuture<JcclException> report = new CompletableFuture<>();
                reports.add(list);
                first.add(report);
                ranks[r].onPeerFailure((ex) ->
                {
                    list.add(ex);
                    report.complete(ex);
                });
            }
            try
            {
                ranks[aborting].abort();
                for (int r = 0; r < 3; r++)
                {
                    if (r != aborting)
                    {
                        final JcclException ex = get(first.get(r));
                        assertTrue(ex instanceof JcclAbortedException, ex.toString());
                        assertTrue(ex.getMessage().startsWith("rank " + aborting + " (") &&
                            ex.getMessage().endsWith("aborted the communicator"), ex.getMessage());
                    }
                }
                // the end of the aborted rank's connection follows its notice within microseconds: a report of a
                // death would come now or never
                Thread.sleep(300);
                for (int r = 0; r < 3; r++)
                {
                    assertEquals(r == aborting ? 0 : 1, reports.get(r).size(), "rank " + r + ": " + reports.get(r));
                }
            }
            finally
            {
                closeAll(ranks);
            }
        }
    }

    @Test
    @Timeout(120)
    void shouldGiveEveryOtherRankAnAnnouncedTimeoutAsATimeoutAndStayConnected() throws Exception
    {
        final Bootstrap[] ranks = connectAll(newId(), 3);
        final List<CompletableFuture<JcclException>> reports = watch(ranks);
        try
        {
            final String reason = "allReduce #4 timed out after 5 ms on rank 2; rank 1 holds it up";
            ranks[2].announceFailure(new JcclTimeoutException(reason));
            for (final int r : new int[] {0, 1})
            {
                final JcclException ex = get(reports.get(r));
                assertTrue(ex instanceof JcclTimeoutException, ex.toString());
                assertEquals(reason, ex.getMessage());
            }
            ranks[0].announceFailure(new JcclRemoteException("rank 0 found a mismatch"));
            final JcclException atTwo = get(reports.get(2));
            assertEquals(JcclRemoteException.class, atTwo.getClass());
            assertEquals("rank 0 found a mismatch", atTwo.getMessage());
            // nobody left: the control channel still carries a barrier of all three
            final CompletableFuture<?>[] barriers = new CompletableFuture<?>[3];
            for (int r = 0; r < 3; r++)
            {
                barriers[r] = CompletableFuture.runAsync(ranks[r]::barrier);
            }
            for (final CompletableFuture<?> barrier : barriers)
            {
                get(barrier);
            }
            assertThrows(JcclInvalidArgumentException.class, () -> ranks[0].announceFailure(null));
        }
        finally
        {
            closeAll(ranks);
        }
    }

    @Test
    void shouldRejectBadArgumentsBeforeConnecting()
    {
        final UniqueId id = newId();
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> Bootstrap.connect(id, 2, 2, info(2), TIMEOUT_MS)).getMessage().contains("rank=2"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> Bootstrap.connect(id, 0, 0, info(0), TIMEOUT_MS)).getMessage().contains("size=0"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> Bootstrap.connect(id, 0, 2, info(1), TIMEOUT_MS)).getMessage().contains("self"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> Bootstrap.connect(id, 0, 2, info(0), 0)).getMessage().contains("timeoutMs=0"));
        assertTrue(assertThrows(JcclInvalidArgumentException.class,
            () -> Bootstrap.connect(null, 0, 2, info(0), 1)).getMessage().contains("id"));
    }

    @Test
    void shouldGatherAloneWhenThereIsOneRank()
    {
        try (Bootstrap alone = Bootstrap.connect(newId(), 0, 1, info(0), TIMEOUT_MS))
        {
            assertEquals(List.of(info(0)), alone.peers());
            assertArrayEquals(new byte[][]{ { 7 } }, alone.allGather(new byte[]{ 7 }));
            alone.barrier();
            assertThrows(JcclInvalidArgumentException.class,
                () -> alone.allGather(new byte[Bootstrap.MAX_GATHER_LENGTH + 1]));
        }
    }

    @Test
    void shouldRejectANullListener()
    {
        try (Bootstrap alone = Bootstrap.connect(newId(), 0, 1, info(0), TIMEOUT_MS))
        {
            assertThrows(JcclInvalidArgumentException.class, () -> alone.onPeerFailure(null));
        }
    }

    private static List<CompletableFuture<JcclException>> watch(final Bootstrap[] ranks)
    {
        final List<CompletableFuture<JcclException>> reports = new ArrayList<>();
        for (final Bootstrap rank : ranks)
        {
            final CompletableFuture<JcclException> report = new CompletableFuture<>();
            rank.onPeerFailure(report::complete);
            reports.add(report);
        }
        return reports;
    }

    /** Unique per rank and round, of varying length (empty for rank 0 in round 0). */
    private static byte[] contribution(final int rank, final int round)
    {
        final byte[] bytes = new byte[(rank * 7 + round * 3) % 11 + rank + round];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = (byte)(rank * 31 + round * 17 + i);
        }
        return bytes;
    }
}
