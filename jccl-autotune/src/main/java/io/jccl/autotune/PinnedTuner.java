package io.jccl.autotune;

import io.jccl.Algorithm;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;

/**
 * The plan fixed by settings ({@code JCCL_*} pins and Context values), the lowest rung until the cost model
 * lands: the pinned algorithm or RING, the pinned protocol or SIMPLE, P2P, the configured channels and chunk size.
 */
public final class PinnedTuner implements Tuner
{
    /** Threads per block reported on the host backend, where the knob has no effect. */
    public static final int HOST_THREADS = 256;

    private final Algorithm algorithm;
    private final Protocol protocol;
    private final int channels;
    private final int chunkBytes;

    /**
     * @param algorithm  pinned algorithm, or null for RING.
     * @param protocol   pinned protocol, or null for SIMPLE.
     * @param channels   channels per call.
     * @param chunkBytes pipelining grain.
     */
    public PinnedTuner(final Algorithm algorithm, final Protocol protocol, final int channels, final int chunkBytes)
    {
        this.algorithm = algorithm == null ? Algorithm.RING : algorithm;
        this.protocol = protocol == null ? Protocol.SIMPLE : protocol;
        this.channels = channels;
        this.chunkBytes = chunkBytes;
    }

    @Override
    public Plan choose(final PlanRequest request)
    {
        return new Plan(algorithm, protocol, TransportKind.P2P, channels, HOST_THREADS, chunkBytes);
    }
}
