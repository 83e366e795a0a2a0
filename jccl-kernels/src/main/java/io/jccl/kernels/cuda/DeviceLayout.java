package io.jccl.kernels.cuda;

/**
 * The memory layout the interpreter kernel ({@code cuda-src/interpreter.cu}) reads, written by the CUDA executor and
 * read by {@link EmulatedInterpreter} alike. All fields are little-endian; offsets in bytes.
 * <pre>
 * launch record (128 bytes), then one block record (128 bytes) per worker:
 *   launch: blocks, elemSize, pieceCount, iterations, scalarF (double), scalarI, abortAddr (uint32), tag,
 *           errorAddr (uint64), payloadBytes, reserved...
 *   block:  steps (int32 records, 8 per step), stepCount, flags (uint8 per step), sendFifo, recvFifo,
 *           progress (uint64 per worker of the rank), workerIndex, rankTable, clock ({entry, exit} uint64
 *           nanoseconds of the block, 0 until stamped), reserved...
 * rank table: base[3], start[3], length[3] (input, output, scratch; start and length address int64 per chunk)
 * FIFO (in the receiver's memory): tail at 0, head at 64, 8 slot headers {bytes, tag} at 128, data at 256
 * launch set (the kernels' parameter, by value): count, firstBlock[8], launch[8] (uint64 each)
 * </pre>
 * SIMPLE slots hold the payload; LL slots hold {@code {uint32 data, uint32 flag}} words, two per 8 payload bytes, the
 * flag being the slot's sequence number plus one (low 32 bits). Each chunk of a step starts at a 16-byte aligned
 * payload offset of the slot. Every number here comes from the wire contract, {@code cuda-src/jccl_wire.def}, which
 * generates {@link DeviceWire} and the kernel's {@code jccl_wire.h} alike.
 */
public final class DeviceLayout
{
    /** Slots per FIFO. */
    public static final int SLOTS = DeviceWire.SLOTS;
    /** Bytes of the launch record and of each block record. */
    public static final int RECORD_BYTES = DeviceWire.RECORD_BYTES;
    /** Launch record: number of block records. */
    public static final int L_BLOCKS = DeviceWire.L_BLOCKS;
    /** Launch record: bytes per element. */
    public static final int L_ELEM_SIZE = DeviceWire.L_ELEM_SIZE;
    /** Launch record: elements per piece. */
    public static final int L_PIECE_COUNT = DeviceWire.L_PIECE_COUNT;
    /** Launch record: pipeline iterations. */
    public static final int L_ITERATIONS = DeviceWire.L_ITERATIONS;
    /** Launch record: the op's floating scalar. */
    public static final int L_SCALAR_F = DeviceWire.L_SCALAR_F;
    /** Launch record: the op's integer scalar. */
    public static final int L_SCALAR_I = DeviceWire.L_SCALAR_I;
    /** Launch record: address of the uint32 abort flag. */
    public static final int L_ABORT_ADDR = DeviceWire.L_ABORT_ADDR;
    /** Launch record: the call's tag carried in SIMPLE slot headers. */
    public static final int L_TAG = DeviceWire.L_TAG;
    /** Launch record: address of the uint64 error word. */
    public static final int L_ERROR_ADDR = DeviceWire.L_ERROR_ADDR;
    /** Launch record: payload bytes of one slot. */
    public static final int L_PAYLOAD_BYTES = DeviceWire.L_PAYLOAD_BYTES;
    /** Block record: address of the step records. */
    public static final int B_STEPS = DeviceWire.B_STEPS;
    /** Block record: step count. */
    public static final int B_STEP_COUNT = DeviceWire.B_STEP_COUNT;
    /** Block record: address of the per-step flags. */
    public static final int B_FLAGS = DeviceWire.B_FLAGS;
    /** Block record: the FIFO this worker sends into, 0 if none. */
    public static final int B_SEND_FIFO = DeviceWire.B_SEND_FIFO;
    /** Block record: the FIFO this worker receives from, 0 if none. */
    public static final int B_RECV_FIFO = DeviceWire.B_RECV_FIFO;
    /** Block record: address of the rank's progress counters. */
    public static final int B_PROGRESS = DeviceWire.B_PROGRESS;
    /** Block record: the worker's index in its rank. */
    public static final int B_WORKER_INDEX = DeviceWire.B_WORKER_INDEX;
    /** Block record: address of the rank table. */
    public static final int B_RANK_TABLE = DeviceWire.B_RANK_TABLE;
    /** Block record: address of the block's entry and exit stamps (device nanoseconds, 0 until written). */
    public static final int B_CLOCK = DeviceWire.B_CLOCK;
    /** Most ranks one launch runs: the size of the launch set's arrays. */
    public static final int LAUNCH_SET_RANKS = DeviceWire.LAUNCH_SET_RANKS;
    /** Rank table bytes: base, start and length addresses for three buffers. */
    public static final int RANK_TABLE_BYTES = DeviceWire.RANK_TABLE_BYTES;
    /** Step flag: premultiply what the step reads from its source. */
    public static final int FLAG_PREMUL_SOURCE = DeviceWire.FLAG_PREMUL_SOURCE;
    /** Step flag: premultiply what a REDUCE step reads from its destination. */
    public static final int FLAG_PREMUL_DESTINATION = DeviceWire.FLAG_PREMUL_DESTINATION;
    /** FIFO: the tail counter (slots published). */
    public static final int FIFO_TAIL = DeviceWire.FIFO_TAIL;
    /** FIFO: the head counter (slots consumed). */
    public static final int FIFO_HEAD = DeviceWire.FIFO_HEAD;
    /** FIFO: slot headers, 16 bytes each. */
    public static final int FIFO_HEADERS = DeviceWire.FIFO_HEADERS;
    /** FIFO: slot data. */
    public static final int FIFO_DATA = DeviceWire.FIFO_DATA;
    /** Payload offsets of a slot's chunks are multiples of this. */
    public static final int REGION_ALIGN = DeviceWire.REGION_ALIGN;
    /** Pieces are a multiple of this many bytes where one fits ({@link #pieceCount}): a multiple of every element. */
    public static final int PIECE_ALIGN = 128;
    /** Error word: a slot of another call or plan arrived. */
    public static final long ERROR_TAG = DeviceWire.ERROR_TAG;
    /** Error word: a slot of an unexpected length arrived. */
    public static final long ERROR_LENGTH = DeviceWire.ERROR_LENGTH;
    /** Payload bytes of a SIMPLE slot (NCCL's 4 MiB buffer in 8 steps). */
    public static final int SIMPLE_PAYLOAD = (4 << 20) / SLOTS;
    /** Payload bytes of an LL slot (NCCL's 512 KiB buffer in 8 steps, half of it flags). */
    public static final int LL_PAYLOAD = (512 << 10) / SLOTS / 2;

    private DeviceLayout()
    {
    }

    /**
     * @param protocol the protocol id (0 SIMPLE, 1 LL).
     * @return the slot payload capacity.
     */
    public static int payloadBytes(final int protocol)
    {
        return protocol == 0 ? SIMPLE_PAYLOAD : LL_PAYLOAD;
    }

    /**
     * @param protocol the protocol id.
     * @param payload  payload bytes.
     * @return the bytes those take in a slot: twice as many for LL.
     */
    public static long wireBytes(final int protocol, final long payload)
    {
        return protocol == 0 ? payload : payload * 2;
    }

    /**
     * @param protocol the protocol id.
     * @return the bytes of a whole FIFO.
     */
    public static long fifoBytes(final int protocol)
    {
        return FIFO_DATA + SLOTS * wireBytes(protocol, payloadBytes(protocol));
    }

    /**
     * @param bytes a chunk's bytes in a slot.
     * @return the payload offset the next chunk starts at.
     */
    public static long alignRegion(final long bytes)
    {
        return (bytes + REGION_ALIGN - 1) & -REGION_ALIGN;
    }

    /**
     * Elements per piece: a slot carries one piece of each chunk a step moves, each region aligned. A piece is a
     * multiple of {@link #PIECE_ALIGN} bytes wherever one fits, so every piece of a chunk starts as the chunk does
     * relative to a 16-byte vector: with 3 float chunks in SIMPLE's slot a piece used to be 174,744 bytes (not a
     * multiple of 16), which put every second piece off the vectors its first piece used.
     *
     * @param protocol      the protocol id.
     * @param chunkBytes    the plan's chunk bytes, at least 1.
     * @param maxChunkCount the most chunks one step of the program moves, at least 1.
     * @param elemSize      bytes per element.
     * @return elements per piece, at least 1; every rank computes the same from the same plan and program.
     */
    public static long pieceCount(final int protocol, final long chunkBytes, final int maxChunkCount,
        final int elemSize)
    {
        final long fits = Math.min(chunkBytes,
            (payloadBytes(protocol) - (long)REGION_ALIGN * maxChunkCount) / maxChunkCount);
        final long pieceBytes = fits >= PIECE_ALIGN ? fits / PIECE_ALIGN * PIECE_ALIGN : fits;
        return Math.max(1, pieceBytes / elemSize);
    }

    /**
     * The interpreter kernels' parameter: which launch record each block of one launch runs, rank after rank.
     *
     * @param launches the ranks' launch records (device addresses), at most {@link #LAUNCH_SET_RANKS}.
     * @param blocks   each rank's blocks (its workers).
     * @return the set's uint64 fields, for {@link CudaApi#launchInterpreter}.
     * @throws IllegalArgumentException if there are no ranks, too many, or the arrays differ in length.
     */
    public static long[] launchSet(final long[] launches, final int[] blocks)
    {
        if (launches.length < 1 || launches.length > LAUNCH_SET_RANKS || launches.length != blocks.length)
        {
            throw new IllegalArgumentException("a launch runs 1.." + LAUNCH_SET_RANKS + " ranks, not " +
                launches.length + " launch records for " + blocks.length + " block counts");
        }
        return fillLaunchSet(new long[DeviceWire.LAUNCH_SET_BYTES / 8], launches, blocks, launches.length);
    }

    /**
     * {@link #launchSet} into an array of the set's size, for a launch that allocates nothing.
     *
     * @param set      the set's fields, overwritten.
     * @param launches the ranks' launch records.
     * @param blocks   each rank's blocks.
     * @param count    how many ranks of the arrays the launch runs, 1..{@link #LAUNCH_SET_RANKS}.
     * @return {@code set}.
     */
    public static long[] fillLaunchSet(final long[] set, final long[] launches, final int[] blocks, final int count)
    {
        java.util.Arrays.fill(set, 0);
        set[DeviceWire.LAUNCH_SET_COUNT / 8] = count;
        long first = 0;
        for (int r = 0; r < count; r++)
        {
            set[DeviceWire.LAUNCH_SET_FIRST_BLOCK / 8 + r] = first;
            set[DeviceWire.LAUNCH_SET_LAUNCH / 8 + r] = launches[r];
            first += blocks[r];
        }
        return set;
    }

    /**
     * @param set a launch set.
     * @return its ranks' launch records.
     */
    static long[] launchesOf(final long[] set)
    {
        return java.util.Arrays.copyOfRange(set, DeviceWire.LAUNCH_SET_LAUNCH / 8,
            DeviceWire.LAUNCH_SET_LAUNCH / 8 + (int)set[DeviceWire.LAUNCH_SET_COUNT / 8]);
    }

    /**
     * @param set    a launch set.
     * @param blocks the launch's grid size.
     * @return each rank's block count.
     */
    static int[] blocksOf(final long[] set, final int blocks)
    {
        final int count = (int)set[DeviceWire.LAUNCH_SET_COUNT / 8];
        final int[] each = new int[count];
        for (int r = 0; r < count; r++)
        {
            final long next = r + 1 < count ? set[DeviceWire.LAUNCH_SET_FIRST_BLOCK / 8 + r + 1] : blocks;
            each[r] = (int)(next - set[DeviceWire.LAUNCH_SET_FIRST_BLOCK / 8 + r]);
        }
        return each;
    }

    /**
     * The tag a slot carries, which the kernels compare so a slot of another call or plan is told apart.
     *
     * @param seq      the call's sequence number.
     * @param shape    the call's shape hash.
     * @param planHash the call's plan hash.
     * @return sequence, shape and plan in one word, never 0.
     */
    public static long slotTag(final long seq, final long shape, final long planHash)
    {
        final long tag = (seq * 0x9E3779B97F4A7C15L) ^ shape ^ (planHash * 31);
        return tag == 0 ? 1 : tag;
    }
}
