/**
 * Tuners as pure decision logic: given a call shape ({@link io.jccl.autotune.PlanRequest}), which
 * {@link io.jccl.Plan} runs. Every tuner answers the same on every rank for the same inputs.
 * <ul>
 *     <li>{@link io.jccl.autotune.PlanConstraints}: what the {@code JCCL_*} settings allow, in NCCL's syntax
 *     ({@code JCCL_ALGO=allreduce:tree;allgather:ring}, {@code JCCL_PROTO=^LL128}, channels, threads, chunk).</li>
 *     <li>{@link io.jccl.autotune.KnobSpace}: the plans the host backend offers under them, in a fixed order.</li>
 *     <li>{@link io.jccl.autotune.CostModel} and {@link io.jccl.autotune.CostModelTuner}, the default tuner: an
 *     alpha-beta model of the host ({@link io.jccl.autotune.Calibration}) and the plan of least predicted time.</li>
 *     <li>{@link io.jccl.autotune.TableTuner}: NCCL's example tuner plugin's CSV table, with jccl's extra knobs in a
 *     trailing {@code # jccl:} comment.</li>
 *     <li>{@link io.jccl.autotune.TunerChain}: pins over the table over the cost model.</li>
 *     <li>{@link io.jccl.autotune.PinnedTuner}: the settings' pins alone.</li>
 *     <li>{@link io.jccl.autotune.OnlineTuner}: AutoCCL's online search per task
 *     ({@link io.jccl.autotune.TaskKey}), timed by the leader rank and published to every rank in lock-step
 *     {@link io.jccl.autotune.TuningRound}s; {@link io.jccl.autotune.OnlineTunerConfig} holds its
 *     {@code JCCL_TUNER_*} settings.</li>
 * </ul>
 * Threading: every class here is immutable and thread-safe except {@link io.jccl.autotune.OnlineTuner}, which is
 * thread-safe with a lock per task; none starts a thread, logs or does I/O except
 * {@link io.jccl.autotune.TableTuner#load} reading its file and {@link io.jccl.autotune.OnlineTuner#save} and
 * {@link io.jccl.autotune.OnlineTuner#load} writing and reading theirs. Warnings (NCCL-only names dropped) are
 * returned as strings for the caller to log. This module depends only on jccl-api and jccl-schedules.
 */
package io.jccl.autotune;
