package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.UniqueId;
import io.jccl.testkit.ReferenceCollectives;

import java.nio.ByteBuffer;

/**
 * One rank of {@link MultiProcessTest}, run in its own JVM: joins the communicator with {@link Jccl#connect}, runs
 * every collective over three types, two ops, odd and large counts, in place and not, and checks each result
 * against values computed here from the same formula every rank uses. Exits 0 when every result is exact, 1 with
 * the first difference on stderr otherwise. With {@code -D}{@value #MEMORY_PROPERTY}{@code =shared} every buffer
 * comes from {@link Jccl#allocate(long)} (and is freed after its call), else from {@link HostBuffer#allocate(long)}.
 */
public final class MultiProcessChild
{
    /** The system property that picks the buffers' memory: {@code shared} or {@code plain} (the default). */
    static final String MEMORY_PROPERTY = "jccl.test.memory";
    private static final boolean SHARED = "shared".equals(System.getProperty(MEMORY_PROPERTY));
    /** {@code emulated-cuda}: the rank runs on the device double, its buffers passed as device memory. */
    private static final boolean CUDA = "emulated-cuda".equals(System.getProperty(MEMORY_PROPERTY));
    /**
     * With {@code emulated-cuda}, the environment variable naming a library {@link
     * io.jccl.kernels.cuda.HostBuiltInterpreter} built, whose kernel source the double's launches then run instead of
     * its Java model.
     */
    static final String KERNEL_SOURCE_ENV = "JCCL_TEST_KERNEL_SOURCE";
    /** Host threads per block through the kernel source. */
    private static final int KERNEL_SOURCE_THREADS = 4;
    /** Where the device double's memory lives, so that its IPC handles map in other processes. */
    private static final java.nio.file.Path SHARE = java.nio.file.Path.of(
        java.nio.file.Files.isDirectory(java.nio.file.Path.of("/dev/shm")) ? "/dev/shm" :
        System.getProperty("java.io.tmpdir"));

    private static final DataType[] TYPES = {DataType.FLOAT32, DataType.INT32, DataType.FLOAT64};
    private static final ReduceOp[] OPS = {ReduceOp.SUM, ReduceOp.MAX};
    private static final long[] COUNTS = {1, 1001, 262_147};

    private final Communicator comm;
    private final int rank;
    private final int size;

    private MultiProcessChild(final Communicator comm)
    {
        this.comm = comm;
        this.rank = comm.rank();
        this.size = comm.size();
    }

    /** @return the device double, running the kernel's own source where {@value #KERNEL_SOURCE_ENV} names it. */
    private static io.jccl.kernels.cuda.EmulatedCuda cuda()
    {
        final io.jccl.kernels.cuda.EmulatedCuda cuda = io.jccl.kernels.cuda.EmulatedCuda.shareable(SHARE);
        final String library = System.getenv(KERNEL_SOURCE_ENV);
        return library == null ? cuda : cuda.runKernelSource(
            io.jccl.kernels.cuda.HostBuiltInterpreter.load(java.nio.file.Path.of(library)), KERNEL_SOURCE_THREADS);
    }

    /**
     * @param args rank, size, the UniqueId text, then optionally a mode and a deadline in ms (default 60000).
     *             {@code loop}: AllReduce 64 MiB until a call fails, print {@code READY} after the first, exit 3 with
     *             the error on stdout. {@code steady}: 20 AllReduce of 64 MiB, {@code READY} after the first, exit 0
     *             when every result is exact. {@code mismatch}: rank 0 calls AllReduce, the others AllGather; exit 3
     *             with the error on stdout. {@code abort}: one small AllReduce, then {@code abort()} and exit 0.
     *             {@code late}: rank 0 calls AllReduce and exits 3 with its error on stdout; the others join, sleep
     *             a second past the deadline, close and exit 0. {@code once}: one small AllReduce, close, exit 0.
     *             {@code p2p}: the {@link P2pWorkload} of sends and receives instead of the collectives' grid.
     */
    public static void main(final String[] args)
    {
        final int rank = Integer.parseInt(args[0]);
        final int size = Integer.parseInt(args[1]);
        final String mode = args.length > 3 ? args[3] : "grid";
        final long timeoutMs = args.length > 4 ? Long.parseLong(args[4]) : 60_000;
        final Communicator comm = Jccl.connect(new Context().timeoutMs(timeoutMs).cuda(CUDA ? cuda() : null), rank,
            size, UniqueId.parse(args[2]));
        switch (mode)
        {
            case "loop" -> loopUntilBroken(comm, Long.MAX_VALUE);
            case "steady" -> loopUntilBroken(comm, 20);
            case "mismatch" -> mismatch(comm);
            case "abort" -> abortAfterOneCall(comm);
            case "split" -> splitByParity(comm);
            case "tune" -> tuneWithJitter(comm);
            case "late" -> lateByMoreThanTheDeadline(comm, timeoutMs);
            case "once" -> allReduceOnce(comm);
            case "p2p" -> sendRecv(comm);
            default ->
            {
            }
        }
        try
        {
            new MultiProcessChild(comm).runAll();
            if (!CUDA)
            {
                checkRegistration(comm);
            }
        }
        catch (final AssertionError | RuntimeException ex)
        {
            System.err.println("rank " + rank + ": " + ex);
            ex.printStackTrace();
            System.exit(1);
        }
        printCounters(comm);
        comm.close();
        System.out.println("rank " + rank + " OK");
        System.exit(0);
    }

    /** Runs the {@link P2pWorkload}; exits 0 when every byte arrived exact, 1 with the first difference. */
    private static void sendRecv(final Communicator comm)
    {
        final P2pWorkload workload = new P2pWorkload(comm, SHARED);
        try
        {
            workload.runAll(7);
        }
        catch (final AssertionError | RuntimeException ex)
        {
            System.err.println("rank " + comm.rank() + ": " + ex);
            ex.printStackTrace();
            System.exit(1);
        }
        printCounters(comm);
        System.out.println("CHECKED " + workload.checkedBytes());
        comm.close();
        System.out.println("rank " + comm.rank() + " OK");
        System.exit(0);
    }

    private static void printCounters(final Communicator comm)
    {
        final io.jccl.transport.ConnectorCounters counters = ((LocalCommunicator)comm).counters();
        System.out.println("COUNTERS direct=" + counters.bytesDirect(io.jccl.TransportKind.P2P) + " staged=" +
            (counters.bytesStaged(io.jccl.TransportKind.P2P) + counters.bytesStaged(io.jccl.TransportKind.SHM)));
    }

    /**
     * 240 AllReduce calls of 256 Ki floats under the online tuner ({@code JCCL_TUNER=auto} in the environment), queued
     * in batches of random depth with random pauses on each rank; every result is checked; prints
     * {@code PLANS <hash of the sequence of plans> <distinct plans>} and exits 0.
     */
    private static void tuneWithJitter(final Communicator comm)
    {
        final int rank = comm.rank();
        final long count = 256 << 10;
        final java.util.Random jitter = new java.util.Random(rank * 7919L + 1);
        final HostBuffer send = HostBuffer.allocate(count * 4);
        for (long i = 0; i < count; i++)
        {
            send.byteBuffer().putFloat((int)(i * 4), rank + 1);
        }
        final float expected = comm.size() * (comm.size() + 1) / 2f;
        final java.util.List<String> plans = new java.util.ArrayList<>();
        final HostBuffer[] recv = new HostBuffer[8];
        for (int k = 0; k < recv.length; k++)
        {
            recv[k] = HostBuffer.allocate(count * 4);
        }
        int done = 0;
        while (done < 240)
        {
            final int depth = Math.min(240 - done, 1 + jitter.nextInt(recv.length));
            final io.jccl.Work[] works = new io.jccl.Work[depth];
            for (int k = 0; k < depth; k++)
            {
                works[k] = comm.allReduce(send, recv[k], count, DataType.FLOAT32, ReduceOp.SUM,
                    io.jccl.Stream.DEFAULT);
            }
            for (int k = 0; k < depth; k++)
            {
                works[k].join();
                plans.add(works[k].plan().id());
                if (recv[k].byteBuffer().getFloat(0) != expected ||
                    recv[k].byteBuffer().getFloat((int)(count * 4 - 4)) != expected)
                {
                    throw new AssertionError("call " + (done + k) + " on rank " + rank + " gave " +
                        recv[k].byteBuffer().getFloat(0) + " under plan " + works[k].plan().id());
                }
            }
            done += depth;
            if (jitter.nextInt(4) == 0)
            {
                try
                {
                    Thread.sleep(jitter.nextInt(5));
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }
        }
        System.out.println("PLANS " + plans.hashCode() + " " + new java.util.HashSet<>(plans).size());
        comm.close();
        System.exit(0);
    }

    /**
     * Splits by parity (odd ranks in reverse order), AllReduces each rank's parent rank + 1 in the new communicator,
     * prints {@code SPLIT <new rank> <new size> <sum>} and exits 0.
     */
    private static void splitByParity(final Communicator comm)
    {
        final int rank = comm.rank();
        final Communicator child = comm.split(rank % 2, rank % 2 == 0 ? rank : -rank);
        final HostBuffer buf = HostBuffer.allocate(4 * 1001);
        for (int i = 0; i < 1001; i++)
        {
            buf.byteBuffer().putFloat(i * 4, rank + 1);
        }
        child.allReduce(buf, buf, 1001, DataType.FLOAT32, ReduceOp.SUM);
        System.out.println("SPLIT " + child.rank() + " " + child.size() + " " + buf.byteBuffer().getFloat(4000));
        child.close();
        comm.close();
        System.exit(0);
    }

    /** Registration tells jccl's shared memory (read in place by the other processes) from private memory. */
    private static void checkRegistration(final Communicator comm)
    {
        final HostBuffer shared = Jccl.allocate(4096);
        try (io.jccl.BufferRegistration registration = comm.register(shared))
        {
            if (!registration.peersReadInPlace())
            {
                throw new AssertionError("a buffer of Jccl.allocate registers as staged: " + registration);
            }
        }
        finally
        {
            Jccl.free(shared);
        }
        try (io.jccl.BufferRegistration registration = comm.register(HostBuffer.allocate(4096)))
        {
            if (registration.peersReadInPlace())
            {
                throw new AssertionError("private memory registers as read in place by other processes: " +
                    registration);
            }
        }
    }

    /** @return the buffer as the rank passes it: device memory on the device double (which reads host addresses). */
    private static io.jccl.Buffer dev(final HostBuffer buffer)
    {
        return CUDA ? CudaEmulatedGridTest.device(buffer) : buffer;
    }

    /** @return zeroed memory for a call's buffer: jccl's shared memory or private memory, as the property says. */
    static HostBuffer memory(final long bytes)
    {
        return SHARED ? Jccl.allocate(bytes) : HostBuffer.allocate(bytes);
    }

    /** Frees buffers of {@link #memory(long)} once their call completed (shared memory is freed explicitly). */
    private static void release(final HostBuffer... buffers)
    {
        if (SHARED)
        {
            for (final HostBuffer b : buffers)
            {
                Jccl.free(b);
            }
        }
    }

    private static void loopUntilBroken(final Communicator comm, final long calls)
    {
        final long count = 16 << 20;
        final MultiProcessChild child = new MultiProcessChild(comm);
        final HostBuffer send = child.filled(DataType.FLOAT32, count, 0);
        final HostBuffer recv = memory(count * 4);
        try
        {
            for (long i = 0; i < calls; i++)
            {
                comm.allReduce(dev(send), dev(recv), count, DataType.FLOAT32, ReduceOp.SUM);
                if (i == 0)
                {
                    System.out.println("READY");
                    System.out.flush();
                }
                for (long e = 0; e < count; e += 4099)
                {
                    child.check("allReduce 64 MiB", DataType.FLOAT32, recv, e, child.reduced(ReduceOp.SUM, e));
                }
            }
        }
        catch (final io.jccl.JcclException ex)
        {
            broken(comm, ex);
        }
        comm.close();
        System.out.println("rank " + comm.rank() + " OK");
        System.exit(0);
    }

    private static void lateByMoreThanTheDeadline(final Communicator comm, final long timeoutMs)
    {
        if (comm.rank() == 0)
        {
            final HostBuffer buffer = memory(4096);
            try
            {
                comm.allReduce(buffer, buffer, 1024, DataType.FLOAT32, ReduceOp.SUM);
                System.out.println("NO ERROR");
                System.exit(1);
            }
            catch (final io.jccl.JcclException ex)
            {
                broken(comm, ex);
            }
        }
        try
        {
            Thread.sleep(timeoutMs + 1000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        comm.close();
        System.out.println("rank " + comm.rank() + " OK");
        System.exit(0);
    }

    private static void allReduceOnce(final Communicator comm)
    {
        final HostBuffer buffer = memory(4096);
        comm.allReduce(buffer, buffer, 1024, DataType.FLOAT32, ReduceOp.SUM);
        comm.close();
        System.out.println("rank " + comm.rank() + " OK");
        System.exit(0);
    }

    private static void abortAfterOneCall(final Communicator comm)
    {
        final HostBuffer buffer = memory(4096);
        comm.allReduce(buffer, buffer, 1024, DataType.FLOAT32, ReduceOp.SUM);
        System.out.println("READY");
        System.out.flush();
        comm.abort();
        System.exit(0);
    }

    private static void mismatch(final Communicator comm)
    {
        final HostBuffer send = HostBuffer.allocate(4096 * 4);
        final HostBuffer recv = HostBuffer.allocate(4096L * 4 * comm.size());
        try
        {
            if (comm.rank() == 0)
            {
                comm.allReduce(send, recv, 4096, DataType.FLOAT32, ReduceOp.SUM);
            }
            else
            {
                comm.allGather(send, recv, 4096, DataType.FLOAT32);
            }
            System.out.println("NO ERROR");
            System.exit(1);
        }
        catch (final io.jccl.JcclException ex)
        {
            broken(comm, ex);
        }
    }

    private static void broken(final Communicator comm, final io.jccl.JcclException ex)
    {
        System.out.println("BROKEN " + ex.getClass().getSimpleName() + ": " + ex.getMessage());
        System.out.flush();
        comm.close();
        System.exit(3);
    }

    /** The value element {@code i} of rank {@code r} contributes: small integers, exact in every type. */
    static long value(final int r, final long i)
    {
        return (r * 7L + i) % 13 + r;
    }

    private void runAll()
    {
        for (final DataType type : TYPES)
        {
            for (final long count : COUNTS)
            {
                for (final ReduceOp op : OPS)
                {
                    for (final boolean inPlace : new boolean[] {false, true})
                    {
                        allReduce(type, op, count, inPlace);
                        reduceScatter(type, op, count, inPlace);
                    }
                    reduce(type, op, count);
                }
                for (final boolean inPlace : new boolean[] {false, true})
                {
                    allGather(type, count, inPlace);
                }
                broadcast(type, count);
                allToAll(type, count);
            }
        }
        queuedBackToBack();
    }

    /**
     * AllReduce calls queued back to back before any is waited on, as a training step issues its buckets: on separate
     * slices, chained in place and back and forth between two slices, at sizes that travel in a slot's header, in
     * staged slots, and (from jccl's buffers) by direct reads. A call may run ahead of the one before it where they
     * share no memory; every slice must end as if the calls had run one at a time.
     */
    private void queuedBackToBack()
    {
        final int[][] pattern = {{0, 1}, {2, 3}, {4, 4}, {4, 4}, {1, 5}, {5, 1}, {3, 2}, {0, 0}};
        final int slices = 6;
        for (final int count : new int[] {2, 3000, 262_144})
        {
            final HostBuffer memory = memory((long)count * slices * Long.BYTES);
            final long[][] expected = new long[size][count * slices];
            for (int r = 0; r < size; r++)
            {
                for (int i = 0; i < count * slices; i++)
                {
                    expected[r][i] = value(r, i);
                }
            }
            longs(memory).put(expected[rank]);
            io.jccl.Work last = null;
            for (int k = 0; k < 3 * pattern.length; k++)
            {
                final int[] call = pattern[k % pattern.length];
                last = comm.allReduce(dev(slice(memory, call[0], count)), dev(slice(memory, call[1], count)), count,
                    DataType.INT64, ReduceOp.SUM, io.jccl.Stream.DEFAULT);
                final int[] in = new int[size];
                final int[] out = new int[size];
                java.util.Arrays.fill(in, call[0] * count);
                java.util.Arrays.fill(out, call[1] * count);
                ReferenceCollectives.sumInto(expected, in, out, count);
            }
            last.join();
            final long[] actual = new long[count * slices];
            longs(memory).get(actual);
            for (int i = 0; i < actual.length; i++)
            {
                if (actual[i] != expected[rank][i])
                {
                    throw new AssertionError("rank " + rank + ": queued allReduce calls of " + count +
                        " int64 left slice " + i / count + " element " + i % count + " at " + actual[i] +
                        ", one at a time gives " + expected[rank][i]);
                }
            }
            release(memory);
        }
    }

    private static java.nio.LongBuffer longs(final HostBuffer memory)
    {
        return memory.byteBuffer().duplicate().position((int)memory.offset()).slice()
            .order(java.nio.ByteOrder.nativeOrder()).asLongBuffer().limit((int)(memory.length() / Long.BYTES));
    }

    private static HostBuffer slice(final HostBuffer memory, final int slice, final int count)
    {
        return memory.slice((long)slice * count * Long.BYTES, (long)count * Long.BYTES);
    }

    private void allReduce(final DataType type, final ReduceOp op, final long count, final boolean inPlace)
    {
        final HostBuffer send = filled(type, count, 0);
        final HostBuffer recv = inPlace ? send : memory(count * type.byteSize());
        comm.allReduce(dev(send), dev(recv), count, type, op);
        for (long i = 0; i < count; i++)
        {
            check("allReduce " + op + (inPlace ? " in place" : ""), type, recv, i, reduced(op, i));
        }
        release(inPlace ? new HostBuffer[] {send} : new HostBuffer[] {send, recv});
    }

    private void reduceScatter(final DataType type, final ReduceOp op, final long count, final boolean inPlace)
    {
        final HostBuffer send = filled(type, count * size, 0);
        final long bytes = count * type.byteSize();
        final HostBuffer recv = inPlace ? send.slice(rank * bytes, bytes) : memory(bytes);
        comm.reduceScatter(dev(send), dev(recv), count, type, op);
        for (long i = 0; i < count; i++)
        {
            check("reduceScatter " + op + (inPlace ? " in place" : ""), type, recv, i, reduced(op, rank * count + i));
        }
        release(inPlace ? new HostBuffer[] {send} : new HostBuffer[] {send, recv});
    }

    private void reduce(final DataType type, final ReduceOp op, final long count)
    {
        final int root = 0;
        final HostBuffer send = filled(type, count, 0);
        final HostBuffer recv = memory(count * type.byteSize());
        comm.reduce(dev(send), dev(recv), count, type, op, root);
        for (long i = 0; rank == root && i < count; i++)
        {
            check("reduce " + op, type, recv, i, reduced(op, i));
        }
        release(send, recv);
    }

    private void allGather(final DataType type, final long count, final boolean inPlace)
    {
        final long bytes = count * type.byteSize();
        final HostBuffer recv = memory(bytes * size);
        final HostBuffer send = inPlace ? recv.slice(rank * bytes, bytes) : memory(bytes);
        fill(type, send, count, 0);
        comm.allGather(dev(send), dev(recv), count, type);
        for (int r = 0; r < size; r++)
        {
            for (long i = 0; i < count; i++)
            {
                check("allGather" + (inPlace ? " in place" : ""), type, recv, r * count + i, value(r, i));
            }
        }
        release(inPlace ? new HostBuffer[] {recv} : new HostBuffer[] {send, recv});
    }

    private void broadcast(final DataType type, final long count)
    {
        final int root = size - 1;
        final HostBuffer send = filled(type, count, 0);
        final HostBuffer recv = memory(count * type.byteSize());
        comm.broadcast(dev(send), dev(recv), count, type, root);
        for (long i = 0; i < count; i++)
        {
            check("broadcast", type, recv, i, value(root, i));
        }
        release(send, recv);
    }

    private void allToAll(final DataType type, final long count)
    {
        final HostBuffer send = filled(type, count * size, 0);
        final HostBuffer recv = memory(count * size * type.byteSize());
        comm.allToAll(dev(send), dev(recv), count, type);
        for (int p = 0; p < size; p++)
        {
            for (long i = 0; i < count; i++)
            {
                check("allToAll", type, recv, p * count + i, value(p, rank * count + i));
            }
        }
        release(send, recv);
    }

    private long reduced(final ReduceOp op, final long i)
    {
        long result = value(0, i);
        for (int r = 1; r < size; r++)
        {
            result = op == ReduceOp.SUM ? result + value(r, i) : Math.max(result, value(r, i));
        }
        return result;
    }

    private HostBuffer filled(final DataType type, final long count, final long first)
    {
        final HostBuffer buffer = memory(count * type.byteSize());
        fill(type, buffer, count, first);
        return buffer;
    }

    private void fill(final DataType type, final HostBuffer buffer, final long count, final long first)
    {
        final ByteBuffer b = buffer.byteBuffer();
        final int base = (int)buffer.offset();
        for (long i = 0; i < count; i++)
        {
            final long v = value(rank, first + i);
            final int at = base + (int)(i * type.byteSize());
            switch (type)
            {
                case FLOAT32 -> b.putFloat(at, v);
                case FLOAT64 -> b.putDouble(at, v);
                default -> b.putInt(at, (int)v);
            }
        }
    }

    private void check(final String what, final DataType type, final HostBuffer buffer, final long i,
        final long expected)
    {
        final ByteBuffer b = buffer.byteBuffer();
        final int at = (int)buffer.offset() + (int)(i * type.byteSize());
        final double actual = switch (type)
        {
            case FLOAT32 -> b.getFloat(at);
            case FLOAT64 -> b.getDouble(at);
            default -> b.getInt(at);
        };
        if (actual != expected)
        {
            throw new AssertionError(what + " " + type + " count " + buffer.length() / type.byteSize() +
                " element " + i + ": expected " + expected + ", got " + actual);
        }
    }
}
