/**
 * Data-parallel training for DJL over jccl: {@link io.jccl.djl.JcclGradientSync}, a training listener that averages
 * every parameter's gradient across the ranks of a communicator after each batch's backward pass, after making the
 * ranks start from one rank's weights (their parameter names, shapes and types checked to agree first).
 * <p>
 * Threads: one {@code JcclGradientSync} serves one rank's trainer and is called from that rank's training thread
 * only. Ranks of one JVM (from {@code Jccl.initAll}) each train on a thread of their own and run their backward
 * passes one at a time through {@link io.jccl.djl.JcclGradientSync#trainBatch}, since DJL's PyTorch engine allows
 * one gradient collector per JVM; their AllReduces run outside that lock.
 */
package io.jccl.djl;
