package io.jccl.transport.bootstrap;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The bootstrap's wire format. A connecting rank opens with a hello, unframed so that rank 0 can judge a stranger
 * after a few bytes:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                        magic "JCCL"                           |
 *  +---------------------------------------------------------------+
 *  |                       protocol version                        |
 *  +---------------------------------------------------------------+
 *  |                    secret (16 bytes) ...                      |
 *  +---------------------------------------------------------------+
 *  |                             rank                              |
 *  +---------------------------------------------------------------+
 *  |                      size (number of ranks)                   |
 *  +---------------------------------------------------------------+
 *  |                     length of the peer info                   |
 *  +---------------------------------------------------------------+
 *  |                 peer info (PeerInfo.writeTo) ...              |
 *  +---------------------------------------------------------------+
 * </pre>
 * Everything after the hello, both ways, is a frame: an int length (of type and payload), a type byte and the
 * payload. All integers are big-endian.
 */
final class BootstrapProtocol
{
    /** "JCCL" in ASCII. */
    static final int MAGIC = 0x4A43434C;
    static final int VERSION = 1;
    static final int HELLO_HEADER_LENGTH = 4 + 4 + 16 + 4 + 4 + 4;

    /** How long rank 0 waits for a stranger's complete hello before it drops the connection. */
    static final long HELLO_TIMEOUT_MS = 1000;

    /** How long {@code close()} waits, at most, for peers to acknowledge its goodbye. */
    static final long CLOSE_LINGER_MS = 2000;

    /** How long {@code abort()} waits, at most, to hand its notice to the peers' connections before it closes them. */
    static final long ABORT_NOTICE_MS = 500;

    /** The most bytes one rank may contribute to an all-gather. */
    static final int MAX_GATHER_LENGTH = 1024 * 1024;

    /** The longest frame rank 0 accepts from a peer: a contribution and its sequence number. */
    static final int MAX_FRAME_TO_ROOT = MAX_GATHER_LENGTH + 64;

    /** The longest frame a peer accepts from rank 0 (a peer table or an all-gather result). */
    static final int MAX_FRAME_FROM_ROOT = 1 << 30;

    /** Rank 0 to a peer: its hello was accepted; the table follows once every rank is in. */
    static final int WELCOME = 1;
    /** Rank 0 to a peer that presented the secret but a wrong rank or size: UTF reason. */
    static final int REJECT = 2;
    /** Rank 0 to a peer: int count, then per rank an int length and its peer info. */
    static final int TABLE = 3;
    /** Rank 0 to a peer when the rendezvous fails: boolean timed out, UTF reason. */
    static final int ABORT = 4;
    /** A peer to rank 0: long sequence, then the contribution's bytes. */
    static final int GATHER = 5;
    /** Rank 0 to a peer: long sequence, int count, then per rank an int length and the bytes. */
    static final int GATHERED = 6;
    /** Rank 0 to a peer: long sequence, boolean timed out, UTF reason. */
    static final int GATHER_FAILED = 7;
    /** Either way: a clean close follows; no payload. */
    static final int GOODBYE = 8;
    /** Rank 0 to a peer: int rank, UTF reason. */
    static final int RANK_DIED = 9;
    /** Rank 0 to a peer: int rank that closed cleanly. */
    static final int RANK_LEFT = 10;
    /** Root to peer: a notice for the layer above (the online tuner's records), in order. */
    static final int NOTICE = 11;
    /**
     * A rank's communicator failed there (its own timeout, its abort, an error it found): int rank where it
     * failed, byte kind ({@link #FAILED_ERROR}, {@link #FAILED_TIMEOUT}, {@link #FAILED_ABORTED}), UTF reason. A peer
     * sends it to rank 0 about itself; rank 0 sends it to every rank, about itself or relaying a peer's. After an
     * abort the sender closes at once: its end of stream is then not a death.
     */
    static final int FAILED = 12;

    /** {@link #FAILED}'s kind: an error that is neither a timeout nor an abort. */
    static final byte FAILED_ERROR = 0;
    /** {@link #FAILED}'s kind: the rank's call timed out. */
    static final byte FAILED_TIMEOUT = 1;
    /** {@link #FAILED}'s kind: the rank aborted its communicator. */
    static final byte FAILED_ABORTED = 2;
    /** The longest reason {@link #FAILED} carries, in characters: a timeout's record is cut there. */
    static final int MAX_FAILED_REASON = 8192;

    private BootstrapProtocol()
    {
    }

    /** Writes a payload into a byte array. */
    @FunctionalInterface
    interface PayloadWriter
    {
        /**
         * @param out where to write.
         * @throws IOException never for a byte array; declared for {@link DataOutputStream}.
         */
        void write(DataOutputStream out) throws IOException;
    }

    /**
     * @param writer what to write.
     * @return the bytes written.
     */
    static byte[] encode(final PayloadWriter writer)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            writer.write(out);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /**
     * @param payload a frame's payload.
     * @return a reader over it.
     */
    static DataInputStream decode(final byte[] payload)
    {
        return new DataInputStream(new ByteArrayInputStream(payload));
    }

    /**
     * @param type a frame type.
     * @return its name, for messages.
     */
    static String typeName(final int type)
    {
        return switch (type)
        {
            case WELCOME -> "WELCOME";
            case REJECT -> "REJECT";
            case TABLE -> "TABLE";
            case ABORT -> "ABORT";
            case GATHER -> "GATHER";
            case GATHERED -> "GATHERED";
            case GATHER_FAILED -> "GATHER_FAILED";
            case GOODBYE -> "GOODBYE";
            case RANK_DIED -> "RANK_DIED";
            case RANK_LEFT -> "RANK_LEFT";
            case NOTICE -> "NOTICE";
            case FAILED -> "FAILED";
            default -> "type " + type;
        };
    }
}
