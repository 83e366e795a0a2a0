/**
 * The launcher: {@link io.jccl.launch.JcclRun} ({@code bin/jccl-run}) starts N processes of any command as the ranks
 * of one job, each with the launcher variables of {@link io.jccl.transport.bootstrap.LaunchEnvironment} (the one
 * table jccl reads them back with), bound to CPUs on request ({@link io.jccl.launch.CpuBinding}), their output
 * prefixed by rank ({@link io.jccl.launch.LineOutputStream}), and ends them all on the first failure
 * ({@link io.jccl.launch.ProcessLauncher}). {@code jccl-bench --nprocs} runs through the same classes.
 * <p>
 * Threading: the launcher waits for its children on the calling thread and copies each child stream on a daemon
 * thread of its own; a shutdown hook stops the children when the launcher is stopped.
 */
package io.jccl.launch;
