package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.JcclException;
import io.jccl.JcclTimeoutException;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Splitting the ranks of one process: each rank's n-th split waits for every other rank's n-th; the last to arrive
 * makes one new group per color ({@code ncclCommInitAll} over the members, in key order) and hands every rank its
 * communicator.
 */
final class LocalSplit implements Splitter
{
    private final Context context;
    private final int size;
    private final Map<Long, Round> rounds = new HashMap<>();

    LocalSplit(final Context context, final int size)
    {
        this.context = context;
        this.size = size;
    }

    @Override
    public Communicator split(final int rank, final long generation, final int color, final int key)
    {
        final Round round;
        synchronized (rounds)
        {
            round = rounds.computeIfAbsent(generation, g -> new Round(size));
            round.colors[rank] = color;
            round.keys[rank] = key;
            round.present[rank] = true;
            if (++round.arrived == size)
            {
                rounds.remove(generation);
                round.form(context);
            }
        }
        return round.await(rank, context.timeoutMs());
    }

    private static final class Round
    {
        final int[] colors;
        final int[] keys;
        final boolean[] present;
        final Communicator[] results;
        int arrived;
        boolean formed;
        JcclException error;

        Round(final int size)
        {
            colors = new int[size];
            keys = new int[size];
            present = new boolean[size];
            results = new Communicator[size];
        }

        /** Called with the rounds' lock held, by the last rank to arrive. */
        void form(final Context context)
        {
            try
            {
                java.util.Arrays.stream(colors).filter(c -> c >= 0).distinct().forEach(color ->
                {
                    final int[] members = Splitter.members(colors, keys, color);
                    final Communicator[] comms = CommGroup.create(context, members.length).communicators();
                    for (int i = 0; i < members.length; i++)
                    {
                        results[members[i]] = comms[i];
                    }
                });
            }
            catch (final JcclException ex)
            {
                error = ex;
            }
            synchronized (this)
            {
                formed = true;
                notifyAll();
            }
        }

        synchronized Communicator await(final int rank, final long timeoutMs)
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (!formed)
            {
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    final StringBuilder missing = new StringBuilder();
                    for (int r = 0; r < present.length; r++)
                    {
                        if (!present[r])
                        {
                            missing.append(missing.length() == 0 ? "" : ", ").append(r);
                        }
                    }
                    throw new JcclTimeoutException("split on rank " + rank + " timed out after " + timeoutMs +
                        " ms: ranks " + missing + " did not call split");
                }
                try
                {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new io.jccl.JcclAbortedException("split interrupted on rank " + rank);
                }
            }
            if (error != null)
            {
                throw error;
            }
            return results[rank];
        }
    }
}
