/**
 * jccl's public API: element types, reduction operators, collectives, plans and their knobs, buffers, streams,
 * the {@link io.jccl.Communicator} and {@link io.jccl.Work} interfaces, and the exceptions. Values here are
 * immutable and thread-safe; a Communicator may be called from any thread. JDK only.
 */
package io.jccl;
