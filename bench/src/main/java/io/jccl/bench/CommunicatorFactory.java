package io.jccl.bench;

import io.jccl.Communicator;

/**
 * Where the bench gets its ranks and group calls: jccl ({@link JcclCommunicatorFactory}) in the tools, a stand-in
 * in tests of the bench itself.
 */
public interface CommunicatorFactory
{
    /**
     * Creates every rank in this process (NCCL's {@code ncclCommInitAll}).
     *
     * @param options     the parsed flags (jccl's own: timeout, plan knobs, tuner, schedule).
     * @param combination the pins of this pass of a {@code --sweep} over the flags, or
     *                    {@link SweepCombination#DEFAULT}.
     * @param nRanks      rank count.
     * @return the communicators, index = rank.
     */
    Communicator[] create(BenchOptions options, SweepCombination combination, int nRanks);

    /** Starts a group of calls made by this thread ({@code ncclGroupStart}). */
    void groupStart();

    /** Ends the group: its calls start ({@code ncclGroupEnd}). */
    void groupEnd();

    /** @return a one-line description of the runtime for the log, e.g. its settings. */
    default String describe()
    {
        return getClass().getSimpleName();
    }
}
