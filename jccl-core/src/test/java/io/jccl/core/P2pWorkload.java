package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.LongFunction;

/**
 * One rank's part of a point-to-point workload that every rank of a communicator runs at once (threads of one
 * process, or processes): ring shifts both ways, random traffic between random pairs (the rank itself included)
 * issued in a random order per rank, an all-to-all as one group in a random order, all-to-all with random counts,
 * gather and scatter from every root, blocking exchanges larger than a FIFO, and a collective between them. Every
 * byte received is checked against a value computed from (sender, receiver, message, byte), independently of what
 * was sent; the first difference throws an {@link AssertionError} naming it.
 */
final class P2pWorkload
{
    /** Counts of the ring shifts: none, one, odd, several slots of 512 KiB at 8-byte types. */
    static final long[] COUNTS = {0, 1, 7, 1021, 300_001};

    private final Communicator comm;
    private final int rank;
    private final int size;
    private final LongFunction<HostBuffer> allocator;
    /** Buffers to free when a step ends (from jccl's shared allocator), else nothing. */
    private final List<HostBuffer> made = new ArrayList<>();
    private final boolean shared;
    private long checkedBytes;

    /**
     * @param comm   this rank.
     * @param shared true: buffers from {@link Jccl#allocate(long)} (read in place across processes).
     */
    P2pWorkload(final Communicator comm, final boolean shared)
    {
        this.comm = comm;
        this.rank = comm.rank();
        this.size = comm.size();
        this.shared = shared;
        this.allocator = shared ? Jccl::allocate : HostBuffer::allocate;
    }

    /** @return bytes received and checked so far. */
    long checkedBytes()
    {
        return checkedBytes;
    }

    /** Runs every part, with {@code seed} shared by every rank. */
    void runAll(final long seed)
    {
        for (final DataType type : DataType.values())
        {
            for (final long count : COUNTS)
            {
                ringShifts(count, type);
            }
        }
        for (int round = 0; round < 6; round++)
        {
            randomTraffic(seed + round);
        }
        allReduceCheck();
        allToAllInRandomOrder(seed, 4099, DataType.FLOAT32);
        allToAllInRandomOrder(seed + 1, 0, DataType.INT64);
        allToAllv(seed);
        for (int root = 0; root < size; root++)
        {
            gatherAndScatter(root, 3001, DataType.BFLOAT16);
        }
        blockingExchange(3 << 20);
        allReduceCheck();
    }

    /** Each rank sends to rank + 1 and rank - 1 and receives from both, in one group. */
    void ringShifts(final long count, final DataType type)
    {
        final int next = (rank + 1) % size;
        final int prev = (rank - 1 + size) % size;
        final HostBuffer right = filled(rank, next, 0, count, type);
        final HostBuffer left = filled(rank, prev, 1, count, type);
        final HostBuffer fromPrev = buffer(count * type.byteSize());
        final HostBuffer fromNext = buffer(count * type.byteSize());
        Jccl.groupStart();
        final Work work = comm.send(right, count, type, next, Stream.DEFAULT);
        comm.recv(fromPrev, count, type, prev, Stream.DEFAULT);
        comm.recv(fromNext, count, type, next, Stream.DEFAULT);
        comm.send(left, count, type, prev, Stream.DEFAULT);
        Jccl.groupEnd();
        work.join();
        check(fromPrev, prev, rank, 0, count, type, "ring shift right");
        check(fromNext, next, rank, 1, count, type, "ring shift left");
        release();
    }

    /**
     * Between every ordered pair (the rank itself included) 0 to 2 messages of random count and type, drawn from a
     * seed every rank shares; each rank issues its sends and receives interleaved at random (its own seed), keeping
     * the order of the messages of each pair.
     */
    void randomTraffic(final long seed)
    {
        final Random shared = new Random(seed);
        final long[][][] counts = new long[size][size][];
        final DataType[][][] types = new DataType[size][size][];
        for (int s = 0; s < size; s++)
        {
            for (int d = 0; d < size; d++)
            {
                final int messages = shared.nextInt(3);
                counts[s][d] = new long[messages];
                types[s][d] = new DataType[messages];
                for (int m = 0; m < messages; m++)
                {
                    counts[s][d][m] = shared.nextInt(8) == 0 ? 100_000 + shared.nextInt(50_000) :
                        shared.nextInt(3000);
                    types[s][d][m] = DataType.values()[shared.nextInt(DataType.values().length)];
                }
            }
        }
        // the ops of this rank: one queue per peer and direction, drawn from at random
        final List<List<Runnable>> queues = new ArrayList<>();
        final List<Runnable> checks = new ArrayList<>();
        for (int peer = 0; peer < size; peer++)
        {
            final List<Runnable> sends = new ArrayList<>();
            final List<Runnable> recvs = new ArrayList<>();
            for (int m = 0; m < counts[rank][peer].length; m++)
            {
                final long count = counts[rank][peer][m];
                final DataType type = types[rank][peer][m];
                final HostBuffer data = filled(rank, peer, m, count, type);
                final int to = peer;
                sends.add(() -> comm.send(data, count, type, to, Stream.DEFAULT));
            }
            for (int m = 0; m < counts[peer][rank].length; m++)
            {
                final long count = counts[peer][rank][m];
                final DataType type = types[peer][rank][m];
                final HostBuffer into = buffer(count * type.byteSize());
                final int from = peer;
                final int message = m;
                recvs.add(() -> comm.recv(into, count, type, from, Stream.DEFAULT));
                checks.add(() -> check(into, from, rank, message, count, type, "random traffic"));
            }
            queues.add(sends);
            queues.add(recvs);
        }
        final Random order = new Random(seed * 31 + rank);
        Jccl.groupStart();
        while (true)
        {
            final List<List<Runnable>> left = queues.stream().filter(q -> !q.isEmpty()).toList();
            if (left.isEmpty())
            {
                break;
            }
            left.get(order.nextInt(left.size())).remove(0).run();
        }
        // an empty message to itself gives a handle even to a rank with nothing else to do in a round
        final Work work = comm.send(null, 0, DataType.INT8, rank, Stream.DEFAULT);
        comm.recv(null, 0, DataType.INT8, rank, Stream.DEFAULT);
        Jccl.groupEnd();
        work.join();
        checks.forEach(Runnable::run);
        release();
    }

    /** An all-to-all as one group of sends and receives, issued in a random order per rank. */
    void allToAllInRandomOrder(final long seed, final long count, final DataType type)
    {
        final List<Runnable> ops = new ArrayList<>();
        final HostBuffer[] into = new HostBuffer[size];
        for (int peer = 0; peer < size; peer++)
        {
            final int p = peer;
            final HostBuffer data = filled(rank, peer, 7, count, type);
            into[peer] = buffer(count * type.byteSize());
            ops.add(() -> comm.send(data, count, type, p, Stream.DEFAULT));
            ops.add(() -> comm.recv(into[p], count, type, p, Stream.DEFAULT));
        }
        Collections.shuffle(ops, new Random(seed * 17 + rank));
        Jccl.groupStart();
        ops.forEach(Runnable::run);
        final Work work = comm.send(null, 0, type, rank, Stream.DEFAULT);
        comm.recv(null, 0, type, rank, Stream.DEFAULT);
        Jccl.groupEnd();
        work.join();
        for (int peer = 0; peer < size; peer++)
        {
            check(into[peer], peer, rank, 7, count, type, "all-to-all in random order");
        }
        release();
    }

    /** {@link Communicator#allToAllv} with counts drawn from a seed every rank shares, packed with gaps. */
    void allToAllv(final long seed)
    {
        final DataType type = DataType.INT32;
        final Random shared = new Random(seed);
        final long[][] counts = new long[size][size];
        for (final long[] row : counts)
        {
            for (int d = 0; d < size; d++)
            {
                row[d] = shared.nextInt(4) == 0 ? 0 : shared.nextInt(20_000);
            }
        }
        final long[] sendCounts = counts[rank].clone();
        final long[] recvCounts = new long[size];
        final long[] sendDispls = new long[size];
        final long[] recvDispls = new long[size];
        long sendEnd = 0;
        long recvEnd = 0;
        for (int p = 0; p < size; p++)
        {
            recvCounts[p] = counts[p][rank];
            sendDispls[p] = sendEnd + 3;
            sendEnd = sendDispls[p] + sendCounts[p];
            recvDispls[p] = recvEnd + 5;
            recvEnd = recvDispls[p] + recvCounts[p];
        }
        final HostBuffer send = buffer(sendEnd * type.byteSize());
        final HostBuffer recv = buffer(recvEnd * type.byteSize());
        for (int p = 0; p < size; p++)
        {
            fill(send, sendDispls[p] * type.byteSize(), rank, p, 9, sendCounts[p], type);
        }
        comm.allToAllv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, type, Stream.DEFAULT).join();
        for (int p = 0; p < size; p++)
        {
            check(recv, recvDispls[p] * type.byteSize(), p, rank, 9, recvCounts[p], type, "allToAllv");
        }
        release();
    }

    /** {@link Communicator#gather} to a root, then {@link Communicator#scatter} from it. */
    void gatherAndScatter(final int root, final long count, final DataType type)
    {
        final long bytes = count * type.byteSize();
        final HostBuffer mine = filled(rank, root, 11, count, type);
        final HostBuffer all = rank == root ? buffer(bytes * size) : null;
        comm.gather(mine, all, count, type, root, Stream.DEFAULT).join();
        if (rank == root)
        {
            for (int p = 0; p < size; p++)
            {
                check(all, p * bytes, p, root, 11, count, type, "gather to " + root);
            }
        }
        final HostBuffer parts = rank == root ? buffer(bytes * size) : null;
        if (rank == root)
        {
            for (int p = 0; p < size; p++)
            {
                fill(parts, p * bytes, root, p, 12, count, type);
            }
        }
        final HostBuffer part = buffer(bytes);
        comm.scatter(parts, part, count, type, root, Stream.DEFAULT).join();
        check(part, root, rank, 12, count, type, "scatter from " + root);
        release();
    }

    /**
     * Blocking send and receive outside a group between ranks 2k and 2k+1, the lower sending first: larger than a
     * FIFO, so the sender waits for its receiver slot by slot.
     */
    void blockingExchange(final long count)
    {
        final DataType type = DataType.FLOAT32;
        final int peer = rank ^ 1;
        if (peer >= size)
        {
            return;
        }
        final HostBuffer data = filled(rank, peer, 13, count, type);
        final HostBuffer into = buffer(count * type.byteSize());
        if (rank < peer)
        {
            comm.send(data, count, type, peer);
            comm.recv(into, count, type, peer);
        }
        else
        {
            comm.recv(into, count, type, peer);
            comm.send(data, count, type, peer);
        }
        check(into, peer, rank, 13, count, type, "blocking exchange");
        release();
    }

    /** An AllReduce between the point-to-point parts: the collectives' numbering is not the sends'. */
    void allReduceCheck()
    {
        final HostBuffer one = buffer(8);
        one.byteBuffer().putLong(0, rank + 1);
        comm.allReduce(one, one, 1, DataType.INT64, ReduceOp.SUM);
        final long expected = (long)size * (size + 1) / 2;
        if (one.byteBuffer().getLong(0) != expected)
        {
            throw new AssertionError("rank " + rank + ": AllReduce after sends gave " + one.byteBuffer().getLong(0) +
                ", expected " + expected);
        }
        release();
    }

    /** @return byte {@code b} of message {@code m} from {@code src} to {@code dst}: never all zero in a message. */
    static byte pattern(final int src, final int dst, final int m, final long b)
    {
        final long h = (src * 1_000_003L + dst) * 1_000_033L + m * 7919L + b * 0x9E3779B97F4A7C15L;
        return (byte)(h ^ (h >>> 29) ^ (h >>> 47));
    }

    private HostBuffer filled(final int src, final int dst, final int m, final long count, final DataType type)
    {
        final HostBuffer b = buffer(count * type.byteSize());
        fill(b, 0, src, dst, m, count, type);
        return b;
    }

    private static void fill(final HostBuffer b, final long at, final int src, final int dst, final int m,
        final long count, final DataType type)
    {
        final long bytes = count * type.byteSize();
        for (long i = 0; i < bytes; i++)
        {
            b.byteBuffer().put((int)(at + i), pattern(src, dst, m, i));
        }
    }

    private void check(final HostBuffer b, final int src, final int dst, final int m, final long count,
        final DataType type, final String what)
    {
        check(b, 0, src, dst, m, count, type, what);
    }

    private void check(final HostBuffer b, final long at, final int src, final int dst, final int m,
        final long count, final DataType type, final String what)
    {
        final long bytes = count * type.byteSize();
        for (long i = 0; i < bytes; i++)
        {
            final byte got = b.byteBuffer().get((int)(at + i));
            if (got != pattern(src, dst, m, i))
            {
                throw new AssertionError(what + ": rank " + dst + " got byte " + i + " of " + bytes + " of message " +
                    m + " from rank " + src + " (" + count + " " + type.ncclTestsName() + ") as " + got +
                    ", expected " + pattern(src, dst, m, i));
            }
        }
        checkedBytes += bytes;
    }

    /** @return a buffer of at least one byte (a 0-byte buffer is still a buffer), filled with a marker. */
    private HostBuffer buffer(final long bytes)
    {
        final HostBuffer b = allocator.apply(Math.max(1, bytes));
        for (long i = 0; i < bytes; i++)
        {
            b.byteBuffer().put((int)i, (byte)0x5A);
        }
        if (shared)
        {
            made.add(b);
        }
        return b;
    }

    private void release()
    {
        for (final HostBuffer b : made)
        {
            Jccl.free(b);
        }
        made.clear();
    }
}
