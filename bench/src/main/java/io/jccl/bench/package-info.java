/**
 * The command-line tools that mirror nccl-tests ({@code all_reduce_perf}, {@code all_gather_perf},
 * {@code reduce_scatter_perf}, {@code broadcast_perf}, {@code reduce_perf}, {@code alltoall_perf}): the same flags,
 * the same table on stdout, the same bandwidth arithmetic, so that jccl's numbers compare directly with NCCL's; any
 * of them runs an MSCCL XML schedule with {@code --schedule}, sets jccl's plan knobs with flags
 * ({@link io.jccl.bench.SweepKey}), and with {@code --sweep} runs a table per combination of knob values and sums
 * them up ({@link io.jccl.bench.SweepRunner}, {@link io.jccl.bench.SweepSummary}). Two commands serve schedule
 * authors:
 * {@code verify} ({@link io.jccl.bench.VerifyCommand}) and {@code export} ({@link io.jccl.bench.ExportCommand}).
 * Every tool writes its rows as CSV or JSON on request ({@link io.jccl.bench.ResultFiles}), and {@code plot}
 * ({@link io.jccl.bench.PlotCommand}) draws CSV result files against each other.
 * <p>
 * Threading: {@link io.jccl.bench.BenchRunner} runs {@code -t} threads (thread 0 is the caller), each driving
 * {@code -g} ranks through group calls, exactly as nccl-tests does; the threads meet at barriers between
 * measurements; a sweep runs its passes one after another on the caller's thread. Everything else in the package
 * is single-threaded value code. Only thread 0 writes the table (and tells the sweep, the result files and the
 * progress lines its rows); progress and logs go to stderr.
 * <p>
 * Processes: {@code jccl-bench --nprocs N} starts N JVMs through jccl-launch's
 * {@link io.jccl.launch.ProcessLauncher} ({@link io.jccl.bench.BenchJavaCommand}), and a launcher (bin/jccl-run,
 * mpirun, srun, torchrun; {@link io.jccl.core.LaunchInfo#detect}) may start them too; each runs
 * one rank on one bench thread, and the processes meet between measurements through AllReduces on their own
 * communicator ({@link io.jccl.bench.CommunicatorSync}) where threads meet at barriers. The launcher copies its
 * children's output on one thread per stream and waits for them on the caller's.
 */
package io.jccl.bench;
