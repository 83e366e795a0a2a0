package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclException;
import io.jccl.JcclTimeoutException;
import io.jccl.ReduceOp;
import io.jccl.Work;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A timeout names the rank that holds the call up, not only the neighbour the timed-out rank listens to: first on
 * boards written by hand (each way a chain can end), then on ranks of one process where one rank never makes the
 * call, which also write their flight records.
 */
class WhoIsBehindTest
{
    private static final long FRESH_NS = TimeUnit.SECONDS.toNanos(1);

    @Test
    void shouldFollowTheWaitsToTheRankThatHasNotStartedTheCall()
    {
        final Standings board = Standings.inMemory(4);
        final long now = System.nanoTime();
        // ranks 0, 2 and 3 are in call 5; 0 waits on 3, 3 on 2, 2 on 1; rank 1 finished call 4 and stops there
        for (final int r : new int[] {0, 2, 3})
        {
            Standings.started(board.slot(r), 5);
            Standings.completed(board.slot(r), 4);
        }
        Standings.waiting(board.slot(3), 5, 2, now);
        Standings.waiting(board.slot(2), 5, 1, now);
        Standings.started(board.slot(1), 4);
        Standings.completed(board.slot(1), 4);
        assertEquals("rank 1 holds it up: it has not started allReduce #5 (its last completed call is #4) (rank 0 " +
            "waits on rank 3, rank 3 waits on rank 2, rank 2 waits on rank 1)",
            WhoIsBehind.explain(board, 0, 5, "allReduce #5", 3, FRESH_NS, now));
        assertEquals("rank 1 holds it up: it has not started allReduce #5 (its last completed call is #4)",
            WhoIsBehind.explain(board, 2, 5, "allReduce #5", 1, FRESH_NS, now));
    }

    @Test
    void shouldNameARankThatIsInTheCallButNoLongerSeenWaiting()
    {
        final Standings board = Standings.inMemory(3);
        final long now = System.nanoTime();
        for (int r = 0; r < 3; r++)
        {
            Standings.started(board.slot(r), 2);
            Standings.completed(board.slot(r), 1);
        }
        Standings.waiting(board.slot(2), 2, 1, now);
        // rank 1 last waited 3 s ago: it was stopped since
        Standings.waiting(board.slot(1), 2, 0, now - TimeUnit.SECONDS.toNanos(3));
        final String text = WhoIsBehind.explain(board, 0, 2, "broadcast #2", 2, FRESH_NS, now);
        assertTrue(text.startsWith("rank 1 holds it up: it is in broadcast #2 and has not been seen waiting on a " +
            "peer for 3000 ms: its process is stopped"), text);
    }

    @Test
    void shouldFollowARankStillInAnEarlierCallToTheRankItWaitsOn()
    {
        final Standings board = Standings.inMemory(3);
        final long now = System.nanoTime();
        // rank 0 is in call 7 and waits on 2; rank 2 is still in call 6 waiting on 1; rank 1 is in 6, not waiting
        Standings.started(board.slot(0), 7);
        Standings.completed(board.slot(0), 6);
        Standings.started(board.slot(2), 6);
        Standings.completed(board.slot(2), 5);
        Standings.waiting(board.slot(2), 6, 1, now);
        Standings.started(board.slot(1), 6);
        Standings.completed(board.slot(1), 5);
        final String text = WhoIsBehind.explain(board, 0, 7, "allGather #7", 2, FRESH_NS, now);
        assertTrue(text.startsWith("rank 1 holds it up: it is in call #6 and has not been seen waiting on a peer " +
            "in it"), text);
    }

    @Test
    void shouldFollowTheLastWaitOfARankWhoseCallFailedHowOldSoever()
    {
        final Standings board = Standings.inMemory(3);
        final long now = System.nanoTime();
        for (int r = 0; r < 3; r++)
        {
            Standings.started(board.slot(r), 3);
            Standings.completed(board.slot(r), 2);
        }
        // rank 0 timed out a while ago waiting on rank 1, which stopped in the middle of call 3
        Standings.waiting(board.slot(0), 3, 1, now - TimeUnit.SECONDS.toNanos(5));
        Standings.failed(board.slot(0), 3);
        final String text = WhoIsBehind.explain(board, 2, 3, "allReduce #3", 0, FRESH_NS, now);
        assertTrue(text.startsWith("rank 1 holds it up: it is in allReduce #3 and has not been seen waiting on a " +
            "peer in it") && text.endsWith("(rank 2 waits on rank 0, rank 0 waits on rank 1)"), text);
    }

    @Test
    void shouldSayWhenRanksWaitOnEachOtherAndWhenNoPeerIsAwaited()
    {
        final Standings board = Standings.inMemory(3);
        final long now = System.nanoTime();
        for (int r = 0; r < 3; r++)
        {
            Standings.started(board.slot(r), 0);
        }
        Standings.waiting(board.slot(1), 0, 2, now);
        Standings.waiting(board.slot(2), 0, 1, now);
        assertEquals("ranks [0, 1, 2, 1] wait on each other in reduce #0: they do not run the same calls (or their " +
            "connections lost a message)", WhoIsBehind.explain(board, 0, 0, "reduce #0", 1, FRESH_NS, now));
        assertNull(WhoIsBehind.explain(board, 0, 0, "reduce #0", -1, FRESH_NS, now));
        final Standings fresh = Standings.inMemory(2);
        assertEquals("rank 1 holds it up: it has not started reduce #0 (it has completed no call)",
            WhoIsBehind.explain(fresh, 0, 0, "reduce #0", 1, FRESH_NS, now));
    }

    /**
     * Ranks of one process, every one but {@code stalled} calling a third AllReduce: each caller's timeout (or the
     * first one's, which breaks the others) names the stalled rank, and each rank's flight record lists its calls.
     */
    @ParameterizedTest(name = "{0} ranks, rank {1} never calls")
    @CsvSource({"3, 1", "4, 1", "4, 2"})
    @Timeout(60)
    void shouldNameTheRankThatNeverCallsOnEveryOtherRank(final int size, final int stalled,
        @TempDir final Path records) throws Exception
    {
        final Communicator[] comms = Jccl.initAll(new Context().algorithm(Algorithm.RING).timeoutMs(1500)
            .flightRecordPrefix(records.resolve("rank-").toString()), size);
        try
        {
            final HostBuffer[] buffers = new HostBuffer[size];
            for (int round = 0; round < 2; round++)
            {
                final Work[] works = new Work[size];
                for (int r = 0; r < size; r++)
                {
                    buffers[r] = HostBuffer.allocate(4096);
                    works[r] = comms[r].allReduce(buffers[r], buffers[r], 1024, DataType.FLOAT32, ReduceOp.SUM,
                        io.jccl.Stream.DEFAULT);
                }
                for (final Work w : works)
                {
                    w.join();
                }
            }
            final Work[] third = new Work[size];
            for (int r = 0; r < size; r++)
            {
                if (r != stalled)
                {
                    third[r] = comms[r].allReduce(buffers[r], buffers[r], 1024, DataType.FLOAT32, ReduceOp.SUM,
                        io.jccl.Stream.DEFAULT);
                }
            }
            for (int r = 0; r < size; r++)
            {
                if (r != stalled)
                {
                    final JcclException error = assertThrows(JcclException.class, third[r]::join);
                    assertInstanceOf(JcclTimeoutException.class, error, error.toString());
                    assertTrue(error.getMessage().contains("rank " + stalled + " holds it up: it has not started " +
                        "allReduce #2 (its last completed call is #1)"), "rank " + r + ": " + error.getMessage());
                }
            }
            for (int r = 0; r < size; r++)
            {
                final String record = Files.readString(records.resolve("rank-" + r));
                assertTrue(record.startsWith("jccl flight record of rank " + r + " (pid "), record);
                assertTrue(record.contains("allReduce #0 (count 1024 float sum) plan ") &&
                    record.contains("allReduce #1 (count 1024 float sum) plan "), record);
                assertEquals(r != stalled, record.contains("\n  allReduce #2 (count 1024 float sum) plan "), record);
            }
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.abort();
            }
        }
    }
}
