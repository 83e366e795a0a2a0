package io.jccl.schedules;

import io.jccl.Collective;

import java.util.Arrays;
import java.util.List;

/**
 * One collective written as workers per rank (DESIGN.md, "One idea carries the whole house"). Built-in
 * algorithms generate Programs, MSCCL XML files parse into them, and one executor runs them all. A Program does
 * not depend on the call's count, type or op: chunk {@code k} of a buffer is given by the buffer's
 * {@link ChunkLayout} over the element count of the call, and the executor pipelines every chunk in pieces of the
 * plan's chunk size, running each worker's steps once per piece.
 */
public final class Program
{
    private final String name;
    private final Collective collective;
    private final int ranks;
    private final int root;
    private final ChunkLayout inputLayout;
    private final ChunkLayout outputLayout;
    private final ChunkLayout scratchLayout;
    private final Worker[][] workers;
    private final int channels;

    /**
     * @param name          a short name ({@code ring}, {@code tree}, a file name).
     * @param collective    what it computes.
     * @param ranks         rank count.
     * @param root          root rank for Broadcast and Reduce, else -1.
     * @param inputLayout   chunks of the input buffer.
     * @param outputLayout  chunks of the output buffer.
     * @param scratchLayout chunks of a scratch buffer as long as the input, or null when none is used.
     * @param workers       per rank, its workers.
     */
    public Program(final String name, final Collective collective, final int ranks, final int root,
        final ChunkLayout inputLayout, final ChunkLayout outputLayout, final ChunkLayout scratchLayout,
        final List<List<Worker>> workers)
    {
        if (workers.size() != ranks)
        {
            throw new IllegalArgumentException("workers for " + workers.size() + " ranks, expected " + ranks);
        }
        this.name = name;
        this.collective = collective;
        this.ranks = ranks;
        this.root = root;
        this.inputLayout = inputLayout;
        this.outputLayout = outputLayout;
        this.scratchLayout = scratchLayout;
        this.workers = workers.stream().map(l -> l.toArray(new Worker[0])).toArray(Worker[][]::new);
        this.channels = Arrays.stream(this.workers).flatMap(Arrays::stream).mapToInt(Worker::channel).max()
            .orElse(0) + 1;
    }

    /** @return the program's short name. */
    public String name()
    {
        return name;
    }

    /** @return the collective it computes. */
    public Collective collective()
    {
        return collective;
    }

    /** @return the rank count. */
    public int ranks()
    {
        return ranks;
    }

    /** @return the root for Broadcast and Reduce, else -1. */
    public int root()
    {
        return root;
    }

    /**
     * @param kind the buffer.
     * @return the chunks of a buffer; null for a scratch buffer the program does not use.
     */
    public ChunkLayout layout(final BufferKind kind)
    {
        return switch (kind)
        {
            case INPUT -> inputLayout;
            case OUTPUT -> outputLayout;
            case SCRATCH -> scratchLayout;
        };
    }

    /**
     * The scratch buffer has the input's chunk size: {@code inputElements x scratchChunks / inputChunks} elements
     * (as MSCCL sizes its scratch; a tree's scratch is exactly as long as its input).
     *
     * @param inputElements the input buffer's element count.
     * @return the scratch buffer's element count, 0 when the program uses none.
     */
    public long scratchElements(final long inputElements)
    {
        if (scratchLayout == null)
        {
            return 0;
        }
        return Math.multiplyHigh(inputElements, scratchLayout.chunks()) == 0 ?
            inputElements * scratchLayout.chunks() / inputLayout.chunks() :
            inputElements / inputLayout.chunks() * scratchLayout.chunks();
    }

    /**
     * @param rank a rank.
     * @return the workers of a rank.
     */
    public List<Worker> workers(final int rank)
    {
        return List.of(workers[rank]);
    }

    /** @return the largest chunk count any step covers (bounds the piece that fits a FIFO slot). */
    public int maxChunkCount()
    {
        int max = 1;
        for (final Worker[] rankWorkers : workers)
        {
            for (final Worker w : rankWorkers)
            {
                for (int s = 0; s < w.stepCount(); s++)
                {
                    max = Math.max(max, w.field(s, StepDescriptor.CHUNK_COUNT));
                }
            }
        }
        return max;
    }

    /** @return the largest channel index used plus one. */
    public int channels()
    {
        return channels;
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder(name).append(' ').append(collective.xmlName()).append(" ranks=")
            .append(ranks).append('\n');
        for (int r = 0; r < ranks; r++)
        {
            for (final Worker w : workers[r])
            {
                sb.append("  rank ").append(r).append(' ').append(w).append('\n');
            }
        }
        return sb.toString();
    }
}
