package io.jccl.bench;

import io.jccl.DataType;
import io.jccl.ReduceOp;

/**
 * The inputs of a checked run: a pure function of (type, operator, rank count, seed, rank, element index), so that
 * the checker can recompute any rank's input, and the expected result, without copies and without jccl.
 * <p>
 * Every value is hashed from (seed, rank, index), so inputs differ per rank and element and are never all zero.
 * They are chosen so that the exact result is known whatever order jccl reduces in:
 * <ul>
 * <li>integers: full-width random bits for SUM, MIN, MAX and PreMulSum (two's complement wrap-around is
 *     associative), odd ones for PROD (a product of odd numbers is never 0), and for AVG magnitudes up to
 *     {@code max / n}, so the sum cannot overflow and SUM-then-divide has one answer;</li>
 * <li>floating types, SUM, AVG and PreMulSum: small nonzero integers whose absolute values add up to at most
 *     2^(mantissa + 1) ({@link ElementCodec#exactIntegerBound()}), so every partial sum is exact in the type: 1..1024
 *     for half with two ranks, 1..4 for E5M2. With more ranks than that bound, only that many ranks (rotating with
 *     the index) contribute a nonzero value;</li>
 * <li>floating types, PROD: +-1 everywhere except up to four ranks per element that contribute +-2 or +-0.5, so
 *     every partial product is an exact power of two between 1/16 and 16;</li>
 * <li>floating types, MIN and MAX: integers up to half the exact bound;</li>
 * <li>copies (AllGather, Broadcast): random bit patterns, for floating types with NaN and infinity patterns made
 *     finite, so a copy compares bit for bit.</li>
 * </ul>
 */
public final class DataPattern
{
    private static final int PROD_FACTOR_RANKS = 4;

    private final ElementCodec codec;
    private final ReduceOp.Kind kind;
    private final int nRanks;
    private final long seed;
    private final boolean floating;
    private final long sumMagnitude;
    private final int sumRanks;
    private final long minMaxMagnitude;
    private final long avgMagnitude;

    /**
     * @param type   element type.
     * @param kind   the operator family, or null for the copy collectives (AllGather, Broadcast).
     * @param nRanks rank count.
     * @param seed   varies the data between checks.
     */
    public DataPattern(final DataType type, final ReduceOp.Kind kind, final int nRanks, final long seed)
    {
        this.codec = ElementCodec.of(type);
        this.kind = kind;
        this.nRanks = nRanks;
        this.seed = seed;
        this.floating = type.isFloatingPoint();
        if (floating)
        {
            final long bound = codec.exactIntegerBound();
            this.sumRanks = (int)Math.min(nRanks, bound);
            this.sumMagnitude = bound / sumRanks;
            this.minMaxMagnitude = bound / 2;
            this.avgMagnitude = 0;
        }
        else
        {
            this.sumRanks = nRanks;
            this.sumMagnitude = 0;
            this.minMaxMagnitude = 0;
            final long max = type.isSigned() ? (codec.wrap(-1L) >>> 1) : codec.wrap(-1L);
            this.avgMagnitude = Long.divideUnsigned(max, nRanks);
        }
    }

    /** @return the codec of the element type. */
    public ElementCodec codec()
    {
        return codec;
    }

    /** @return the operator family, or null for copies. */
    public ReduceOp.Kind kind()
    {
        return kind;
    }

    /** @return the rank count. */
    public int nRanks()
    {
        return nRanks;
    }

    /**
     * @param rank  the rank.
     * @param index the element index in that rank's send buffer.
     * @return the raw bits of the input element.
     */
    public long input(final int rank, final long index)
    {
        final long hash = hash(seed, rank, index);
        if (kind == null)
        {
            return copyBits(hash);
        }
        return floating ? codec.fromDouble(floatInput(rank, index, hash)) : integerInput(rank, index, hash);
    }

    /**
     * @param rank  the rank.
     * @param index the element index.
     * @return the input of a floating type as a number (exact).
     */
    public double inputValue(final int rank, final long index)
    {
        return codec.toDouble(input(rank, index));
    }

    private long copyBits(final long hash)
    {
        long raw = codec.wrap(hash);
        if (floating && codec.isSpecial(raw))
        {
            raw &= ~codec.topExponentBit();
        }
        return raw;
    }

    private long integerInput(final int rank, final long index, final long hash)
    {
        switch (kind)
        {
            case PROD:
                return codec.wrap(hash | 1);
            case AVG:
                if (avgMagnitude == 0)
                {
                    // more ranks than the type has positive values: at most max ranks contribute a 1
                    final long max = codec.type().isSigned() ? (codec.wrap(-1L) >>> 1) : codec.wrap(-1L);
                    return Math.floorMod(rank - index, (long)nRanks) < max ? 1 : 0;
                }
                if (avgMagnitude == -1L)
                {
                    return hash; // uint64 with one rank: any value
                }
                if (codec.type().isSigned())
                {
                    return codec.wrap(Long.remainderUnsigned(hash, 2 * avgMagnitude + 1) - avgMagnitude);
                }
                return Long.remainderUnsigned(hash, avgMagnitude + 1);
            default:
                return codec.wrap(hash);
        }
    }

    private double floatInput(final int rank, final long index, final long hash)
    {
        final double sign = (hash & 1) == 0 ? 1.0 : -1.0;
        switch (kind)
        {
            case PROD:
                if (Math.floorMod(rank - index, (long)nRanks) < PROD_FACTOR_RANKS)
                {
                    return sign * ((hash & 2) == 0 ? 2.0 : 0.5);
                }
                return sign;
            case MIN:
            case MAX:
                return (double)(Long.remainderUnsigned(hash >>> 1, 2 * minMaxMagnitude + 1) - minMaxMagnitude);
            default:
                if (Math.floorMod(rank - index, (long)nRanks) >= sumRanks)
                {
                    return 0.0;
                }
                return sign * (1 + Long.remainderUnsigned(hash >>> 1, sumMagnitude));
        }
    }

    /**
     * A 64-bit mix of (seed, rank, index): SplitMix64's finaliser over a combination that differs for every
     * triple a run uses.
     */
    static long hash(final long seed, final int rank, final long index)
    {
        long z = seed * 0x9E37_79B9_7F4A_7C15L + ((long)rank << 40) + index * 0xBF58_476D_1CE4_E5B9L + rank;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }
}
