package io.jccl.schedules.msccl;

import io.jccl.Collective;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Protocol;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.Program;

import java.util.List;

/**
 * An MSCCL XML schedule: its {@link Program} and the file's metadata.
 * <p>
 * Sizes follow the current executor (msccl-executor-nccl): the file applies to calls whose total byte count
 * {@code nBytes} (the output for AllGather, the input for ReduceScatter, the send buffer for AllToAll, the buffer
 * otherwise) lies in {@code [minBytes, maxBytes]}, both inclusive. A file of the older dialect has no
 * {@code minBytes}/{@code maxBytes}: they default to 0 and unbounded (the older runtime's own default was
 * {@code [0, 128 MiB)}, which jccl does not follow); {@code maxBytes="0"} also means unbounded, as in the current
 * executor. Without {@code outofplace}, a file is out-of-place exactly when it is not in-place (the older
 * dialect's rule).
 *
 * @param program        the workers, one per {@code <tb>} in {@code id} order, plus one for the applied
 *                       {@code <copy>} precopies where the file has any that matter (see {@link MscclReader}).
 * @param name           the {@code name} attribute, or the file name when absent.
 * @param collective     {@code coll}; {@code reduce_scatter} and {@code reducescatter} are both REDUCE_SCATTER.
 * @param ngpus          rank count.
 * @param protocol       {@code proto}: {@code Simple}, {@code LL} or {@code LL128}.
 * @param nchannels      {@code nchannels}: the channels MSCCL's C executor connects.
 * @param nchunksperloop chunks of the whole per-rank buffer of the collective (the output of AllGather, the input
 *                       of ReduceScatter); every chunk of every buffer is that long.
 * @param inPlace        the schedule may serve in-place calls.
 * @param outOfPlace     the schedule may serve out-of-place calls.
 * @param minBytes       smallest {@code nBytes} served, inclusive.
 * @param maxBytes       largest {@code nBytes} served, inclusive; {@link Long#MAX_VALUE} when unbounded.
 * @param redop          the {@code redop} attribute TACCL writes, or null; informational.
 * @param root           the root of Broadcast and Reduce (jccl's {@code root} attribute, default 0), else -1.
 * @param source         the file it came from, or a description.
 * @param sourceMap      lines, paths and declarations of every part.
 * @param notes          warnings found while reading (ignored elements, what the C executors would refuse).
 */
public record MscclSchedule(Program program, String name, Collective collective, int ngpus, Protocol protocol,
    int nchannels, int nchunksperloop, boolean inPlace, boolean outOfPlace, long minBytes, long maxBytes,
    String redop, int root, String source, MscclSourceMap sourceMap, List<MscclProblem> notes)
{
    /**
     * Copies the notes.
     *
     * @param program        the workers, one per {@code <tb>} in {@code id} order, plus one for the applied
     *                       {@code <copy>} precopies where the file has any that matter (see {@link MscclReader}).
     * @param name           the {@code name} attribute, or the file name when absent.
     * @param collective     {@code coll}; {@code reduce_scatter} and {@code reducescatter} are both REDUCE_SCATTER.
     * @param ngpus          rank count.
     * @param protocol       {@code proto}: {@code Simple}, {@code LL} or {@code LL128}.
     * @param nchannels      {@code nchannels}: the channels MSCCL's C executor connects.
     * @param nchunksperloop chunks of the whole per-rank buffer of the collective (the output of AllGather, the input
     *                       of ReduceScatter); every chunk of every buffer is that long.
     * @param inPlace        the schedule may serve in-place calls.
     * @param outOfPlace     the schedule may serve out-of-place calls.
     * @param minBytes       smallest {@code nBytes} served, inclusive.
     * @param maxBytes       largest {@code nBytes} served, inclusive; {@link Long#MAX_VALUE} when unbounded.
     * @param redop          the {@code redop} attribute TACCL writes, or null; informational.
     * @param root           the root of Broadcast and Reduce (jccl's {@code root} attribute, default 0), else -1.
     * @param source         the file it came from, or a description.
     * @param sourceMap      lines, paths and declarations of every part.
     * @param notes          warnings found while reading (ignored elements, what the C executors would refuse).
     */
    public MscclSchedule
    {
        notes = List.copyOf(notes);
    }

    /**
     * Wraps a Program (a built-in's, say) as a schedule, to validate, check or write it.
     *
     * @param program    the program.
     * @param protocol   the protocol to declare.
     * @param inPlace    whether to declare it usable in place.
     * @param outOfPlace whether to declare it usable out of place.
     * @return the schedule, with a synthetic source map and unbounded size range.
     * @throws JcclInvalidArgumentException if the Program's buffers cannot be cut into MSCCL's equal chunks.
     */
    public static MscclSchedule of(final Program program, final Protocol protocol, final boolean inPlace,
        final boolean outOfPlace)
    {
        return new MscclSchedule(program, program.name(), program.collective(), program.ranks(), protocol,
            program.channels(), chunksPerLoop(program), inPlace, outOfPlace, 0, Long.MAX_VALUE, null,
            program.collective().isRooted() ? program.root() : -1, "program " + program.name(),
            MscclSourceMap.synthetic(program), List.of());
    }

    /**
     * MSCCL cuts every buffer into chunks of one size, {@code nBytes / nchunksperloop}: this is the count of the
     * largest buffer, after checking that the input and output chunk counts agree with it.
     *
     * @param program the program.
     * @return {@code nchunksperloop} for it.
     * @throws JcclInvalidArgumentException if the input and output chunk counts do not fit one chunk size.
     */
    static int chunksPerLoop(final Program program)
    {
        final int in = program.layout(BufferKind.INPUT).chunks();
        final int out = program.layout(BufferKind.OUTPUT).chunks();
        final int n = program.ranks();
        final boolean ok = switch (program.collective())
        {
            case ALL_GATHER -> (long)in * n == out;
            case REDUCE_SCATTER -> (long)out * n == in;
            default -> in == out;
        };
        if (!ok)
        {
            throw new JcclInvalidArgumentException("program " + program.name() + " (" +
                program.collective().xmlName() + ", " + n + " ranks) has " + in + " input and " + out +
                " output chunks, which do not have one chunk size as MSCCL XML requires");
        }
        return Math.max(in, out);
    }

    /**
     * The chunk count of a buffer on every rank, as MSCCL's chunk size fixes it ({@code i_chunks} of an AllGather is
     * {@code nchunksperloop / ngpus}, ...); what a {@code <gpu>} declares may be less, or 0 for a buffer it does not
     * use.
     *
     * @param collective     the collective.
     * @param ngpus          rank count.
     * @param nchunksperloop chunks per loop.
     * @param kind           INPUT or OUTPUT.
     * @return the chunk count.
     */
    static int naturalChunks(final Collective collective, final int ngpus, final int nchunksperloop,
        final BufferKind kind)
    {
        if (kind == BufferKind.INPUT && collective == Collective.ALL_GATHER ||
            kind == BufferKind.OUTPUT && collective == Collective.REDUCE_SCATTER)
        {
            return nchunksperloop / ngpus;
        }
        return nchunksperloop;
    }

    /**
     * MSCCL's selection rule for one call: the collective, the rank count, in-place or out-of-place as declared,
     * {@code minBytes <= nBytes <= maxBytes}, and the element count {@code N} (the count of the collective's whole
     * per-rank buffer: {@code count x ngpus} for AllGather and ReduceScatter and AllToAll's per-peer count, else
     * {@code count}) divisible by {@code nchunksperloop}.
     *
     * @param collective the call's collective.
     * @param ranks      the communicator's rank count.
     * @param inPlace    whether the call is in place.
     * @param nBytes     the call's size in NCCL's {@code nBytes}.
     * @param elements   {@code N} as above.
     * @return null when this schedule serves the call, else why not (for logs and the bench).
     */
    public String whyNot(final Collective collective, final int ranks, final boolean inPlace, final long nBytes,
        final long elements)
    {
        if (collective != this.collective)
        {
            return "it computes " + this.collective.xmlName() + ", not " + collective.xmlName();
        }
        if (ranks != ngpus)
        {
            return "it is for " + ngpus + " ranks, not " + ranks;
        }
        if (inPlace ? !this.inPlace : !outOfPlace)
        {
            return "it does not serve " + (inPlace ? "in-place" : "out-of-place") + " calls";
        }
        if (nBytes < minBytes || nBytes > maxBytes)
        {
            return nBytes + " bytes is outside [" + minBytes + ", " + (maxBytes == Long.MAX_VALUE ? "unbounded" :
                Long.toString(maxBytes)) + "]";
        }
        if (elements % nchunksperloop != 0)
        {
            final long below = elements / nchunksperloop * nchunksperloop;
            return elements + " elements do not divide into its " + nchunksperloop + " chunks per loop; the " +
                "nearest counts that do are " + below + " and " + (below + nchunksperloop);
        }
        return null;
    }
}
