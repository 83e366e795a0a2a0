package io.jccl.transport;

import java.util.function.IntPredicate;

/**
 * Where the ranks of a communicator live, as a {@link Transport} needs it to say whether it can connect a pair:
 * which ranks live in this process, and which share a host.
 */
public final class RankPlacement
{
    private static final RankPlacement ONE_PROCESS = new RankPlacement(rank -> true, null);

    private final IntPredicate inProcess;
    /** Host of each rank, or null when every rank shares this host. */
    private final int[] hostOfRank;

    private RankPlacement(final IntPredicate inProcess, final int[] hostOfRank)
    {
        this.inProcess = inProcess;
        this.hostOfRank = hostOfRank;
    }

    /** @return every rank in this process. */
    public static RankPlacement oneProcess()
    {
        return ONE_PROCESS;
    }

    /**
     * @param inProcess  which ranks live in this process.
     * @param hostOfRank the host of every rank (any numbering; equal numbers share a host), or null when every rank
     *                   lives on this host.
     * @return the placement.
     */
    public static RankPlacement of(final IntPredicate inProcess, final int[] hostOfRank)
    {
        return new RankPlacement(inProcess, hostOfRank == null ? null : hostOfRank.clone());
    }

    /**
     * @param rank a rank.
     * @return true when it lives in this process.
     */
    public boolean inProcess(final int rank)
    {
        return inProcess.test(rank);
    }

    /**
     * @param a a rank.
     * @param b a rank.
     * @return true when both live in this process.
     */
    public boolean bothInProcess(final int a, final int b)
    {
        return inProcess.test(a) && inProcess.test(b);
    }

    /**
     * @param a a rank.
     * @param b a rank.
     * @return true when both live on one host.
     */
    public boolean sameHost(final int a, final int b)
    {
        return hostOfRank == null || hostOfRank[a] == hostOfRank[b];
    }
}
