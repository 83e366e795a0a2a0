/**
 * Tuners as pure decision logic: given a call shape, which plan runs. Today the settings' pins; the cost model,
 * NCCL's tuner table and the online search come next. No threads, no I/O but files.
 */
package io.jccl.autotune;
