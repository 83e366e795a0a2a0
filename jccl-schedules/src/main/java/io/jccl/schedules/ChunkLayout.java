package io.jccl.schedules;

/**
 * How a buffer is cut into chunks, independently of pipelining: first into {@code segments} equal parts (segment
 * {@code s} of {@code E} elements is {@code [s*E/segments, (s+1)*E/segments)}), then each segment into
 * {@code slices} parts the same way. Chunk {@code s * slices + k} is slice {@code k} of segment {@code s}.
 * Generators give rank-segments as segments and channels as slices, so the segment an element lies in, and with
 * it the order its reduction follows, depends on the rank count alone (DESIGN.md, arithmetic contract).
 *
 * @param segments parts at the first level, at least 1.
 * @param slices   parts of each segment, at least 1.
 */
public record ChunkLayout(int segments, int slices)
{
    /**
     * @param segments parts at the first level, at least 1.
     * @param slices   parts of each segment, at least 1.
     * @throws IllegalArgumentException if a count is below 1.
     */
    public ChunkLayout
    {
        if (segments < 1 || slices < 1)
        {
            throw new IllegalArgumentException("segments=" + segments + " and slices=" + slices + " must be >= 1");
        }
    }

    /** @return chunks in the buffer. */
    public int chunks()
    {
        return segments * slices;
    }

    /**
     * @param elements the buffer's element count.
     * @param chunk    chunk index.
     * @return the chunk's first element.
     */
    public long start(final long elements, final int chunk)
    {
        final int segment = chunk / slices;
        final long segmentStart = part(elements, segments, segment);
        final long segmentLength = part(elements, segments, segment + 1) - segmentStart;
        return segmentStart + part(segmentLength, slices, chunk % slices);
    }

    /**
     * @param elements the buffer's element count.
     * @param chunk    chunk index.
     * @return the chunk's element count.
     */
    public long length(final long elements, final int chunk)
    {
        final int segment = chunk / slices;
        final long segmentLength = part(elements, segments, segment + 1) - part(elements, segments, segment);
        final int slice = chunk % slices;
        return part(segmentLength, slices, slice + 1) - part(segmentLength, slices, slice);
    }

    /** @return {@code floor(total * index / parts)}, exact and without overflow. */
    static long part(final long total, final int parts, final int index)
    {
        return (total / parts) * index + (total % parts) * index / parts;
    }
}
