/**
 * Connectors between ranks and the protocols that frame their FIFOs. Each end of a connector is driven by one
 * thread at a time (the thread that holds its rank's progress claim); the two ends synchronise only through
 * release/acquire counters in the FIFO's memory.
 */
package io.jccl.transport;
