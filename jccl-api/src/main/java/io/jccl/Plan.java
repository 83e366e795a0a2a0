package io.jccl;

/**
 * How one call runs: algorithm, protocol, transport, channels, threads per block and chunk bytes (the six
 * knobs of DESIGN.md). Every rank of a communicator binds the same plan for the same call.
 *
 * @param algorithm  the algorithm (a Program generator).
 * @param protocol   the FIFO framing.
 * @param transport  the path between ranks.
 * @param channels   parallel workers per peer connection, 1..{@link #MAX_CHANNELS}.
 * @param threads    threads per block on CUDA, 32..640 in multiples of 32; no effect on the host backend.
 * @param chunkBytes the pipelining grain: bytes moved per FIFO step, at least 1 and at most the protocol's
 *                   step size.
 */
public record Plan(Algorithm algorithm, Protocol protocol, TransportKind transport, int channels, int threads,
    int chunkBytes)
{
    /** The largest channel count (NCCL's MAXCHANNELS is 32). */
    public static final int MAX_CHANNELS = 32;
    /** The fewest threads per block. */
    public static final int MIN_THREADS = 32;
    /** The most threads per block. */
    public static final int MAX_THREADS = 640;

    /**
     * Validates every field, naming it.
     *
     * @param algorithm  the algorithm (a Program generator).
     * @param protocol   the FIFO framing.
     * @param transport  the path between ranks.
     * @param channels   parallel workers per peer connection, 1..{@link #MAX_CHANNELS}.
     * @param threads    threads per block on CUDA, 32..640 in multiples of 32; no effect on the host backend.
     * @param chunkBytes the pipelining grain: bytes moved per FIFO step, at least 1 and at most the protocol's
     *                   step size.
     * @throws JcclInvalidArgumentException on a null or out-of-range field.
     */
    public Plan
    {
        requireNonNull(algorithm, "algorithm");
        requireNonNull(protocol, "protocol");
        requireNonNull(transport, "transport");
        if (channels < 1 || channels > MAX_CHANNELS)
        {
            throw new JcclInvalidArgumentException("channels=" + channels + " is outside 1.." + MAX_CHANNELS);
        }
        if (threads < MIN_THREADS || threads > MAX_THREADS || threads % 32 != 0)
        {
            throw new JcclInvalidArgumentException("threads=" + threads + " is not a multiple of 32 in " +
                MIN_THREADS + ".." + MAX_THREADS);
        }
        if (chunkBytes < 1)
        {
            throw new JcclInvalidArgumentException("chunkBytes=" + chunkBytes + " is not positive");
        }
    }

    private static void requireNonNull(final Object value, final String name)
    {
        if (value == null)
        {
            throw new JcclInvalidArgumentException(name + " is null");
        }
    }

    /**
     * @param algorithm the algorithm of the copy.
     * @return a copy with another algorithm.
     */
    public Plan withAlgorithm(final Algorithm algorithm)
    {
        return new Plan(algorithm, protocol, transport, channels, threads, chunkBytes);
    }

    /**
     * @param channels the channel count of the copy.
     * @return a copy with another channel count.
     */
    public Plan withChannels(final int channels)
    {
        return new Plan(algorithm, protocol, transport, channels, threads, chunkBytes);
    }

    /**
     * @param chunkBytes the chunk size of the copy, in bytes.
     * @return a copy with another chunk size.
     */
    public Plan withChunkBytes(final int chunkBytes)
    {
        return new Plan(algorithm, protocol, transport, channels, threads, chunkBytes);
    }

    /** @return a stable short name such as {@code ring/simple/p2p/c2/t256/k131072}. */
    public String id()
    {
        return algorithm.lowerName() + '/' + protocol.lowerName() + '/' + transport.lowerName() + "/c" + channels +
            "/t" + threads + "/k" + chunkBytes;
    }

    /** @return the {@link StableHash} of {@link #id()}: the same in every JVM (carried in slot headers). */
    public long stableHash()
    {
        return StableHash.of(id());
    }
}
