package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.ReduceOp;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The collective grid of STYLE.md: collective x type x op x ranks x count x in/out-of-place x algorithm x root,
 * plus how the ranks are driven (one thread in a group, or a thread per rank) and the pipeline (channels and
 * chunk size, which by the arithmetic contract never change a result). CI runs a pairwise covering array of it;
 * the full product runs under the {@code slow} tag.
 */
final class CollectiveGrid
{
    /** Collectives of the grid. */
    static final Collective[] COLLECTIVES = {
        Collective.ALL_REDUCE, Collective.ALL_GATHER, Collective.REDUCE_SCATTER, Collective.BROADCAST,
        Collective.REDUCE};
    /** Every type. */
    static final DataType[] TYPES = DataType.values();
    /** PreMulSum's scalar: truncated to 2 on integers, exact in every floating type. */
    static final double PRE_MUL_SCALAR = 2.5;
    /** Ops; null stands for "no op" (non-reducing collectives). */
    static final ReduceOp[] OPS = {
        null, ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.AVG,
        ReduceOp.preMulSum(PRE_MUL_SCALAR)};
    /** Rank counts. */
    static final int[] RANKS = {1, 2, 3, 5, 8};
    /** Element counts (AllGather: per rank sent; ReduceScatter: per rank received). */
    static final long[] COUNTS = {0, 1, 7, 1021, 1 << 20};
    /** Algorithms. */
    static final Algorithm[] ALGORITHMS = {Algorithm.RING, Algorithm.TREE, Algorithm.DIRECT};

    /** Where the root sits, for rooted collectives. */
    enum RootChoice
    {
        /** Not rooted. */
        NONE,
        /** Rank 0. */
        FIRST,
        /** Rank n/2. */
        MIDDLE,
        /** Rank n-1. */
        LAST;

        int root(final int n)
        {
            switch (this)
            {
                case FIRST:
                    return 0;
                case MIDDLE:
                    return n / 2;
                case LAST:
                    return n - 1;
                default:
                    return -1;
            }
        }
    }

    /** How the ranks' calls are made. */
    enum Drive
    {
        /** One thread: groupStart, every rank's asynchronous call, groupEnd, then join every Work. */
        GROUP,
        /** A thread per rank, each making the blocking call. */
        THREADS
    }

    /** Channels and chunk size. */
    enum Pipeline
    {
        /** The defaults: 1 channel, 128 KiB chunks. */
        DEFAULT(1, Context.CHUNK_SIZE_DEFAULT),
        /** 3 channels, 4 KiB chunks: many slots, segments split unevenly. */
        NARROW(3, 4096);

        final int channels;
        final int chunkBytes;

        Pipeline(final int channels, final int chunkBytes)
        {
            this.channels = channels;
            this.chunkBytes = chunkBytes;
        }
    }

    /** Row index of the collective ({@link #COLLECTIVES}). */
    static final int P_COLLECTIVE = 0;
    /** Row index of the type ({@link #TYPES}). */
    static final int P_TYPE = 1;
    /** Row index of the op ({@link #OPS}). */
    static final int P_OP = 2;
    /** Row index of the rank count ({@link #RANKS}). */
    static final int P_RANKS = 3;
    /** Row index of the count ({@link #COUNTS}). */
    static final int P_COUNT = 4;
    /** Row index of in-place (0 out-of-place, 1 in-place). */
    static final int P_IN_PLACE = 5;
    /** Row index of the algorithm ({@link #ALGORITHMS}). */
    static final int P_ALGORITHM = 6;
    /** Row index of the root ({@link RootChoice}). */
    static final int P_ROOT = 7;
    /** Row index of the drive ({@link Drive}). */
    static final int P_DRIVE = 8;
    /** Row index of the pipeline ({@link Pipeline}). */
    static final int P_PIPELINE = 9;

    /** Value counts per parameter. */
    static final int[] LEVELS = {
        COLLECTIVES.length, TYPES.length, OPS.length, RANKS.length, COUNTS.length, 2, ALGORITHMS.length,
        RootChoice.values().length, Drive.values().length, Pipeline.values().length};

    /**
     * The CI array leaves out rows whose buffers (all ranks' inputs and outputs together) exceed this: with 8 ranks
     * and 2^20 elements only AllReduce, Broadcast and Reduce of up to 4-byte types remain, and no pair is lost.
     */
    static final long CI_FOOTPRINT_LIMIT = 64L << 20;

    private CollectiveGrid()
    {
    }

    /** One cell of the grid. */
    record GridCase(Collective collective, DataType type, ReduceOp op, int ranks, long count, boolean inPlace,
        Algorithm algorithm, int root, Drive drive, Pipeline pipeline)
    {
        /** @return a seed for this case's inputs, stable across runs. */
        long seed()
        {
            return toString().hashCode() * 0x9E3779B97F4A7C15L;
        }

        /** @return elements in each rank's input. */
        long inputCount()
        {
            return collective == Collective.REDUCE_SCATTER ? ranks * count : count;
        }

        /** @return elements in each rank's output. */
        long outputCount()
        {
            return collective == Collective.ALL_GATHER ? ranks * count : count;
        }

        @Override
        public String toString()
        {
            return collective.xmlName() + " " + type.ncclTestsName() + (op == null ? "" : " " + op) + " n=" + ranks +
                " count=" + count + (inPlace ? " in-place" : " out-of-place") + " " + algorithm.lowerName() +
                (root < 0 ? "" : " root=" + root) + " " + drive.name().toLowerCase() + " " +
                pipeline.name().toLowerCase();
        }
    }

    /**
     * @param collective the collective.
     * @param type       element type.
     * @param ranks      rank count.
     * @param count      the count argument.
     * @return bytes of every rank's input and output together.
     */
    static long footprint(final Collective collective, final DataType type, final int ranks, final long count)
    {
        final long perRank = collective == Collective.ALL_GATHER || collective == Collective.REDUCE_SCATTER ?
            (ranks + 1L) * count : 2L * count;
        return ranks * perRank * type.byteSize();
    }

    /** @return the semantic constraint: an op exactly for reducing collectives, a root exactly for rooted ones. */
    static CoveringArray.Constraint semanticConstraint()
    {
        return row ->
        {
            final int c = row[P_COLLECTIVE];
            if (c != CoveringArray.UNSET && row[P_OP] != CoveringArray.UNSET &&
                COLLECTIVES[c].isReducing() != (OPS[row[P_OP]] != null))
            {
                return false;
            }
            return !(c != CoveringArray.UNSET && row[P_ROOT] != CoveringArray.UNSET &&
                COLLECTIVES[c].isRooted() != (RootChoice.values()[row[P_ROOT]] != RootChoice.NONE));
        };
    }

    /** @return the CI constraint: the semantic one, and at most {@link #CI_FOOTPRINT_LIMIT} bytes per row. */
    static CoveringArray.Constraint ciConstraint()
    {
        final CoveringArray.Constraint semantic = semanticConstraint();
        return row ->
        {
            if (!semantic.allows(row))
            {
                return false;
            }
            if (row[P_COLLECTIVE] == CoveringArray.UNSET || row[P_TYPE] == CoveringArray.UNSET ||
                row[P_RANKS] == CoveringArray.UNSET || row[P_COUNT] == CoveringArray.UNSET)
            {
                return true;
            }
            return footprint(COLLECTIVES[row[P_COLLECTIVE]], TYPES[row[P_TYPE]], RANKS[row[P_RANKS]],
                COUNTS[row[P_COUNT]]) <= CI_FOOTPRINT_LIMIT;
        };
    }

    /** @return the covering array CI runs. */
    static CoveringArray ciArray()
    {
        return new CoveringArray(LEVELS, ciConstraint());
    }

    /**
     * @param row a covering-array row.
     * @return the case it stands for.
     */
    static GridCase toCase(final int[] row)
    {
        final int ranks = RANKS[row[P_RANKS]];
        return new GridCase(COLLECTIVES[row[P_COLLECTIVE]], TYPES[row[P_TYPE]], OPS[row[P_OP]], ranks,
            COUNTS[row[P_COUNT]], row[P_IN_PLACE] == 1, ALGORITHMS[row[P_ALGORITHM]],
            RootChoice.values()[row[P_ROOT]].root(ranks), Drive.values()[row[P_DRIVE]],
            Pipeline.values()[row[P_PIPELINE]]);
    }

    /**
     * The direct programs beyond the covering array's pairs: AllReduce, AllGather and ReduceScatter x every type x
     * every op that applies x 3 and 5 ranks (2 ranks are the tree's order, which the array covers) x odd counts x in
     * place or not, the drive and the pipeline varying along it, and 8 ranks of 2^20 floats.
     *
     * @return those cases.
     */
    static List<GridCase> directCases()
    {
        final List<GridCase> cases = new ArrayList<>();
        for (final Collective collective : new Collective[] {Collective.ALL_REDUCE, Collective.ALL_GATHER,
            Collective.REDUCE_SCATTER})
        {
            for (final DataType type : TYPES)
            {
                for (final ReduceOp op : OPS)
                {
                    if (collective.isReducing() == (op == null))
                    {
                        continue;
                    }
                    for (final int ranks : new int[] {3, 5})
                    {
                        for (final long count : new long[] {7, 1021})
                        {
                            for (final boolean inPlace : new boolean[] {false, true})
                            {
                                final int index = cases.size();
                                cases.add(new GridCase(collective, type, op, ranks, count, inPlace,
                                    Algorithm.DIRECT, -1, index % 4 == 3 ? Drive.THREADS : Drive.GROUP,
                                    index % 3 == 2 ? Pipeline.NARROW : Pipeline.DEFAULT));
                            }
                        }
                    }
                }
            }
        }
        cases.add(new GridCase(Collective.ALL_REDUCE, DataType.FLOAT32, ReduceOp.SUM, 8, 1 << 20, true,
            Algorithm.DIRECT, -1, Drive.GROUP, Pipeline.NARROW));
        return cases;
    }

    /** @return the CI cases, in generation order. */
    static List<GridCase> ciCases()
    {
        final List<GridCase> cases = new ArrayList<>();
        for (final int[] row : ciArray().generate())
        {
            cases.add(toCase(row));
        }
        return cases;
    }

    /**
     * The full product of collective x type x op x ranks x count x in/out-of-place x algorithm x root; the drive
     * and the pipeline vary along it (every 4th case a thread per rank, every 3rd the narrow pipeline).
     *
     * @return every case.
     */
    static Stream<GridCase> fullProduct()
    {
        final List<GridCase> cases = new ArrayList<>();
        for (final Collective collective : COLLECTIVES)
        {
            for (final DataType type : TYPES)
            {
                for (final ReduceOp op : OPS)
                {
                    if (collective.isReducing() == (op == null))
                    {
                        continue;
                    }
                    for (final int ranks : RANKS)
                    {
                        for (final long count : COUNTS)
                        {
                            for (final boolean inPlace : new boolean[]{false, true})
                            {
                                for (final Algorithm algorithm : ALGORITHMS)
                                {
                                    for (final RootChoice choice : RootChoice.values())
                                    {
                                        if (collective.isRooted() == (choice == RootChoice.NONE))
                                        {
                                            continue;
                                        }
                                        final int index = cases.size();
                                        cases.add(new GridCase(collective, type, op, ranks, count, inPlace, algorithm,
                                            choice.root(ranks), index % 4 == 3 ? Drive.THREADS : Drive.GROUP,
                                            index % 3 == 2 ? Pipeline.NARROW : Pipeline.DEFAULT));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return cases.stream();
    }
}
