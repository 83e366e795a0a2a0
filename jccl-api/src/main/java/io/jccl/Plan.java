package io.jccl;

/**
 * How one call runs: algorithm, protocol, transport, channels, threads per block and chunk bytes (the six
 * knobs of DESIGN.md), or a registered schedule in place of the algorithm. Every rank of a communicator binds the same
 * plan for the same call.
 *
 * @param algorithm  the algorithm (a Program generator); for a plan that runs a schedule, {@link Algorithm#RING},
 *                   which no step of it reads.
 * @param protocol   the FIFO framing.
 * @param transport  the path between ranks.
 * @param channels   parallel workers per peer connection, 1..{@link #MAX_CHANNELS}.
 * @param threads    threads per block on CUDA, 32..640 in multiples of 32; no effect on the host backend.
 * @param chunkBytes the pipelining grain: bytes moved per FIFO step, at least 1 and at most the protocol's
 *                   step size.
 * @param schedule   the name of the registered schedule (MSCCL XML) the call runs, or null when an algorithm's
 *                   generator makes its program.
 */
public record Plan(Algorithm algorithm, Protocol protocol, TransportKind transport, int channels, int threads,
    int chunkBytes, String schedule)
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
     * @param schedule   the registered schedule's name, or null.
     * @throws JcclInvalidArgumentException on a null or out-of-range field, or a blank schedule name.
     */
    public Plan
    {
        if (schedule != null && schedule.isBlank())
        {
            throw new JcclInvalidArgumentException("schedule is blank");
        }
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

    /**
     * A plan whose program an algorithm's generator makes.
     *
     * @param algorithm  the algorithm.
     * @param protocol   the FIFO framing.
     * @param transport  the path between ranks.
     * @param channels   parallel workers per peer connection, 1..{@link #MAX_CHANNELS}.
     * @param threads    threads per block on CUDA, 32..640 in multiples of 32.
     * @param chunkBytes bytes moved per FIFO step.
     * @throws JcclInvalidArgumentException on a null or out-of-range field.
     */
    public Plan(final Algorithm algorithm, final Protocol protocol, final TransportKind transport, final int channels,
        final int threads, final int chunkBytes)
    {
        this(algorithm, protocol, transport, channels, threads, chunkBytes, null);
    }

    /**
     * @param protocol   the FIFO framing the schedule asks for.
     * @param transport  the path between ranks.
     * @param channels   the schedule's channels.
     * @param threads    threads per block on CUDA.
     * @param chunkBytes bytes moved per FIFO step.
     * @param schedule   the schedule's name.
     * @return a plan that runs a registered schedule.
     * @throws JcclInvalidArgumentException on a null or out-of-range field.
     */
    public static Plan ofSchedule(final Protocol protocol, final TransportKind transport, final int channels,
        final int threads, final int chunkBytes, final String schedule)
    {
        requireNonNull(schedule, "schedule");
        return new Plan(Algorithm.RING, protocol, transport, channels, threads, chunkBytes, schedule);
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
        return new Plan(algorithm, protocol, transport, channels, threads, chunkBytes, null);
    }

    /**
     * @param channels the channel count of the copy.
     * @return a copy with another channel count.
     */
    public Plan withChannels(final int channels)
    {
        return new Plan(algorithm, protocol, transport, channels, threads, chunkBytes, schedule);
    }

    /**
     * @param chunkBytes the chunk size of the copy, in bytes.
     * @return a copy with another chunk size.
     */
    public Plan withChunkBytes(final int chunkBytes)
    {
        return new Plan(algorithm, protocol, transport, channels, threads, chunkBytes, schedule);
    }

    /**
     * @return a stable short name such as {@code ring/simple/p2p/c2/t256/k131072}, or
     *         {@code schedule:NAME/simple/p2p/c2/t256/k131072} for a plan that runs a schedule.
     */
    public String id()
    {
        return programName() + '/' + protocol.lowerName() + '/' + transport.lowerName() + "/c" + channels + "/t" +
            threads + "/k" + chunkBytes;
    }

    /** @return the algorithm's name, or {@code schedule:NAME} for a plan that runs a schedule. */
    public String programName()
    {
        return schedule == null ? algorithm.lowerName() : "schedule:" + schedule;
    }

    /** @return the {@link StableHash} of {@link #id()}: the same in every JVM (carried in slot headers). */
    public long stableHash()
    {
        return StableHash.of(id());
    }
}
