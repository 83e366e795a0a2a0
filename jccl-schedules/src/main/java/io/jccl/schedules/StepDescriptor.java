package io.jccl.schedules;

/**
 * The layout of the flat, fixed-width step records that the Java executor and the CUDA interpreter read alike:
 * {@link #WIDTH} ints per step, in a worker's {@code int[]}. The numbers come from the wire contract,
 * {@code cuda-src/jccl_wire.def}, which generates them for both sides.
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
    public static final int OPCODE = StepWire.STEP_OPCODE;
    /** Source buffer ordinal. */
    public static final int SRC_BUFFER = StepWire.STEP_SRC_BUFFER;
    /** Source chunk index. */
    public static final int SRC_CHUNK = StepWire.STEP_SRC_CHUNK;
    /** Destination buffer ordinal. */
    public static final int DST_BUFFER = StepWire.STEP_DST_BUFFER;
    /** Destination chunk index. */
    public static final int DST_CHUNK = StepWire.STEP_DST_CHUNK;
    /** Consecutive chunks the step covers (MSCCL's {@code cnt}). */
    public static final int CHUNK_COUNT = StepWire.STEP_CHUNK_COUNT;
    /** Worker the step depends on, or {@link #NO_DEPENDENCY}. */
    public static final int DEP_WORKER = StepWire.STEP_DEP_WORKER;
    /** Step of that worker. */
    public static final int DEP_STEP = StepWire.STEP_DEP_STEP;
    /** Ints per record. */
    public static final int WIDTH = StepWire.STEP_WIDTH;
    /** Marks a step without dependency. */
    public static final int NO_DEPENDENCY = StepWire.STEP_NO_DEPENDENCY;

    private StepDescriptor()
    {
    }
}
