/**
 * jccl's runtime: the {@link io.jccl.core.Jccl} entry point and its {@link io.jccl.core.Context}, communicators,
 * the process-wide progress engine and the executor of Programs. Collective calls may come from any thread; they
 * run on whichever thread waits (or on the daemon progress agent), one thread per rank at a time.
 */
package io.jccl.core;
