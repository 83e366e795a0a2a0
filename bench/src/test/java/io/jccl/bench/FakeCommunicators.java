package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for jccl in tests of the bench: ranks in this process whose k-th calls meet, and the last to arrive
 * computes the collective with straightforward loops (floating types rounded to the element type after every step,
 * as jccl's contract says), so the runner, the checker and the table can be tested without the runtime; sends,
 * receives, Gather, Scatter and AllToAllv move data between the fake ranks through {@link FakePointToPoint}. A
 * {@link Fault} makes it wrong on purpose.
 */
final class FakeCommunicators
{
    /** What the stand-in gets wrong. */
    enum Fault
    {
        /** Nothing. */
        NONE,
        /** Flips a bit of rank 0's first output element. */
        FLIP_OUTPUT,
        /** Writes one byte after the end of rank 0's receive buffer. */
        WRITE_PAST_END
    }

    private FakeCommunicators()
    {
    }

    /**
     * @param fault what to get wrong.
     * @return a factory of fake ranks.
     */
    static CommunicatorFactory factory(final Fault fault)
    {
        return factory(fault, new AtomicLong());
    }

    /**
     * @param fault what to get wrong.
     * @param calls counts every call of every rank.
     * @return a factory of fake ranks.
     */
    static CommunicatorFactory factory(final Fault fault, final AtomicLong calls)
    {
        return factory(fault, calls, new java.util.concurrent.ConcurrentLinkedQueue<>());
    }

    /**
     * @param fault  what to get wrong.
     * @param calls  counts every call of every rank.
     * @param counts the element count of every call of every rank, in the order they were made.
     * @return a factory of fake ranks.
     */
    static CommunicatorFactory factory(final Fault fault, final AtomicLong calls,
        final java.util.Queue<Long> counts)
    {
        return factory(fault, calls, counts, new java.util.concurrent.ConcurrentLinkedQueue<>());
    }

    /**
     * @param fault       what to get wrong.
     * @param calls       counts every call of every rank.
     * @param counts      the element count of every call of every rank, in the order they were made.
     * @param recvOffsets the receive buffer's offset in its allocation, of every collective call of every rank.
     * @return a factory of fake ranks.
     */
    static CommunicatorFactory factory(final Fault fault, final AtomicLong calls,
        final java.util.Queue<Long> counts, final java.util.Queue<Long> recvOffsets)
    {
        final FakePointToPoint.Groups groups = new FakePointToPoint.Groups();
        return new CommunicatorFactory()
        {
            @Override
            public Communicator[] create(final BenchOptions options, final SweepCombination combination,
                final int nRanks)
            {
                final Group group = new Group(nRanks, fault, calls, counts, recvOffsets);
                final FakePointToPoint p2p = new FakePointToPoint(nRanks, fault, groups);
                final Communicator[] comms = new Communicator[nRanks];
                for (int r = 0; r < nRanks; r++)
                {
                    comms[r] = new FakeComm(group, r, p2p);
                }
                return comms;
            }

            @Override
            public void groupStart()
            {
                // the collectives meet by their sequence whatever the grouping; sends and receives batch by group
                groups.start();
            }

            @Override
            public void groupEnd()
            {
                groups.end();
            }

            @Override
            public String describe()
            {
                return "fake ranks (" + fault + ")";
            }
        };
    }

    private enum Kind
    {
        ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST, REDUCE, ALL_TO_ALL
    }

    private record Call(Kind kind, HostBuffer send, HostBuffer recv, long count, DataType type, ReduceOp op, int root,
        CompletableFuture<Void> done)
    {
    }

    private static final class Group
    {
        private final int nRanks;
        private final Fault fault;
        private final AtomicLong calls;
        private final java.util.Queue<Long> counts;
        private final java.util.Queue<Long> recvOffsets;
        private final Map<Long, Call[]> pending = new HashMap<>();

        Group(final int nRanks, final Fault fault, final AtomicLong calls, final java.util.Queue<Long> counts,
            final java.util.Queue<Long> recvOffsets)
        {
            this.nRanks = nRanks;
            this.fault = fault;
            this.calls = calls;
            this.counts = counts;
            this.recvOffsets = recvOffsets;
        }

        void arrive(final long sequence, final int rank, final Call call)
        {
            final Call[] calls;
            synchronized (this)
            {
                final Call[] slot = pending.computeIfAbsent(sequence, s -> new Call[nRanks]);
                slot[rank] = call;
                for (final Call c : slot)
                {
                    if (c == null)
                    {
                        return;
                    }
                }
                pending.remove(sequence);
                calls = slot;
            }
            try
            {
                compute(calls);
                for (final Call c : calls)
                {
                    c.done().complete(null);
                }
            }
            catch (final RuntimeException ex)
            {
                for (final Call c : calls)
                {
                    c.done().completeExceptionally(ex);
                }
            }
        }

        private void compute(final Call[] calls)
        {
            final Call first = calls[0];
            final ElementCodec codec = ElementCodec.of(first.type());
            final long count = first.count();
            switch (first.kind())
            {
                case ALL_REDUCE, REDUCE ->
                {
                    final long[] result = new long[(int)count];
                    for (int j = 0; j < count; j++)
                    {
                        result[j] = reduce(calls, codec, j);
                    }
                    for (int r = 0; r < nRanks; r++)
                    {
                        if (first.kind() == Kind.ALL_REDUCE || r == first.root())
                        {
                            write(calls[r].recv(), codec, 0, result);
                        }
                    }
                }
                case BROADCAST ->
                {
                    final long[] data = read(calls[first.root()].send(), codec, 0, count);
                    for (final Call c : calls)
                    {
                        write(c.recv(), codec, 0, data);
                    }
                }
                case ALL_GATHER ->
                {
                    final long[][] blocks = new long[nRanks][];
                    for (int q = 0; q < nRanks; q++)
                    {
                        blocks[q] = read(calls[q].send(), codec, 0, count);
                    }
                    for (final Call c : calls)
                    {
                        for (int q = 0; q < nRanks; q++)
                        {
                            write(c.recv(), codec, q * count, blocks[q]);
                        }
                    }
                }
                case REDUCE_SCATTER ->
                {
                    final long[][] results = new long[nRanks][(int)count];
                    for (int r = 0; r < nRanks; r++)
                    {
                        for (int k = 0; k < count; k++)
                        {
                            results[r][k] = reduce(calls, codec, r * count + k);
                        }
                    }
                    for (int r = 0; r < nRanks; r++)
                    {
                        write(calls[r].recv(), codec, 0, results[r]);
                    }
                }
                case ALL_TO_ALL ->
                {
                    // read every block before writing any: in place, send and recv are the same memory
                    final long[][] inputs = new long[nRanks][];
                    for (int q = 0; q < nRanks; q++)
                    {
                        inputs[q] = read(calls[q].send(), codec, 0, count * nRanks);
                    }
                    for (int r = 0; r < nRanks; r++)
                    {
                        for (int q = 0; q < nRanks; q++)
                        {
                            write(calls[r].recv(), codec, q * count,
                                Arrays.copyOfRange(inputs[q], (int)(r * count), (int)((r + 1) * count)));
                        }
                    }
                }
            }
            if (fault == Fault.FLIP_OUTPUT && count > 0 && (first.kind() != Kind.REDUCE || first.root() == 0))
            {
                final HostBuffer recv = calls[0].recv();
                final int index = (int)recv.offset();
                recv.byteBuffer().put(index, (byte)(recv.byteBuffer().get(index) ^ 1));
            }
            if (fault == Fault.WRITE_PAST_END)
            {
                final HostBuffer recv = calls[0].recv();
                final int index = (int)(recv.offset() + recv.length());
                if (index < recv.byteBuffer().capacity())
                {
                    recv.byteBuffer().put(index, (byte)(recv.byteBuffer().get(index) ^ 0x40));
                }
            }
        }

        private long reduce(final Call[] calls, final ElementCodec codec, final long index)
        {
            final ReduceOp op = calls[0].op();
            final DataType type = codec.type();
            if (!type.isFloatingPoint())
            {
                final long scalar = op.kind() == ReduceOp.Kind.PREMULSUM ? (long)op.scalar() : 1;
                long acc = 0;
                for (int q = 0; q < nRanks; q++)
                {
                    final long x = codec.toLong(read(calls[q].send(), codec, index, 1)[0]);
                    if (q == 0)
                    {
                        acc = x * scalar;
                        continue;
                    }
                    acc = switch (op.kind())
                    {
                        case SUM, AVG -> acc + x;
                        case PREMULSUM -> acc + x * scalar;
                        case PROD -> acc * x;
                        case MAX -> (type.isSigned() ? Long.compare(x, acc) : Long.compareUnsigned(x, acc)) > 0 ?
                            x : acc;
                        case MIN -> (type.isSigned() ? Long.compare(x, acc) : Long.compareUnsigned(x, acc)) < 0 ?
                            x : acc;
                    };
                    acc = codec.toLong(codec.wrap(acc));
                }
                if (op.kind() == ReduceOp.Kind.AVG)
                {
                    acc = type.isSigned() ? acc / nRanks : Long.divideUnsigned(codec.wrap(acc), nRanks);
                }
                return codec.wrap(acc);
            }
            final boolean preMul = op.kind() == ReduceOp.Kind.AVG || op.kind() == ReduceOp.Kind.PREMULSUM;
            final double scalar = round(codec, op.kind() == ReduceOp.Kind.AVG ? 1.0 / nRanks : op.scalar());
            double acc = 0;
            for (int q = 0; q < nRanks; q++)
            {
                double x = codec.toDouble(read(calls[q].send(), codec, index, 1)[0]);
                if (preMul)
                {
                    x = round(codec, x * scalar);
                }
                if (q == 0)
                {
                    acc = x;
                    continue;
                }
                acc = round(codec, switch (op.kind())
                {
                    case SUM, AVG, PREMULSUM -> acc + x;
                    case PROD -> acc * x;
                    case MAX -> Double.isNaN(acc) ? x : Double.isNaN(x) ? acc : Math.max(acc, x);
                    case MIN -> Double.isNaN(acc) ? x : Double.isNaN(x) ? acc : Math.min(acc, x);
                });
            }
            return codec.fromDouble(acc);
        }

        private static double round(final ElementCodec codec, final double value)
        {
            return codec.toDouble(codec.fromDouble(value));
        }

        private static long[] read(final HostBuffer buffer, final ElementCodec codec, final long first,
            final long count)
        {
            final ByteBuffer bytes = buffer.byteBuffer();
            final long[] values = new long[(int)count];
            for (int i = 0; i < count; i++)
            {
                values[i] = codec.read(bytes, (int)(buffer.offset() + (first + i) * codec.byteSize()));
            }
            return values;
        }

        private static void write(final HostBuffer buffer, final ElementCodec codec, final long first,
            final long[] values)
        {
            final ByteBuffer bytes = buffer.byteBuffer();
            for (int i = 0; i < values.length; i++)
            {
                codec.write(bytes, (int)(buffer.offset() + (first + i) * codec.byteSize()), values[i]);
            }
        }
    }

    private static final class FakeComm implements Communicator
    {
        private final Group group;
        private final int rank;
        private final AtomicInteger sequence = new AtomicInteger();
        private final FakePointToPoint p2p;

        FakeComm(final Group group, final int rank, final FakePointToPoint p2p)
        {
            this.group = group;
            this.rank = rank;
            this.p2p = p2p;
        }

        private void count(final long count)
        {
            group.calls.incrementAndGet();
            group.counts.add(count);
        }

        @Override
        public Work send(final Buffer buffer, final long count, final DataType type, final int peer,
            final Stream stream)
        {
            count(count);
            return p2p.send(rank, buffer, count, type, peer);
        }

        @Override
        public Work recv(final Buffer buffer, final long count, final DataType type, final int peer,
            final Stream stream)
        {
            count(count);
            return p2p.recv(rank, buffer, count, type, peer);
        }

        @Override
        public Work gather(final Buffer send, final Buffer recv, final long count, final DataType type,
            final int root, final Stream stream)
        {
            count(count);
            return p2p.gather(rank, send, recv, count, type, root);
        }

        @Override
        public Work scatter(final Buffer send, final Buffer recv, final long count, final DataType type,
            final int root, final Stream stream)
        {
            count(count);
            return p2p.scatter(rank, send, recv, count, type, root);
        }

        @Override
        public Work allToAllv(final Buffer send, final long[] sendCounts, final long[] sendDispls,
            final Buffer recv, final long[] recvCounts, final long[] recvDispls, final DataType type,
            final Stream stream)
        {
            count(Arrays.stream(sendCounts).sum());
            return p2p.allToAllv(rank, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, type);
        }

        @Override
        public int rank()
        {
            return rank;
        }

        @Override
        public int size()
        {
            return group.nRanks;
        }

        private Work submit(final Kind kind, final Buffer send, final Buffer recv, final long count,
            final DataType type, final ReduceOp op, final int root)
        {
            final CompletableFuture<Void> done = new CompletableFuture<>();
            group.calls.incrementAndGet();
            group.counts.add(count);
            group.recvOffsets.add(((HostBuffer)recv).offset());
            group.arrive(sequence.getAndIncrement(), rank,
                new Call(kind, (HostBuffer)send, (HostBuffer)recv, count, type, op, root, done));
            return new FakeWork(done);
        }

        @Override
        public Work allReduce(final Buffer send, final Buffer recv, final long count, final DataType type,
            final ReduceOp op, final Stream stream)
        {
            return submit(Kind.ALL_REDUCE, send, recv, count, type, op, -1);
        }

        @Override
        public Work allGather(final Buffer send, final Buffer recv, final long sendCount, final DataType type,
            final Stream stream)
        {
            return submit(Kind.ALL_GATHER, send, recv, sendCount, type, ReduceOp.SUM, -1);
        }

        @Override
        public Work reduceScatter(final Buffer send, final Buffer recv, final long recvCount, final DataType type,
            final ReduceOp op, final Stream stream)
        {
            return submit(Kind.REDUCE_SCATTER, send, recv, recvCount, type, op, -1);
        }

        @Override
        public Work broadcast(final Buffer send, final Buffer recv, final long count, final DataType type,
            final int root, final Stream stream)
        {
            return submit(Kind.BROADCAST, send, recv, count, type, ReduceOp.SUM, root);
        }

        @Override
        public Work reduce(final Buffer send, final Buffer recv, final long count, final DataType type,
            final ReduceOp op, final int root, final Stream stream)
        {
            return submit(Kind.REDUCE, send, recv, count, type, op, root);
        }

        @Override
        public Work allToAll(final Buffer send, final Buffer recv, final long count, final DataType type,
            final Stream stream)
        {
            return submit(Kind.ALL_TO_ALL, send, recv, count, type, ReduceOp.SUM, -1);
        }

        @Override
        public void abort()
        {
        }

        @Override
        public JcclException asyncError()
        {
            return null;
        }

        @Override
        public void close()
        {
        }
    }

    /** A handle completed by the fake's future. */
    record FakeWork(CompletableFuture<Void> done) implements Work
    {
        @Override
        public boolean isDone()
        {
            return done.isDone();
        }

        @Override
        public void join()
        {
            try
            {
                done.get(60, TimeUnit.SECONDS);
            }
            catch (final Exception ex)
            {
                throw new CompletionException(ex);
            }
        }

        @Override
        public boolean await(final long timeout, final TimeUnit unit)
        {
            try
            {
                done.get(timeout, unit);
                return true;
            }
            catch (final Exception ex)
            {
                return false;
            }
        }

        @Override
        public JcclException error()
        {
            return null;
        }

        @Override
        public CompletableFuture<Void> toCompletableFuture()
        {
            return done;
        }
    }
}
