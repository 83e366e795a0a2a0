package io.jccl.bench;

import io.jccl.Communicator;
import io.jccl.TuningReport;

import java.util.List;

/**
 * Where the bench gets its ranks, its group calls and the way its ranks agree between measurements: jccl in the
 * tools, with every rank in this process ({@link JcclCommunicatorFactory}) or one rank per process
 * ({@link ProcessCommunicatorFactory}); a stand-in in tests of the bench itself.
 */
public interface CommunicatorFactory
{
    /**
     * Creates the ranks of this process: every rank (NCCL's {@code ncclCommInitAll}), or in a multi-process run
     * this process's one ({@code ncclCommInitRank}).
     *
     * @param options     the parsed flags (jccl's own: timeout, plan knobs, tuner, schedule).
     * @param combination the pins of this pass of a {@code --sweep} over the flags, or
     *                    {@link SweepCombination#DEFAULT}.
     * @param nRanks      rank count of the whole run ({@link BenchOptions#nRanks()}).
     * @return this process's communicators ({@link BenchOptions#localRanks()} of them) in rank order; their
     *         {@link Communicator#rank()} is the rank in the whole run.
     */
    Communicator[] create(BenchOptions options, SweepCombination combination, int nRanks);

    /**
     * Ranks for the JIT warm-up ({@code --jit-warmup-ms}) of a run whose plans the online tuner decides: as
     * {@link #create} would make them, but with an online tuner of their own, so that the warm-up's calls, made on a
     * cold JIT, are not trials of the run's tasks, while its searches get their code compiled. The runner closes
     * them once warmed up.
     *
     * @param options     the parsed flags.
     * @param combination the pins of this pass.
     * @param nRanks      rank count of the whole run.
     * @return this process's warm-up communicators in rank order, or null to warm up on the run's own (the default).
     */
    default Communicator[] createForWarmUp(final BenchOptions options, final SweepCombination combination,
        final int nRanks)
    {
        return null;
    }

    /** Starts a group of calls made by this thread ({@code ncclGroupStart}). */
    void groupStart();

    /** Ends the group: its calls start ({@code ncclGroupEnd}). */
    void groupEnd();

    /**
     * @param nThreads the bench threads of this process.
     * @param comms    this process's communicators, from {@link #create}.
     * @return how the bench threads of every process meet: {@link ThreadSync} where every rank is in this process.
     */
    default BenchSync sync(final int nThreads, final Communicator[] comms)
    {
        return new ThreadSync(nThreads);
    }

    /**
     * @param communicator one of this process's communicators, from {@link #create}.
     * @return the online tuner's tasks of its ranks ({@code --tuner auto}): trials, baseline and best plans and
     *         times; empty when no online tuner decides their plans (the default, for ranks other than jccl's).
     */
    default List<TuningReport> tuningReports(final Communicator communicator)
    {
        return List.of();
    }

    /**
     * @return true when the ranks are jccl's, whose peers in other processes read memory of {@code Jccl.allocate} in
     *         place: the bench allocates its buffers there unless {@code --plain-memory}; false (the default, for
     *         stand-ins) gives private memory.
     */
    default boolean sharedMemory()
    {
        return false;
    }

    /** @return a one-line description of the runtime for the log, e.g. its settings. */
    default String describe()
    {
        return getClass().getSimpleName();
    }
}
