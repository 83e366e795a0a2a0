package io.jccl;

import java.util.Arrays;

/**
 * Where each rank of a communicator lives, as a value: the host and the process of every rank, numbered densely
 * from 0 in order of first appearance. Generators use it to order rings and trees.
 */
public final class Topology
{
    private final int[] hostOfRank;
    private final int[] processOfRank;

    private Topology(final int[] hostOfRank, final int[] processOfRank)
    {
        this.hostOfRank = hostOfRank;
        this.processOfRank = processOfRank;
    }

    /**
     * @param hostOfRank    host index per rank.
     * @param processOfRank process index per rank.
     * @return the topology.
     * @throws JcclInvalidArgumentException if the arrays are null, empty or of different lengths.
     */
    public static Topology of(final int[] hostOfRank, final int[] processOfRank)
    {
        if (hostOfRank == null || processOfRank == null || hostOfRank.length == 0 ||
            hostOfRank.length != processOfRank.length)
        {
            throw new JcclInvalidArgumentException("hostOfRank and processOfRank must be non-empty and equally long");
        }
        return new Topology(hostOfRank.clone(), processOfRank.clone());
    }

    /**
     * @param ranks rank count.
     * @return all ranks in one process on one host.
     */
    public static Topology singleProcess(final int ranks)
    {
        if (ranks < 1)
        {
            throw new JcclInvalidArgumentException("ranks=" + ranks + " must be at least 1");
        }
        return new Topology(new int[ranks], new int[ranks]);
    }

    /** @return the rank count. */
    public int ranks()
    {
        return hostOfRank.length;
    }

    /**
     * @param rank a rank.
     * @return the host index of the rank.
     */
    public int hostOf(final int rank)
    {
        return hostOfRank[rank];
    }

    /**
     * @param rank a rank.
     * @return the process index of the rank.
     */
    public int processOf(final int rank)
    {
        return processOfRank[rank];
    }

    /**
     * @param a a rank.
     * @param b another rank.
     * @return true when both ranks live in one process.
     */
    public boolean sameProcess(final int a, final int b)
    {
        return hostOfRank[a] == hostOfRank[b] && processOfRank[a] == processOfRank[b];
    }

    /**
     * @param a a rank.
     * @param b another rank.
     * @return true when both ranks live on one host.
     */
    public boolean sameHost(final int a, final int b)
    {
        return hostOfRank[a] == hostOfRank[b];
    }

    /** @return the number of distinct hosts the ranks live on. */
    public int hosts()
    {
        return (int)Arrays.stream(hostOfRank).distinct().count();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Topology t && Arrays.equals(t.hostOfRank, hostOfRank) &&
            Arrays.equals(t.processOfRank, processOfRank);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(hostOfRank) + Arrays.hashCode(processOfRank);
    }

    @Override
    public String toString()
    {
        return "Topology{hosts=" + Arrays.toString(hostOfRank) + ", processes=" + Arrays.toString(processOfRank) + '}';
    }
}
