package io.jccl.transport;

/**
 * Decides, for one receiver of staged SIMPLE slots, whether it writes back the lines of each large slot once it has
 * read them ({@link CacheLines}), by measuring which way the slots flow faster.
 * <p>
 * Why: a sender overwrites a slot one lap of the FIFO after the receiver read it. While the lines are still in the
 * receiver's cache, each store must first take its line back from there. When the two CPUs share a cache that costs
 * little, and writing the lines back only makes the receiver's next read of them slower (on this host one-way
 * staging went from 12-13 GB/s to 7.5). When they do not (a host that places the two vCPUs on cores apart, about
 * 170 ns a line), it is what limits staging: 2.4 GB/s, and 6.8 with the lines written back. Hosts move vCPUs at run
 * time, so neither setting can be fixed at start.
 * <p>
 * How: the time from one large slot's release to the next one's, within one call, measures how fast the pipeline
 * flows; an epoch adds up {@value #EPOCH_SLOTS} of them after {@value #SETTLE_SLOTS} slots of settling (the new mode
 * shows one lap later). Every so many epochs one epoch runs the other mode; the receiver switches when that epoch
 * moved its bytes at least {@value #MARGIN_PERCENT}% faster than the epoch before it. While the mode holds, the
 * epochs between explorations double, from {@value #FIRST_INTERVAL} to {@value #MAX_INTERVAL}, so a clear winner
 * pays for few trials. Pure bookkeeping: one clock read a slot of at least {@value #MIN_SLOT_BYTES} bytes.
 */
final class StagedLineEviction
{
    /** Slots smaller than this are left alone: their lines matter little and the clock would cost. */
    static final int MIN_SLOT_BYTES = 16 * 1024;
    static final int EPOCH_SLOTS = 16;
    /** One lap of the FIFO: until then the slots the sender writes were read under the previous mode. */
    static final int SETTLE_SLOTS = FifoDescriptor.SLOTS;
    static final int FIRST_INTERVAL = 4;
    static final int MAX_INTERVAL = 256;
    static final int MARGIN_PERCENT = 10;

    private boolean evicting;
    private boolean exploring;
    private int settle = SETTLE_SLOTS;
    private int interval = FIRST_INTERVAL;
    private int epochsToExplore = FIRST_INTERVAL;
    private long epochBytes;
    private long epochNs;
    private int epochSlots;
    /** Bytes per nanosecond of the last epoch run in the held mode, 0 before one. */
    private double heldRate;
    private long lastSeq = Long.MIN_VALUE;
    private long lastNs;
    private long switches;

    /** @return true when the receiver writes back the lines of the slot it is about to release. */
    boolean evicting()
    {
        return evicting != exploring;
    }

    /**
     * Records a large slot the receiver read and is about to release (after {@link #evicting()} was acted on).
     *
     * @param seq    the slot's call sequence number: intervals across calls are not counted.
     * @param bytes  the slot's data bytes.
     * @param nowNs  {@link System#nanoTime()} now.
     */
    void slotRead(final long seq, final long bytes, final long nowNs)
    {
        final long sinceNs = nowNs - lastNs;
        final boolean sameCall = seq == lastSeq;
        lastSeq = seq;
        lastNs = nowNs;
        if (!sameCall)
        {
            return;
        }
        if (settle > 0)
        {
            settle--;
            return;
        }
        epochBytes += bytes;
        epochNs += Math.max(1, sinceNs);
        if (++epochSlots == EPOCH_SLOTS)
        {
            endEpoch((double)epochBytes / epochNs);
            epochBytes = 0;
            epochNs = 0;
            epochSlots = 0;
        }
    }

    private void endEpoch(final double rate)
    {
        if (!exploring)
        {
            heldRate = rate;
            if (--epochsToExplore == 0)
            {
                exploring = true;
                settle = SETTLE_SLOTS;
            }
            return;
        }
        exploring = false;
        if (rate * 100 > heldRate * (100 + MARGIN_PERCENT))
        {
            evicting = !evicting;
            switches++;
            interval = FIRST_INTERVAL;
            // the explored mode runs on: its lines are already settled
        }
        else
        {
            interval = Math.min(MAX_INTERVAL, interval * 2);
            settle = SETTLE_SLOTS;
        }
        epochsToExplore = interval;
    }

    /** @return how often the held mode changed. */
    long switches()
    {
        return switches;
    }
}
