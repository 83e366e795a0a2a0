/**
 * The CUDA transport: FIFOs in device memory between ranks of this process (CUDA P2P), in a peer process's device
 * memory mapped by CUDA IPC, or in pinned host memory with a {@link io.jccl.transport.cuda.CudaProxy} that moves
 * their slots through the host transports to ranks of other processes and hosts.
 */
package io.jccl.transport.cuda;
