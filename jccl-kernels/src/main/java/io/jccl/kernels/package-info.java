/**
 * Where a rank's memory lives and its arithmetic runs: {@link io.jccl.kernels.Device} and the
 * {@link io.jccl.kernels.HostDevice}, the host reductions of every element type and operator
 * ({@link io.jccl.kernels.HostReducer}), and the conversions of the narrow floating types
 * ({@link io.jccl.kernels.Float16}, {@link io.jccl.kernels.BFloat16}, {@link io.jccl.kernels.Float8E4M3},
 * {@link io.jccl.kernels.Float8E5M2}) that define their arithmetic, bit for bit with the CUDA kernels.
 * <p>
 * Threading: everything here is stateless or immutable and may be called from any thread at once. A reducer runs on
 * the caller's thread over raw native addresses it does not check; the caller owns the memory and keeps any
 * concurrent writer of the same range away. The reduction loops are the hot path: no allocation, no logging, no
 * exceptions.
 */
package io.jccl.kernels;
