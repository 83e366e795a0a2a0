package io.jccl.transport.cuda;

/**
 * A connection a rank's kernel drives: the FIFO it reads or writes, and the proxy that moves that FIFO's slots
 * through the host transports when the peer is in another process and the FIFO in pinned host memory.
 */
public interface DeviceConnection
{
    /**
     * @return the FIFO's address as the kernel sees it, zeroed when made; 0 while a FIFO of another process, mapped
     *         by CUDA IPC, waits for that process's handle (never waits).
     */
    long fifo();

    /** @return the proxy of a FIFO in pinned host memory, or null where the kernels pass slots device to device. */
    default CudaProxy proxy()
    {
        return null;
    }
}
