package io.jccl.transport;

import io.jccl.Protocol;

/**
 * How each protocol frames a FIFO slot, with NCCL's buffer sizes (DESIGN.md, "The knobs"), each split into
 * {@link FifoDescriptor#SLOTS} steps.
 * <pre>
 * SIMPLE  slot = payload, published by one release-store of the slot's ready flag (data and header with it); the
 *         FIFO's tail counter advances after it.
 *
 * LL      slot = 8-byte words:  | data (4 bytes) | flag (4 bytes) |  x ceil(payload / 4), at least one word.
 *         Each word is written by one atomic 64-bit release-store, so a reader that sees the flag sees the data.
 *
 * LL128   slot = 128-byte lines: | data (120 bytes) .................... | flag (8 bytes) |  x ceil(payload / 120)
 *         The flag is stored last, with release; a reader acquires it, then reads the line.
 * </pre>
 * SIMPLE's ready flag and LL128's line flags are the slot's sequence number plus one (64 bits: they never repeat).
 * LL's 4-byte flags run 1..2^31 and repeat every 2^31 slots; twice a period a sender fills its slot to the end, so a
 * word an older, longer slot left never shows its flag as new ({@link io.jccl.kernels.LlCodec#llFillsSlot}).
 */
public final class ProtocolDescriptor
{
    /** SIMPLE's buffer: 4 MiB. */
    public static final int SIMPLE_BUFFER_LENGTH = 4 << 20;
    /** LL's buffer: 512 KiB of words, half of it payload. */
    public static final int LL_BUFFER_LENGTH = 512 << 10;
    /** LL128's buffer: 36864 lines of 128 bytes (about 4.6 MiB). */
    public static final int LL128_BUFFER_LENGTH = 36864 * 128;
    /** LL128 line length. */
    public static final int LL128_LINE = io.jccl.kernels.LlCodec.LL128_LINE;
    /** LL128 payload bytes per line. */
    public static final int LL128_LINE_DATA = io.jccl.kernels.LlCodec.LL128_LINE_DATA;

    private ProtocolDescriptor()
    {
    }

    /**
     * @param protocol a protocol.
     * @return bytes of one of its slots as laid out in the FIFO.
     */
    public static int wireSlotLength(final Protocol protocol)
    {
        return switch (protocol)
        {
            case SIMPLE -> SIMPLE_BUFFER_LENGTH / FifoDescriptor.SLOTS;
            case LL -> LL_BUFFER_LENGTH / FifoDescriptor.SLOTS;
            case LL128 -> LL128_BUFFER_LENGTH / FifoDescriptor.SLOTS;
        };
    }

    /**
     * @param protocol a protocol.
     * @return the payload one of its slots carries: the most a step (chunk) can move.
     */
    public static int payloadLength(final Protocol protocol)
    {
        return switch (protocol)
        {
            case SIMPLE -> wireSlotLength(protocol);
            case LL -> wireSlotLength(protocol) / 2;
            case LL128 -> wireSlotLength(protocol) / LL128_LINE * LL128_LINE_DATA;
        };
    }
}
