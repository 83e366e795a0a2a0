package io.jccl.kernels;

import io.jccl.MemoryKind;

/**
 * A place where a rank's memory lives and its arithmetic runs: host memory with Java reductions, or a CUDA device
 * (its kernels launched through JCuda). Addresses are raw: native host addresses, or device pointers.
 */
public interface Device
{
    /** @return a short name for logs ({@code host}, {@code cuda:0}). */
    String name();

    /** @return the kind of memory {@link #allocate(long)} returns. */
    MemoryKind memoryKind();

    /**
     * @param length bytes, at least 0.
     * @return the address of zeroed memory aligned to 64 bytes; free it with {@link #free(long)}.
     */
    long allocate(long length);

    /** @param address memory from {@link #allocate(long)}; 0 is ignored. */
    void free(long address);

    /**
     * Copies bytes; the ranges must not partially overlap.
     *
     * @param src    source address.
     * @param dst    destination address.
     * @param length bytes.
     */
    void copy(long src, long dst, long length);
}
