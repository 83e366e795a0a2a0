package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.core.Jccl;
import io.jccl.kernels.cuda.CudaApi;
import org.agrona.BufferUtil;

/**
 * The ranks' buffers in device memory when they run on CUDA ({@code --device}): a device twin of every host
 * allocation of the bench, so the data patterns are written and checked on the host as always and copied across
 * before and after the calls that are checked; the timed calls touch only device memory, as nccl-tests' do.
 */
final class DeviceMirror implements AutoCloseable
{
    private final CudaApi api;
    private final int[] device;
    private final long[] send;
    private final long[] recv;

    private DeviceMirror(final CudaApi api, final int ranks)
    {
        this.api = api;
        this.device = new int[ranks];
        this.send = new long[ranks];
        this.recv = new long[ranks];
    }

    /**
     * @param api   the driver the ranks run on.
     * @param comms this process's ranks.
     * @param bytes bytes of each host allocation.
     * @return device twins of a send and a receive allocation per rank, on the rank's device.
     */
    static DeviceMirror allocate(final CudaApi api, final Communicator[] comms, final long bytes)
    {
        final DeviceMirror mirror = new DeviceMirror(api, comms.length);
        try
        {
            for (int i = 0; i < comms.length; i++)
            {
                mirror.device[i] = Jccl.cudaDevice(comms[i]);
                api.setDevice(mirror.device[i]);
                mirror.send[i] = api.malloc(Math.max(1, bytes));
                mirror.recv[i] = api.malloc(Math.max(1, bytes));
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
        return DeviceBuffer.of((sendSide ? send[local] : recv[local]) + offset, length, device[local]);
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
        api.setDevice(device[local]);
        api.memcpyAsync(send[local], address(sendAlloc), Math.min(bytes, sendAlloc.length()), 0);
        api.memcpyAsync(recv[local], address(recvAlloc), Math.min(bytes, recvAlloc.length()), 0);
        api.streamSynchronize(0);
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
        api.setDevice(device[local]);
        api.memcpyAsync(address(sendAlloc), send[local], Math.min(bytes, sendAlloc.length()), 0);
        api.memcpyAsync(address(recvAlloc), recv[local], Math.min(bytes, recvAlloc.length()), 0);
        api.streamSynchronize(0);
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
            if (send[i] != 0 || recv[i] != 0)
            {
                api.setDevice(device[i]);
                api.free(send[i]);
                api.free(recv[i]);
                send[i] = 0;
                recv[i] = 0;
            }
        }
    }
}
