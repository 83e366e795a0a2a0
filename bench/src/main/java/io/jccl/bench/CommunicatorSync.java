package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.core.Jccl;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;

/**
 * nccl-tests' {@code MPI_Barrier} and {@code MPI_Allreduce} between the processes of a multi-process run, made with
 * jccl itself: an in-place FLOAT64 AllReduce (SUM, MIN or MAX) of a few elements on the communicator the bench
 * measures. A barrier is an AllReduce of one element: no rank leaves it before every rank has entered it.
 * <p>
 * Each process runs one rank on one bench thread ({@code -t 1 -g 1}), so {@code thread} is always 0. Every rank
 * makes the same calls in the same order, and the bench has joined its own calls before each one, so these calls
 * never overlap a measured one; they run on the default stream.
 * <p>
 * {@code -a 0} (rank 0's value) is a SUM in which the other ranks give 0; {@code -a 1} a SUM divided by the ranks.
 */
public final class CommunicatorSync implements BenchSync
{
    private static final Logger LOG = LoggerFactory.getLogger(CommunicatorSync.class);
    private static final int DOUBLE_BYTES = Double.BYTES;

    private final Communicator comm;
    private HostBuffer buffer = HostBuffer.allocate(DOUBLE_BYTES);
    /** True on a rank that runs on CUDA, whose calls use {@link #deviceBuffer}, a device twin of {@link #buffer}. */
    private final boolean onCuda;
    private DeviceBuffer deviceBuffer;
    private volatile boolean aborted;

    /** @param comm this process's rank; this object aborts it on {@link #abort()} and never closes it. */
    public CommunicatorSync(final Communicator comm)
    {
        this.comm = comm;
        this.onCuda = onCuda(comm);
    }

    /** @return true when the rank is jccl's and runs on a CUDA device (false too for ranks that are not jccl's). */
    private static boolean onCuda(final Communicator comm)
    {
        try
        {
            return Jccl.cudaDevice(comm) >= 0;
        }
        catch (final JcclInvalidArgumentException notJccl)
        {
            return false;
        }
    }

    @Override
    public void barrier()
    {
        reduce(new double[] {0.0}, ReduceOp.SUM);
    }

    @Override
    public double allReduce(final int thread, final double value, final int mode)
    {
        if (thread != 0)
        {
            throw new IllegalArgumentException("thread " + thread + ": a process of a multi-process run has one " +
                "bench thread");
        }
        final double local = mode == ThreadSync.RANK0 && comm.rank() != 0 ? 0.0 : value;
        final ReduceOp op = switch (mode)
        {
            case ThreadSync.MIN -> ReduceOp.MIN;
            case ThreadSync.MAX -> ReduceOp.MAX;
            default -> ReduceOp.SUM;
        };
        final double result = reduce(new double[] {local}, op)[0];
        return mode == ThreadSync.AVG ? result / comm.size() : result;
    }

    @Override
    public double[] sumOverProcesses(final double[] values)
    {
        return reduce(values.clone(), ReduceOp.SUM);
    }

    /** Aborts the communicator, which ends a wait in {@link #allReduce} with an exception. */
    @Override
    public void abort()
    {
        aborted = true;
        try
        {
            comm.abort();
        }
        catch (final RuntimeException ex)
        {
            LOG.debug("abort failed", ex);
        }
    }

    /** @return the values combined element-wise over every rank, in the given array. */
    private double[] reduce(final double[] values, final ReduceOp op)
    {
        checkAborted();
        final long length = (long)values.length * DOUBLE_BYTES;
        if (buffer.length() < length)
        {
            buffer = HostBuffer.allocate(length);
        }
        final HostBuffer slice = buffer.slice(0, length);
        final ByteBuffer bytes = slice.byteBuffer();
        final int base = Math.toIntExact(slice.offset());
        for (int i = 0; i < values.length; i++)
        {
            bytes.putDouble(base + i * DOUBLE_BYTES, values[i]);
        }
        if (!onCuda)
        {
            comm.allReduce(slice, slice, values.length, DataType.FLOAT64, op, Stream.DEFAULT).join();
        }
        else
        {
            reduceOnDevice(slice, values.length, op);
        }
        checkAborted();
        for (int i = 0; i < values.length; i++)
        {
            values[i] = bytes.getDouble(base + i * DOUBLE_BYTES);
        }
        return values;
    }

    /** The same call on the rank's device: the values copied across and back (a few bytes, between measurements). */
    private void reduceOnDevice(final HostBuffer slice, final int count, final ReduceOp op)
    {
        if (deviceBuffer == null || buffer.length() > deviceBuffer.length())
        {
            if (deviceBuffer != null)
            {
                Jccl.freeDevice(deviceBuffer);
            }
            deviceBuffer = Jccl.allocateDevice(comm, buffer.length());
        }
        final DeviceBuffer onDevice = deviceBuffer.slice(0, slice.length());
        Jccl.copyToDevice(onDevice, slice);
        comm.allReduce(onDevice, onDevice, count, DataType.FLOAT64, op, Stream.DEFAULT).join();
        Jccl.copyFromDevice(slice, onDevice);
    }

    private void checkAborted()
    {
        if (aborted)
        {
            throw new IllegalStateException("another rank failed");
        }
    }
}
