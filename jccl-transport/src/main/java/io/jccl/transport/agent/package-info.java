/**
 * The one way jccl runs a daemon loop: {@link io.jccl.transport.agent.AgentThread} runs an Agrona
 * {@link org.agrona.concurrent.Agent} on a named daemon thread through an {@link org.agrona.concurrent.AgentRunner},
 * with one error path and a bounded close. Its users are the network thread and the bootstrap's watch in this module
 * and the progress agent of {@code jccl-core}.
 * <p>
 * It lives in {@code jccl-transport} because that is the lowest module with both users above or in it and Agrona
 * below it: {@code jccl-core} depends on this module, never the reverse, and {@code jccl-kernels}, the only module
 * below with Agrona, owns devices, not threads.
 * <p>
 * Threads: an {@code AgentThread} is started and closed by its owner on any thread; its agent's duty cycle and error
 * path run on its own thread. Nothing here is on a per-call path: a duty cycle adds one call of the agent and one of
 * its idle strategy, and allocates nothing.
 */
package io.jccl.transport.agent;
