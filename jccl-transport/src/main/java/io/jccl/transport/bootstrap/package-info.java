/**
 * The bootstrap of multi-process communicators: what a launcher says about this process
 * ({@link io.jccl.transport.bootstrap.LaunchEnvironment}), the rendezvous of every rank at rank 0 and the exchange of
 * each rank's {@link io.jccl.transport.bootstrap.PeerInfo} ({@link io.jccl.transport.bootstrap.Bootstrap}), and
 * afterwards a control channel for small all-gathers, barriers and the watch for dead peers.
 * <p>
 * Threads: {@code Bootstrap.connect} runs the rendezvous on the caller's thread; afterwards one daemon thread per
 * process reads every control connection and reports dead peers. {@code allGather} and {@code barrier} may be called
 * from any one thread at a time. Nothing here is on the hot path: it allocates, logs and throws freely.
 */
package io.jccl.transport.bootstrap;
