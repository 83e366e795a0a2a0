package io.jccl.schedules;

/**
 * The layout of the flat, fixed-width step records that the Java executor and the CUDA interpreter read alike:
 * {@link #WIDTH} ints per step, in a worker's {@code int[]}.
 * <pre>
 *   0        1          2         3          4         5            6             7
 * +--------+----------+---------+----------+---------+------------+-------------+-----------+
 * | opcode | srcBuffer| srcChunk| dstBuffer| dstChunk| chunkCount | depWorker   | depStep   |
 * +--------+----------+---------+----------+---------+------------+-------------+-----------+
 * </pre>
 * Buffers are {@link BufferKind} ordinals, chunks index the buffer's {@link ChunkLayout}; {@code depWorker} is
 * {@link #NO_DEPENDENCY} or a worker of the same rank whose step {@code depStep} must be complete (for the same
 * pipeline iteration) before this step runs.
 */
public final class StepDescriptor
{
    /** Opcode ordinal. */
    public static final int OPCODE = 0;
    /** Source buffer ordinal. */
    public static final int SRC_BUFFER = 1;
    /** Source chunk index. */
    public static final int SRC_CHUNK = 2;
    /** Destination buffer ordinal. */
    public static final int DST_BUFFER = 3;
    /** Destination chunk index. */
    public static final int DST_CHUNK = 4;
    /** Consecutive chunks the step covers (MSCCL's {@code cnt}). */
    public static final int CHUNK_COUNT = 5;
    /** Worker the step depends on, or {@link #NO_DEPENDENCY}. */
    public static final int DEP_WORKER = 6;
    /** Step of that worker. */
    public static final int DEP_STEP = 7;
    /** Ints per record. */
    public static final int WIDTH = 8;
    /** Marks a step without dependency. */
    public static final int NO_DEPENDENCY = -1;

    private StepDescriptor()
    {
    }
}
