package io.jccl.schedules.msccl;

import io.jccl.Collective;
import io.jccl.schedules.BufferKind;

/**
 * The memory of one rank as cells of one chunk each, with the in-place aliasing of MSCCL-XML.md section 5: in
 * place, AllGather's {@code i[k]} is {@code o[rank*i_chunks + k]}, ReduceScatter's {@code o[k]} is
 * {@code i[rank*o_chunks + k]}, and every other collective's {@code o[k]} is {@code i[k]}. Out of place the
 * buffers are disjoint. Cells are numbered input first, then output, then scratch.
 */
final class Cells
{
    private final Collective collective;
    private final int rank;
    private final int inputChunks;
    private final int outputChunks;
    private final int scratchChunks;
    private final boolean inPlace;

    /**
     * @param collective    the collective, which fixes the aliasing.
     * @param rank          the rank.
     * @param inputChunks   chunks of the input buffer.
     * @param outputChunks  chunks of the output buffer.
     * @param scratchChunks chunks of the scratch buffer.
     * @param inPlace       whether input and output alias.
     */
    Cells(final Collective collective, final int rank, final int inputChunks, final int outputChunks,
        final int scratchChunks, final boolean inPlace)
    {
        this.collective = collective;
        this.rank = rank;
        this.inputChunks = inputChunks;
        this.outputChunks = outputChunks;
        this.scratchChunks = scratchChunks;
        this.inPlace = inPlace;
    }

    /** @return the number of cells. */
    int count()
    {
        return inputChunks + outputChunks + scratchChunks;
    }

    /**
     * @param kind  buffer.
     * @param chunk chunk index (in range).
     * @return the cell holding that chunk.
     */
    int cell(final BufferKind kind, final int chunk)
    {
        return switch (kind)
        {
            case SCRATCH -> inputChunks + outputChunks + chunk;
            case INPUT -> inPlace && collective == Collective.ALL_GATHER ?
                inputChunks + rank * inputChunks + chunk : chunk;
            case OUTPUT ->
            {
                if (!inPlace || collective == Collective.ALL_GATHER)
                {
                    yield inputChunks + chunk;
                }
                yield collective == Collective.REDUCE_SCATTER ? rank * outputChunks + chunk : chunk;
            }
        };
    }

    /**
     * @param inputChunk  a chunk of the input.
     * @param outputChunk a chunk of the output.
     * @return true when both are one cell (a copy between them changes nothing).
     */
    boolean sameCell(final int inputChunk, final int outputChunk)
    {
        return cell(BufferKind.INPUT, inputChunk) == cell(BufferKind.OUTPUT, outputChunk);
    }

    /** @return "i[3]" style name of a cell, as the input names it where it can. */
    String name(final int cell)
    {
        if (cell >= inputChunks + outputChunks)
        {
            return "s[" + (cell - inputChunks - outputChunks) + "]";
        }
        if (cell >= inputChunks)
        {
            return "o[" + (cell - inputChunks) + "]";
        }
        return "i[" + cell + "]";
    }
}
