package io.jccl.bench;

/**
 * What every bench thread of one {@link BenchRunner} run shares, fixed before the threads start: the tool, the flags,
 * where the ranks come from, where they agree, this process's ranks with their buffers, and the sizes' bound.
 * <p>
 * Threading: immutable; made by the thread that runs {@link BenchRunner#run()}, read by every bench thread.
 *
 * @param tool         the collective.
 * @param options      validated flags.
 * @param factory      where the ranks come from (group calls, the online tuner's reports).
 * @param sync         where the ranks agree between measurements.
 * @param ranks        this process's ranks, allocated.
 * @param maxBytes     the largest size of the table: {@code -e}, reduced to what memory holds.
 * @param onlineTuning true when the online tuner decides the plans: each size is tuned before it is timed.
 */
record BenchSetup(BenchTool tool, BenchOptions options, CommunicatorFactory factory, BenchSync sync, BenchRanks ranks,
    long maxBytes, boolean onlineTuning)
{
}
