package io.jccl.transport;

/**
 * Layout of a connector FIFO in memory (SIMPLE protocol): a tail counter written by the sender, a head counter
 * written by the receiver, each on its own pair of cache lines, then per-slot headers, then the data slots.
 * <pre>
 *   0                    128                  256
 * +--------------------+--------------------+------------------------------------+-----------------------+
 * | tail (sent slots)  | head (freed slots) | slot headers: SLOTS x 64 bytes      | data: SLOTS x slotLen |
 * | long, release      | long, release      | length|kind|seq|shape|plan|direct     |                       |
 * | at 64 (a shared    |                    |   address|segment|namespace (or up  |                       |
 * | file's): attach    |                    |   to 24 bytes of data)|ready flag   |                       |
 * | count|owner pid|   |                    |                                    |                       |
 * | owner pid namespace|                    |                                    |                       |
 * +--------------------+--------------------+------------------------------------+-----------------------+
 * </pre>
 * A FIFO in a file two processes share ({@link SharedFifoFile}) uses the tail's second cache line, which nothing
 * else writes, for its attach count and the pid and pid namespace of the process that created it: written before
 * the file gets its name, they let {@link StaleSharedFiles} tell the file of a dead creator from a live one.
 * Counters are sequence numbers that only grow (a long never wraps in practice); slot {@code k} lives at index
 * {@code k % SLOTS}. The sender writes data and header, then publishes with one release-store of the slot's ready
 * flag in its header (then of the tail, which only the sender's own bookkeeping, timeouts and debugging read); the
 * receiver acquires the ready flag, reads, and frees the slot with one release-store of the head. Every slot header
 * carries the call's sequence number, the plan's hash and the hash of the call's shape, so a disagreement
 * between ranks is caught, not read as data. A direct slot (P2P with SIMPLE) carries no data: its header names where
 * in the sender's buffer the receiver reads it. Between ranks of one process that is the address (0 in a staged
 * slot). Between processes it is the buffer of jccl's shared allocator ({@link SharedBuffers}) the data lies in,
 * named by the segment id and the sender's pid namespace, and the offset in that buffer; the receiver maps the
 * buffer once by that name ({@link PeerBuffers}). A segment id of 0 marks a staged slot there.
 */
public final class FifoDescriptor
{
    /** Slots per FIFO (NCCL_STEPS). */
    public static final int SLOTS = 8;
    /** Offset of the tail counter. */
    public static final int TAIL_OFFSET = 0;
    /** Offset of the count of processes that mapped a shared FIFO (long; in the tail's second cache line). */
    public static final int ATTACH_OFFSET = 64;
    /**
     * Offset of the pid of the process that created a shared FIFO (long), written before the file is named, never
     * changed; 0 in a FIFO in process memory.
     */
    public static final int OWNER_PID_OFFSET = 72;
    /** Offset of the pid namespace of that process (long; see {@link StaleSharedFiles#pidNamespace()}). */
    public static final int OWNER_NAMESPACE_OFFSET = 80;
    /** Offset of the head counter. */
    public static final int HEAD_OFFSET = 128;
    /** Offset of the first slot header. */
    public static final int HEADERS_OFFSET = 256;
    /** Bytes per slot header (one cache line). */
    public static final int HEADER_LENGTH = 64;
    /** Offset of the slot's data length in its header (int). */
    public static final int HEADER_DATA_LENGTH = 0;
    /**
     * Offset of a SIMPLE slot's kind (int, after the data length): {@link #INLINE} when its data lies in the header
     * itself, at {@link #HEADER_INLINE_DATA}, else 0.
     */
    public static final int HEADER_KIND = 4;
    /** {@link #HEADER_KIND} of a slot whose data is in its header. */
    public static final int INLINE = 1;
    /** Offset of the call's sequence number in a slot header (long). */
    public static final int HEADER_SEQ = 8;
    /** Offset of the call's shape hash in a slot header (long). */
    public static final int HEADER_SHAPE = 16;
    /** Offset of the plan's hash in a slot header (long). */
    public static final int HEADER_PLAN = 24;
    /**
     * Offset of a direct slot's data address in the sender's memory, 0 for a staged slot (long); between processes,
     * the data's offset in the shared buffer {@link #HEADER_DIRECT_SEGMENT} names.
     */
    public static final int HEADER_DIRECT_ADDRESS = 32;
    /** Offset of the id of the sender's shared buffer a direct slot between processes reads, else 0 (long). */
    public static final int HEADER_DIRECT_SEGMENT = 40;
    /** Offset of the pid namespace of that buffer's owner, part of the buffer's file name (long). */
    public static final int HEADER_DIRECT_NAMESPACE = 48;
    /**
     * Offset of a SIMPLE slot's ready flag (long, release-stored last): the receiver polls the slot's header line,
     * not the tail, so a slot reaches it in the header's line and the data's, one cache line fewer per handoff.
     */
    public static final int HEADER_READY = 56;
    /**
     * Offset of an inline slot's data: a staged SIMPLE slot of at most {@link #INLINE_MAX} bytes travels in its header
     * line, over the direct-slot fields it does not need, so the receiver reads one line per handoff.
     */
    public static final int HEADER_INLINE_DATA = HEADER_DIRECT_ADDRESS;
    /** The largest payload carried inline. */
    public static final int INLINE_MAX = HEADER_READY - HEADER_INLINE_DATA;
    /** Offset of the first data slot. */
    public static final int DATA_OFFSET = HEADERS_OFFSET + SLOTS * HEADER_LENGTH;

    private FifoDescriptor()
    {
    }

    /**
     * @param slotLength bytes per slot.
     * @return the bytes a FIFO with slots of {@code slotLength} bytes needs.
     */
    public static long totalLength(final int slotLength)
    {
        return DATA_OFFSET + (long)SLOTS * slotLength;
    }

    /**
     * @param slot a slot sequence number (it wraps around the {@link #SLOTS} slots).
     * @return the offset of the header of slot sequence {@code slot}.
     */
    public static int headerOffset(final long slot)
    {
        return HEADERS_OFFSET + (int)(slot % SLOTS) * HEADER_LENGTH;
    }

    /**
     * @param slot       a slot sequence number (it wraps around the {@link #SLOTS} slots).
     * @param slotLength bytes per slot.
     * @return the offset of the data of slot sequence {@code slot}.
     */
    public static long dataOffset(final long slot, final int slotLength)
    {
        return DATA_OFFSET + (slot % SLOTS) * slotLength;
    }
}
