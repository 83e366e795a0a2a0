package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.Work;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The point-to-point half of {@link FakeCommunicators}: sends and receives between fake ranks with the contract of
 * {@code Communicator.send}/{@code recv}, written from that contract and not from jccl-core. The k-th send from a to
 * b meets the k-th receive at b from a (a different count or type fails both); a rank's calls run in order, one batch
 * after the other, where a batch is the rank's calls of one group (outermost {@code groupStart} to
 * {@code groupEnd} on the calling thread) or a single call outside a group; inside a batch every call progresses
 * together, so a ring shift or an all-to-all cannot deadlock. Data is copied when a send meets its receive, both
 * batches having started. Gather, Scatter and AllToAllv are one batch of sends and receives each, as the contract
 * describes them. {@link FakeCommunicators.Fault#FLIP_OUTPUT} flips the first byte of everything rank 0 receives;
 * {@link FakeCommunicators.Fault#WRITE_PAST_END} writes the byte after it.
 */
final class FakePointToPoint
{
    private final int nRanks;
    private final FakeCommunicators.Fault fault;
    private final Groups groups;
    private final RankQueue[] queues;
    private final Map<Integer, ArrayDeque<Op>> sends = new HashMap<>();
    private final Map<Integer, ArrayDeque<Op>> recvs = new HashMap<>();

    /**
     * @param nRanks the ranks.
     * @param fault  what to get wrong.
     * @param groups the open groups of the factory's threads.
     */
    FakePointToPoint(final int nRanks, final FakeCommunicators.Fault fault, final Groups groups)
    {
        this.nRanks = nRanks;
        this.fault = fault;
        this.groups = groups;
        this.queues = new RankQueue[nRanks];
        for (int r = 0; r < nRanks; r++)
        {
            queues[r] = new RankQueue();
        }
    }

    /** The group depth and open batches of each thread, shared by the communicators of one factory. */
    static final class Groups
    {
        private final ThreadLocal<Open> open = ThreadLocal.withInitial(Open::new);

        /** {@code groupStart}. */
        void start()
        {
            open.get().depth++;
        }

        /** {@code groupEnd}: at the outermost, every rank's batch of the group starts. */
        void end()
        {
            final Open current = open.get();
            if (current.depth == 0)
            {
                throw new IllegalStateException("groupEnd without groupStart");
            }
            if (--current.depth == 0)
            {
                final List<Batch> batches = new ArrayList<>(current.batches.values());
                current.batches.clear();
                for (final Batch batch : batches)
                {
                    batch.submit();
                }
            }
        }
    }

    private static final class Open
    {
        private int depth;
        private final Map<FakePointToPoint.RankQueue, Batch> batches = new LinkedHashMap<>();
    }

    /**
     * @param rank   the sending rank.
     * @param buffer count elements.
     * @param count  elements.
     * @param type   element type.
     * @param peer   the receiving rank.
     * @return the handle of the call (of the rank's batch).
     */
    Work send(final int rank, final Buffer buffer, final long count, final DataType type, final int peer)
    {
        final Batch batch = batch(rank);
        batch.add(new Op(true, rank, peer, host(buffer), count, type));
        return batch.close();
    }

    /**
     * @param rank   the receiving rank.
     * @param buffer count elements.
     * @param count  elements.
     * @param type   element type.
     * @param peer   the sending rank.
     * @return the handle of the call (of the rank's batch).
     */
    Work recv(final int rank, final Buffer buffer, final long count, final DataType type, final int peer)
    {
        final Batch batch = batch(rank);
        batch.add(new Op(false, rank, peer, host(buffer), count, type));
        return batch.close();
    }

    /**
     * Gather as one batch: a send to the root; on the root a receive from every rank into its block.
     *
     * @param rank  the calling rank.
     * @param send  count elements.
     * @param recv  count x n elements on the root.
     * @param count elements per rank.
     * @param type  element type.
     * @param root  the receiving rank.
     * @return the handle of the call.
     */
    Work gather(final int rank, final Buffer send, final Buffer recv, final long count, final DataType type,
        final int root)
    {
        final Batch batch = batch(rank);
        batch.add(new Op(true, rank, root, host(send), count, type));
        for (int r = 0; rank == root && r < nRanks; r++)
        {
            batch.add(new Op(false, rank, r, host(recv.view(type, r * count, count)), count, type));
        }
        return batch.close();
    }

    /**
     * Scatter as one batch: on the root a send of every block to its rank; a receive from the root.
     *
     * @param rank  the calling rank.
     * @param send  count x n elements on the root.
     * @param recv  count elements.
     * @param count elements per rank.
     * @param type  element type.
     * @param root  the sending rank.
     * @return the handle of the call.
     */
    Work scatter(final int rank, final Buffer send, final Buffer recv, final long count, final DataType type,
        final int root)
    {
        final Batch batch = batch(rank);
        for (int r = 0; rank == root && r < nRanks; r++)
        {
            batch.add(new Op(true, rank, r, host(send.view(type, r * count, count)), count, type));
        }
        batch.add(new Op(false, rank, root, host(recv), count, type));
        return batch.close();
    }

    /**
     * AllToAllv as one batch of a send and a receive per peer.
     *
     * @param rank       the calling rank.
     * @param send       the data to send.
     * @param sendCounts elements to each rank.
     * @param sendDispls where each rank's elements start in send.
     * @param recv       where received data goes.
     * @param recvCounts elements from each rank.
     * @param recvDispls where each rank's elements go in recv.
     * @param type       element type.
     * @return the handle of the call.
     */
    Work allToAllv(final int rank, final Buffer send, final long[] sendCounts, final long[] sendDispls,
        final Buffer recv, final long[] recvCounts, final long[] recvDispls, final DataType type)
    {
        final Batch batch = batch(rank);
        for (int p = 0; p < nRanks; p++)
        {
            batch.add(new Op(true, rank, p, host(send.view(type, sendDispls[p], sendCounts[p])), sendCounts[p],
                type));
            batch.add(new Op(false, rank, p, host(recv.view(type, recvDispls[p], recvCounts[p])), recvCounts[p],
                type));
        }
        return batch.close();
    }

    private static HostBuffer host(final Buffer buffer)
    {
        return (HostBuffer)buffer;
    }

    /** @return the rank's batch of this thread's open group, or a batch of its own outside a group. */
    private Batch batch(final int rank)
    {
        final Open open = groups.open.get();
        if (open.depth == 0)
        {
            return new Batch(queues[rank], true);
        }
        return open.batches.computeIfAbsent(queues[rank], queue -> new Batch(queue, false));
    }

    /** Offers a started call to its counterpart; the second of a pair to arrive copies. */
    private void offer(final Op op)
    {
        final int key = op.send ? op.rank * nRanks + op.peer : op.peer * nRanks + op.rank;
        final Op match;
        synchronized (this)
        {
            final ArrayDeque<Op> waiting = (op.send ? recvs : sends).get(key);
            match = waiting == null ? null : waiting.poll();
            if (match == null)
            {
                (op.send ? sends : recvs).computeIfAbsent(key, k -> new ArrayDeque<>()).add(op);
                return;
            }
        }
        final Op send = op.send ? op : match;
        final Op recv = op.send ? match : op;
        if (send.count != recv.count || send.type != recv.type)
        {
            final IllegalArgumentException ex = new IllegalArgumentException("send of " + send.count + " " +
                send.type + " from rank " + send.rank + " met a receive of " + recv.count + " " + recv.type +
                " at rank " + recv.rank);
            send.batch.fail(ex);
            recv.batch.fail(ex);
            return;
        }
        copy(send, recv);
        send.batch.opDone();
        recv.batch.opDone();
    }

    private void copy(final Op send, final Op recv)
    {
        final int bytes = Math.toIntExact(send.count * send.type.byteSize());
        if (bytes == 0)
        {
            return;
        }
        final byte[] data = new byte[bytes];
        send.buffer.byteBuffer().get((int)send.buffer.offset(), data);
        final ByteBuffer target = recv.buffer.byteBuffer();
        final int at = (int)recv.buffer.offset();
        target.put(at, data);
        if (recv.rank == 0 && fault == FakeCommunicators.Fault.FLIP_OUTPUT)
        {
            target.put(at, (byte)(target.get(at) ^ 1));
        }
        if (recv.rank == 0 && fault == FakeCommunicators.Fault.WRITE_PAST_END && at + bytes < target.capacity())
        {
            target.put(at + bytes, (byte)(target.get(at + bytes) ^ 0x40));
        }
    }

    /** A rank's batches, run one after the other. */
    private static final class RankQueue
    {
        private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

        synchronized CompletableFuture<Void> append(final CompletableFuture<Void> done)
        {
            final CompletableFuture<Void> previous = tail;
            tail = done;
            return previous;
        }
    }

    /** One send or receive of a batch. */
    private static final class Op
    {
        private final boolean send;
        private final int rank;
        private final int peer;
        private final HostBuffer buffer;
        private final long count;
        private final DataType type;
        private Batch batch;

        Op(final boolean send, final int rank, final int peer, final HostBuffer buffer, final long count,
            final DataType type)
        {
            this.send = send;
            this.rank = rank;
            this.peer = peer;
            this.buffer = buffer;
            this.count = count;
            this.type = type;
        }
    }

    /** One rank's calls of one group, or one call. */
    private final class Batch
    {
        private final RankQueue queue;
        private final boolean alone;
        private final List<Op> ops = new ArrayList<>();
        private final AtomicInteger remaining = new AtomicInteger();
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        Batch(final RankQueue queue, final boolean alone)
        {
            this.queue = queue;
            this.alone = alone;
        }

        void add(final Op op)
        {
            op.batch = this;
            ops.add(op);
        }

        /** @return the handle; outside a group the batch starts now. */
        Work close()
        {
            if (alone)
            {
                submit();
            }
            return new FakeCommunicators.FakeWork(done);
        }

        void submit()
        {
            remaining.set(ops.size());
            queue.append(done).whenComplete((ignored, error) ->
            {
                if (error != null)
                {
                    done.completeExceptionally(error);
                    return;
                }
                if (ops.isEmpty())
                {
                    done.complete(null);
                }
                for (final Op op : ops)
                {
                    offer(op);
                }
            });
        }

        void opDone()
        {
            if (remaining.decrementAndGet() == 0)
            {
                done.complete(null);
            }
        }

        void fail(final Throwable error)
        {
            done.completeExceptionally(error);
        }
    }
}
