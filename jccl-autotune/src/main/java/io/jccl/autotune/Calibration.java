package io.jccl.autotune;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Protocol;
import io.jccl.StableHash;
import io.jccl.TransportKind;

/**
 * The constants of the {@link CostModel}: per protocol what a step and a slot cost, per transport what a hop costs
 * and how fast one thread copies, and the cores the ranks share. {@link #defaults()} are plausible numbers for a
 * 2-core x86 host; jccl-core may pass measured ones. Every rank must use the same calibration, or ranks may choose
 * different plans for the same call: compare {@link #stableHash()} at communicator creation.
 *
 * @param simple SIMPLE's costs.
 * @param ll     LL's costs.
 * @param ll128  LL128's costs.
 * @param p2p    P2P's costs (FIFO in the receiver's memory).
 * @param shm    SHM's costs (FIFO in host shared memory, staged).
 * @param net    NET's costs (Aeron UDP between hosts).
 * @param cores  the processors the ranks of one host share, at least 1.
 */
public record Calibration(ProtocolCost simple, ProtocolCost ll, ProtocolCost ll128, TransportCost p2p,
    TransportCost shm, TransportCost net, int cores)
{
    /** Default copy bandwidth of one thread, GB/s (= bytes per ns). */
    public static final double DEFAULT_THREAD_GBPS = 10.0;
    /** Default memory bandwidth per core, GB/s: the machine's cap is cores times this. */
    public static final double DEFAULT_CORE_GBPS = 8.0;

    /**
     * What a protocol costs, beyond moving its bytes.
     *
     * @param stepNs ns for one step's handoff between two ranks: the writer publishes a slot, the reader sees it
     *               (a pipeline stage's latency).
     * @param slotNs ns of bookkeeping per slot moved (publishing, polling flags, advancing counters).
     */
    public record ProtocolCost(double stepNs, double slotNs)
    {
        /**
         * Validates the fields, naming them.
         *
         * @param stepNs ns for one step's handoff, finite and not negative.
         * @param slotNs ns per slot, finite and not negative.
         * @throws JcclInvalidArgumentException on a negative or non-finite value.
         */
        public ProtocolCost
        {
            requireNonNegative("stepNs", stepNs);
            requireNonNegative("slotNs", slotNs);
        }
    }

    /**
     * What a transport costs.
     *
     * @param hopNs      ns added to each step's handoff by the path itself (0 in one address space).
     * @param threadGBps GB/s one thread copies through this path (GB/s is bytes per ns).
     * @param capGBps    GB/s the whole host reaches through this path, all threads together.
     */
    public record TransportCost(double hopNs, double threadGBps, double capGBps)
    {
        /**
         * Validates the fields, naming them.
         *
         * @param hopNs      ns per hop, finite and not negative.
         * @param threadGBps GB/s of one thread, finite and positive.
         * @param capGBps    GB/s of the host, finite and positive.
         * @throws JcclInvalidArgumentException on an out-of-range value.
         */
        public TransportCost
        {
            requireNonNegative("hopNs", hopNs);
            requirePositive("threadGBps", threadGBps);
            requirePositive("capGBps", capGBps);
        }
    }

    /**
     * Validates the fields, naming them.
     *
     * @param simple SIMPLE's costs.
     * @param ll     LL's costs.
     * @param ll128  LL128's costs.
     * @param p2p    P2P's costs.
     * @param shm    SHM's costs.
     * @param net    NET's costs.
     * @param cores  the processors the ranks of one host share, at least 1.
     * @throws JcclInvalidArgumentException on a null field or fewer than one core.
     */
    public Calibration
    {
        requireNonNull("simple", simple);
        requireNonNull("ll", ll);
        requireNonNull("ll128", ll128);
        requireNonNull("p2p", p2p);
        requireNonNull("shm", shm);
        requireNonNull("net", net);
        if (cores < 1)
        {
            throw new JcclInvalidArgumentException("cores=" + cores + " is not positive");
        }
    }

    /** @return {@link #defaults(int)} for a 2-core host. */
    public static Calibration defaults()
    {
        return defaults(2);
    }

    /**
     * Plausible numbers for an x86 host, in the form jccl-core's measurement gives them: a step's handoff costs
     * about 0.3 us with every protocol (on the host each hands a slot over by one cache line's round trip), and a
     * slot's own work 0.1 us with SIMPLE, 2.2x that with LL and 3x with LL128 (encoding and decoding flagged words or
     * lines, by the FIFO microbenchmark); a thread copies about 10 GB/s and the host reaches 8 GB/s per core; SHM's
     * handoff crosses processes (50 ns more); NET is a 10 Gb/s link with 20 us per hop. Until December 2026 LL's step
     * cost 0.15 us and LL128's 0.2 here, so the defaults chose LL and LL128 up to 1 KiB where the measured constants
     * chose SIMPLE, which ran 1.2-2.0x faster from 128 B to 1 KiB (2 processes and 2 in-process ranks).
     *
     * @param cores the processors the ranks of one host share, at least 1.
     * @return the default calibration for that many cores.
     * @throws JcclInvalidArgumentException if cores is below 1.
     */
    public static Calibration defaults(final int cores)
    {
        final double capGBps = DEFAULT_CORE_GBPS * Math.max(1, cores);
        return new Calibration(
            new ProtocolCost(300, 100),
            new ProtocolCost(300, 220),
            new ProtocolCost(300, 300),
            new TransportCost(0, DEFAULT_THREAD_GBPS, capGBps),
            new TransportCost(50, DEFAULT_THREAD_GBPS, capGBps),
            new TransportCost(20_000, 1.25, 1.25),
            cores);
    }

    /**
     * @param protocol a protocol.
     * @return its costs.
     */
    public ProtocolCost protocol(final Protocol protocol)
    {
        return switch (protocol)
        {
            case SIMPLE -> simple;
            case LL -> ll;
            case LL128 -> ll128;
        };
    }

    /**
     * @param transport a transport.
     * @return its costs.
     */
    public TransportCost transport(final TransportKind transport)
    {
        return switch (transport)
        {
            case P2P -> p2p;
            case SHM -> shm;
            case NET -> net;
        };
    }

    /**
     * Fixed by the wire format, not calibrated.
     *
     * @param protocol a protocol.
     * @return the share of the bytes it moves that are data: SIMPLE 1, LL 0.5 (4 data bytes per 8-byte word),
     *         LL128 120/128.
     */
    public static double efficiency(final Protocol protocol)
    {
        return switch (protocol)
        {
            case SIMPLE -> 1.0;
            case LL -> 0.5;
            case LL128 -> 120.0 / 128.0;
        };
    }

    /** @return a 64-bit hash of every constant, the same in every JVM. */
    public long stableHash()
    {
        return StableHash.of(toString());
    }

    private static void requireNonNull(final String name, final Object value)
    {
        if (value == null)
        {
            throw new JcclInvalidArgumentException(name + " is null");
        }
    }

    private static void requireNonNegative(final String name, final double value)
    {
        if (!(value >= 0) || Double.isInfinite(value))
        {
            throw new JcclInvalidArgumentException(name + "=" + value + " is not a finite value >= 0");
        }
    }

    private static void requirePositive(final String name, final double value)
    {
        if (!(value > 0) || Double.isInfinite(value))
        {
            throw new JcclInvalidArgumentException(name + "=" + value + " is not a finite value > 0");
        }
    }
}
