package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.core.Jccl;
import org.agrona.BufferUtil;

/**
 * The ranks' buffers in device memory when they run on CUDA ({@code --device}): a device twin of every host
 * allocation of the bench, so the data patterns are written and checked on the host as always and copied across
 * before and after the calls that are checked; the timed calls touch only device memory, as nccl-tests' do.
 */
final class DeviceMirror implements AutoCloseable
{
    private final DeviceBuffer[] send;
    private final DeviceBuffer[] recv;

    private DeviceMirror(final int ranks)
    {
        this.send = new DeviceBuffer[ranks];
        this.recv = new DeviceBuffer[ranks];
    }

    /**
     * @param comms this process's ranks, on CUDA.
     * @param bytes bytes of each host allocation.
     * @return device twins of a send and a receive allocation per rank, on the rank's device
     *         ({@link Jccl#allocateDevice}).
     */
    static DeviceMirror allocate(final Communicator[] comms, final long bytes)
    {
        final DeviceMirror mirror = new DeviceMirror(comms.length);
        try
        {
            for (int i = 0; i < comms.length; i++)
            {
                mirror.send[i] = Jccl.allocateDevice(comms[i], bytes);
                mirror.recv[i] = Jccl.allocateDevice(comms[i], bytes);
            }
            return mirror;
        }
        catch (final RuntimeException ex)
        {
            mirror.close();
            throw ex;
        }
    }

    /**
     * @param local    the rank's index in this process.
     * @param sendSide true for the twin of the send allocation.
     * @param offset   bytes into the allocation.
     * @param length   bytes.
     * @return the device range that mirrors that host range.
     */
    Buffer slice(final int local, final boolean sendSide, final long offset, final long length)
    {
        return (sendSide ? send[local] : recv[local]).slice(offset, length);
    }

    /**
     * Copies the first bytes of a rank's host allocations to their twins.
     *
     * @param local     the rank's index in this process.
     * @param sendAlloc its host send allocation.
     * @param recvAlloc its host receive allocation.
     * @param bytes     bytes from the start of each.
     */
    void upload(final int local, final HostBuffer sendAlloc, final HostBuffer recvAlloc, final long bytes)
    {
        Jccl.copyToDevice(send[local], sendAlloc.slice(0, Math.min(bytes, sendAlloc.length())));
        Jccl.copyToDevice(recv[local], recvAlloc.slice(0, Math.min(bytes, recvAlloc.length())));
    }

    /**
     * Copies the first bytes of a rank's twins back to its host allocations.
     *
     * @param local     the rank's index in this process.
     * @param sendAlloc its host send allocation.
     * @param recvAlloc its host receive allocation.
     * @param bytes     bytes from the start of each.
     */
    void download(final int local, final HostBuffer sendAlloc, final HostBuffer recvAlloc, final long bytes)
    {
        Jccl.copyFromDevice(sendAlloc, send[local].slice(0, Math.min(bytes, sendAlloc.length())));
        Jccl.copyFromDevice(recvAlloc, recv[local].slice(0, Math.min(bytes, recvAlloc.length())));
    }

    /**
     * @param buffer host memory.
     * @return its native address (where a device copy reads or writes it).
     */
    static long address(final HostBuffer buffer)
    {
        return BufferUtil.address(buffer.byteBuffer()) + buffer.offset();
    }

    @Override
    public void close()
    {
        for (int i = 0; i < send.length; i++)
        {
            if (send[i] != null)
            {
                Jccl.freeDevice(send[i]);
                send[i] = null;
            }
            if (recv[i] != null)
            {
                Jccl.freeDevice(recv[i]);
                recv[i] = null;
            }
        }
    }
}
