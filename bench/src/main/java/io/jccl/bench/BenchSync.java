package io.jccl.bench;

/**
 * Where the ranks of a run agree between measurements, as nccl-tests' {@code Barrier} and {@code Allreduce} (over
 * threads, and over processes with {@code MPI_Barrier} and {@code MPI_Allreduce}): a barrier, and a barrier that
 * combines one number per bench thread of every process. {@link ThreadSync} serves the ranks of one process;
 * {@link CommunicatorSync} the processes of a multi-process run, with a small AllReduce on jccl itself.
 * <p>
 * Every bench thread of every process makes the same calls in the same order; none is made from a timed loop.
 */
public interface BenchSync
{
    /** Waits until every bench thread of every process arrives. */
    void barrier();

    /**
     * Combines one value per bench thread of every process; every thread gets the result.
     *
     * @param thread this thread's index in its process.
     * @param value  this thread's value.
     * @param mode   {@link ThreadSync#RANK0}, {@link ThreadSync#AVG}, {@link ThreadSync#MIN}, {@link ThreadSync#MAX}
     *               or {@link ThreadSync#SUM}.
     * @return the combination.
     */
    double allReduce(int thread, double value, int mode);

    /**
     * The element-wise sum of one array per process, made by one thread of each while no bench thread runs (for the
     * header: each process fills in what it knows of its own ranks and leaves the others 0).
     *
     * @param values this process's array, the same length in every process; not changed.
     * @return the sums; in a run of one process, a copy of the values.
     */
    double[] sumOverProcesses(double[] values);

    /** Breaks every current and future wait with an exception, so that one failing rank leaves no other blocked. */
    void abort();
}
