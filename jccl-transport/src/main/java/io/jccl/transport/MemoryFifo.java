package io.jccl.transport;

import io.jccl.Protocol;
import io.jccl.kernels.Device;
import io.jccl.kernels.HostDevice;
import io.jccl.kernels.LlCodec;
import org.agrona.UnsafeApi;

import static io.jccl.transport.FifoDescriptor.HEADER_DATA_LENGTH;
import static io.jccl.transport.FifoDescriptor.HEADER_DIRECT_ADDRESS;
import static io.jccl.transport.FifoDescriptor.HEADER_DIRECT_NAMESPACE;
import static io.jccl.transport.FifoDescriptor.HEADER_DIRECT_SEGMENT;
import static io.jccl.transport.FifoDescriptor.HEADER_INLINE_DATA;
import static io.jccl.transport.FifoDescriptor.HEADER_KIND;
import static io.jccl.transport.FifoDescriptor.HEADER_PLAN;
import static io.jccl.transport.FifoDescriptor.HEADER_READY;
import static io.jccl.transport.FifoDescriptor.HEADER_SEQ;
import static io.jccl.transport.FifoDescriptor.HEADER_SHAPE;
import static io.jccl.transport.FifoDescriptor.HEAD_OFFSET;
import static io.jccl.transport.FifoDescriptor.INLINE;
import static io.jccl.transport.FifoDescriptor.INLINE_MAX;
import static io.jccl.transport.FifoDescriptor.SLOTS;
import static io.jccl.transport.FifoDescriptor.TAIL_OFFSET;
import static io.jccl.transport.ProtocolDescriptor.LL128_LINE_DATA;

/**
 * A FIFO between two ranks in memory, laid out as {@link FifoDescriptor} says and framed as its {@link Protocol}
 * says ({@link ProtocolDescriptor}): in process memory the device allocated (ranks of one process, P2P), in a
 * shared-memory mapping (SHM), or in a file two processes map ({@link SharedFifoFile}); the network transport
 * stages its slots in one too. Its two ends are separate objects so each end's cached view of the other's counter
 * stays on its own side.
 * <p>
 * The executor never sees the framing: with LL and LL128 each end has a plain staging slot; publishing encodes it
 * into flagged words or lines, and a receiver decodes a slot once every flag of it has arrived.
 * <p>
 * A direct FIFO (P2P with SIMPLE) lets a sender publish data in place. In one process a slot carries the data's
 * address. Between processes (a FIFO in a file both map) it carries the shared buffer and offset the data lies at:
 * the sender accepts only ranges of its {@link SharedBuffers}, and the receiver maps the named buffer through its
 * {@link PeerBuffers}.
 * <p>
 * About 600 lines on purpose: the two ends of one FIFO, whose counters and slot states mirror each other, and the
 * test hook that moves both at once ({@code restartAt}); the LL and LL128 framing, flag period and fill included, is
 * {@link io.jccl.kernels.LlCodec}'s.
 */
public final class MemoryFifo implements HostConnection, AutoCloseable
{
    private final Device device;
    private final Protocol protocol;
    private final boolean direct;
    /** Between processes: the sender's allocator, whose buffers alone the receiver can read in place; else null. */
    private final SharedBuffers ownBuffers;
    /** Between processes: where the receiver maps the sender's buffers; else null. */
    private final PeerBuffers peerBuffers;
    private final long base;
    private final java.util.function.LongConsumer freeBase;
    private final int wireSlotLength;
    private final int payloadLength;
    private final Sender sender;
    private final Receiver receiver;

    /**
     * @param device   where the FIFO's memory lives.
     * @param protocol the framing.
     * @param from     sending rank.
     * @param to       receiving rank.
     */
    public MemoryFifo(final Device device, final Protocol protocol, final int from, final int to)
    {
        this(device, protocol, false, from, to);
    }

    /**
     * @param device   where the FIFO's memory lives.
     * @param protocol the framing.
     * @param direct   true when the receiver may read the sender's buffers (only with SIMPLE).
     * @param from     sending rank.
     * @param to       receiving rank.
     * @throws IllegalArgumentException when {@code direct} is asked with LL or LL128.
     */
    public MemoryFifo(final Device device, final Protocol protocol, final boolean direct, final int from,
        final int to)
    {
        this(device, device.allocate(totalLength(protocol)), device::free, protocol, direct,
            ProtocolDescriptor.wireSlotLength(protocol), null, null, from, to);
    }

    /**
     * A SIMPLE-framed FIFO in the device's memory whose slots hold {@code payloadLength} bytes: the staging ring a
     * proxy fills or drains on one side (the network transport's send and receive rings).
     *
     * @param device        where the FIFO's memory lives.
     * @param payloadLength bytes per slot, positive.
     * @param from          sending rank.
     * @param to            receiving rank.
     * @return the FIFO.
     */
    public static MemoryFifo staging(final Device device, final int payloadLength, final int from, final int to)
    {
        return new MemoryFifo(device, device.allocate(FifoDescriptor.totalLength(payloadLength)), device::free,
            Protocol.SIMPLE, false, payloadLength, null, null, from, to);
    }

    /**
     * A FIFO in memory the caller provides, such as a file mapped by two processes; each process uses one end.
     *
     * @param base     the FIFO's memory, {@link #totalLength(Protocol)} bytes, zeroed before either end uses it.
     * @param freeBase releases that memory on {@link #close()}.
     * @param protocol the framing.
     * @param from     sending rank.
     * @param to       receiving rank.
     */
    public MemoryFifo(final long base, final java.util.function.LongConsumer freeBase, final Protocol protocol,
        final int from, final int to)
    {
        this(HostDevice.INSTANCE, base, freeBase, protocol, false, ProtocolDescriptor.wireSlotLength(protocol), null,
            null, from, to);
    }

    /**
     * A direct FIFO between processes, in memory the caller provides (a file both processes map): a sender in this
     * process publishes ranges of {@code ownBuffers} in place, a receiver here maps the sender's buffers through
     * {@code peerBuffers}; other data is staged.
     *
     * @param base        the FIFO's memory, {@link #totalLength(Protocol)} bytes of SIMPLE, zeroed before use.
     * @param freeBase    releases that memory on {@link #close()}.
     * @param ownBuffers  this process's shared allocator.
     * @param peerBuffers this process's mappings of peers' buffers.
     * @param from        sending rank.
     * @param to          receiving rank.
     */
    public MemoryFifo(final long base, final java.util.function.LongConsumer freeBase,
        final SharedBuffers ownBuffers, final PeerBuffers peerBuffers, final int from, final int to)
    {
        this(HostDevice.INSTANCE, base, freeBase, Protocol.SIMPLE, true,
            ProtocolDescriptor.wireSlotLength(Protocol.SIMPLE), ownBuffers, peerBuffers, from, to);
    }

    private MemoryFifo(final Device device, final long base, final java.util.function.LongConsumer freeBase,
        final Protocol protocol, final boolean direct, final int wireSlotLength, final SharedBuffers ownBuffers,
        final PeerBuffers peerBuffers, final int from, final int to)
    {
        if (direct && protocol != Protocol.SIMPLE)
        {
            throw new IllegalArgumentException("direct access needs SIMPLE, not " + protocol);
        }
        this.direct = direct;
        this.ownBuffers = ownBuffers;
        this.peerBuffers = peerBuffers;
        this.device = device;
        this.protocol = protocol;
        this.wireSlotLength = wireSlotLength;
        this.payloadLength = protocol == Protocol.SIMPLE ? wireSlotLength : ProtocolDescriptor.payloadLength(protocol);
        this.base = base;
        this.freeBase = freeBase;
        this.sender = new Sender(to, protocol == Protocol.SIMPLE ? 0 : device.allocate(payloadLength));
        this.receiver = new Receiver(from, protocol == Protocol.SIMPLE ? 0 : device.allocate(payloadLength));
    }

    /**
     * @param protocol a protocol.
     * @return the bytes of a FIFO with that protocol's framing.
     */
    public static long totalLength(final Protocol protocol)
    {
        return FifoDescriptor.totalLength(ProtocolDescriptor.wireSlotLength(protocol));
    }

    /** @return the sending end. */
    public SendConnector sender()
    {
        return sender;
    }

    /** @return the receiving end. */
    public RecvConnector receiver()
    {
        return receiver;
    }

    /** @return the framing. */
    public Protocol protocol()
    {
        return protocol;
    }

    /** @return the slots the receiving end has released so far (its head), read with acquire. */
    public long released()
    {
        return UnsafeApi.getLongAcquire(null, base + HEAD_OFFSET);
    }

    /** Frees the memory; neither end may be used afterwards. */
    @Override
    public void close()
    {
        freeBase.accept(base);
        device.free(sender.staging);
        device.free(receiver.staging);
    }

    /** @return where slot sequence {@code slot}'s data lies on the wire. */
    long wireSlot(final long slot)
    {
        return base + FifoDescriptor.dataOffset(slot, wireSlotLength);
    }

    /** @return where slot sequence {@code slot}'s header lies. */
    long headerAddress(final long slot)
    {
        return base + FifoDescriptor.headerOffset(slot);
    }

    /**
     * @return the flag of slot sequence {@code slot} in SIMPLE's ready word and LL128's lines (64 bits each): never
     *         0, never repeated. LL's 32-bit flags are {@link LlCodec#llFlag}'s.
     */
    private static long flag(final long slot)
    {
        return slot + 1;
    }

    /**
     * Moves both ends, idle, to slot sequence {@code slot}, as if that many slots had passed (a test hook: the
     * flags' wrap-around is reached in a test, not after billions of slots).
     *
     * @param slot the next slot of both ends.
     * @throws IllegalStateException if a slot is in flight.
     */
    void restartAt(final long slot)
    {
        if (sender.tail != receiver.head || receiver.complete)
        {
            throw new IllegalStateException("slots in flight: tail " + sender.tail + ", head " + receiver.head);
        }
        sender.tail = slot;
        sender.cachedHead = slot;
        sender.directTail = slot;
        receiver.head = slot;
        UnsafeApi.putLongRelease(null, base + TAIL_OFFSET, slot);
        UnsafeApi.putLongRelease(null, base + HEAD_OFFSET, slot);
    }

    private final class Sender implements SendConnector
    {
        private final int peer;
        private final long staging;
        private long tail;
        private long cachedHead;
        /** The tail just after the last direct slot: until the head reaches it, the receiver may still read it. */
        private long directTail;
        /** The next slot's data was placed in its header ({@link #slotAddress(int)}). */
        private boolean inline;
        /** Between processes: the shared buffers of the last two direct slots (a call alternates input, output). */
        private SharedBuffers.Segment recent;
        private SharedBuffers.Segment older;

        Sender(final int peer, final long staging)
        {
            this.peer = peer;
            this.staging = staging;
        }

        @Override
        public boolean hasSpace()
        {
            if (tail - cachedHead < SLOTS)
            {
                return true;
            }
            cachedHead = UnsafeApi.getLongAcquire(null, base + HEAD_OFFSET);
            return tail - cachedHead < SLOTS;
        }

        @Override
        public long slotAddress()
        {
            inline = false;
            return protocol == Protocol.SIMPLE ? wireSlot(tail) : staging;
        }

        @Override
        public long slotAddress(final int length)
        {
            if (protocol != Protocol.SIMPLE || length > INLINE_MAX)
            {
                return slotAddress();
            }
            // the header's line carries the data too: the receiver's one read of the ready flag brings both
            inline = true;
            return base + FifoDescriptor.headerOffset(tail) + HEADER_INLINE_DATA;
        }

        @Override
        public int slotLength()
        {
            return payloadLength;
        }

        @Override
        public boolean direct()
        {
            return direct;
        }

        @Override
        public boolean readableInPlace(final long address, final long length)
        {
            return direct && (ownBuffers == null || ownBuffers.find(address, length) != null);
        }

        @Override
        public void publishDirect(final long address, final int length, final long seq, final long shape,
            final long plan)
        {
            if (!direct)
            {
                SendConnector.super.publishDirect(address, length, seq, shape, plan);
            }
            inline = false;
            if (ownBuffers == null)
            {
                writeHeader(length, seq, shape, plan, address, 0);
            }
            else
            {
                final SharedBuffers.Segment segment = segmentOf(address, length);
                writeHeader(length, seq, shape, plan, address - segment.address(), segment.id());
            }
            // the referenced data and the header become visible with the ready flag
            markReady();
            directTail = tail;
        }

        /**
         * Only direct slots keep the sender waiting: a staged slot's data is already in the FIFO, so reading the
         * receiver's head after each call (pulling its line over, and it back for the next release) would add a
         * handoff for nothing.
         */
        @Override
        public boolean drained()
        {
            return cachedHead >= directTail ||
                (cachedHead = UnsafeApi.getLongAcquire(null, base + HEAD_OFFSET)) >= directTail;
        }

        /** SIMPLE: one release-store of the slot's ready flag publishes data and header; then the tail advances. */
        private void markReady()
        {
            UnsafeApi.putLongRelease(null, base + FifoDescriptor.headerOffset(tail) + HEADER_READY, flag(tail));
            UnsafeApi.putLongRelease(null, base + TAIL_OFFSET, ++tail);
        }

        /** @return the shared buffer that holds the range; the last two are remembered, so no lookup per slot. */
        private SharedBuffers.Segment segmentOf(final long address, final int length)
        {
            if (recent == null || !recent.holds(address, length))
            {
                final SharedBuffers.Segment swap = older;
                older = recent;
                recent = ownBuffers.find(swap, address, length);
                if (recent == null)
                {
                    throw new IllegalStateException("direct slot of " + length + " bytes at " + address +
                        " to rank " + peer + " outside jccl's shared buffers (freed during the call?)");
                }
            }
            return recent;
        }

        private void writeHeader(final int length, final long seq, final long shape, final long plan,
            final long address, final long segment)
        {
            final long header = base + FifoDescriptor.headerOffset(tail);
            UnsafeApi.putInt(header + HEADER_DATA_LENGTH, length);
            UnsafeApi.putLong(header + HEADER_SEQ, seq);
            UnsafeApi.putLong(header + HEADER_SHAPE, shape);
            UnsafeApi.putLong(header + HEADER_PLAN, plan);
            if (inline)
            {
                // the data lies over the direct-slot fields
                UnsafeApi.putInt(header + HEADER_KIND, INLINE);
                inline = false;
                return;
            }
            UnsafeApi.putInt(header + HEADER_KIND, 0);
            UnsafeApi.putLong(header + HEADER_DIRECT_ADDRESS, address);
            UnsafeApi.putLong(header + HEADER_DIRECT_SEGMENT, segment);
            if (segment != 0)
            {
                UnsafeApi.putLong(header + HEADER_DIRECT_NAMESPACE, StaleSharedFiles.pidNamespace());
            }
        }

        @Override
        public void publish(final int length, final long seq, final long shape, final long plan)
        {
            writeHeader(length, seq, shape, plan, 0, 0);
            switch (protocol)
            {
                case SIMPLE -> markReady();
                case LL -> encodeLl(length);
                case LL128 -> encodeLl128(length);
            }
            if (protocol != Protocol.SIMPLE)
            {
                // LL and LL128 publish through their flags, the tail only serves debugging and timeouts
                UnsafeApi.putLongRelease(null, base + TAIL_OFFSET, ++tail);
            }
        }

        /** Every 4 data bytes travel with the flag in one 64-bit release-store (the header was written before). */
        private void encodeLl(final int length)
        {
            final int words = LlCodec.llWords(length);
            final int flag = LlCodec.llFlag(tail);
            LlCodec.packWords(staging, wireSlot(tail), words, flag);
            if (LlCodec.llFillsSlot(tail, SLOTS))
            {
                LlCodec.fillWords(wireSlot(tail), words, wireSlotLength / LlCodec.LL_WORD, flag);
            }
        }

        /** 120 data bytes per line, then the line's flag with release. */
        private void encodeLl128(final int length)
        {
            LlCodec.packLines(staging, wireSlot(tail), length, flag(tail));
        }

        @Override
        public int peer()
        {
            return peer;
        }
    }

    private final class Receiver implements RecvConnector
    {
        private final int peer;
        private final long staging;
        private long head;
        /** LL/LL128: units (words or lines) of the current slot already decoded, while it is incomplete. */
        private int decodedUnits;
        private boolean complete;
        /** Between processes: the peer buffers of the last two direct slots. */
        private PeerBuffers.Mapping recent;
        private PeerBuffers.Mapping older;
        /** Whether read staged lines go back to memory; null where lines cannot be written back or for LL/LL128. */
        private final StagedLineEviction eviction;

        Receiver(final int peer, final long staging)
        {
            this.peer = peer;
            this.staging = staging;
            this.eviction = protocol == Protocol.SIMPLE && device.memoryKind() == io.jccl.MemoryKind.HOST &&
                CacheLines.available() ? new StagedLineEviction() : null;
        }

        @Override
        public boolean hasData()
        {
            if (complete)
            {
                return true;
            }
            if (protocol != Protocol.SIMPLE)
            {
                return decode();
            }
            // the ready flag shares the header's line: one line tells the slot is there and what it holds
            complete = UnsafeApi.getLongAcquire(null, base + FifoDescriptor.headerOffset(head) + HEADER_READY) ==
                flag(head);
            return complete;
        }

        /** Decodes what has arrived of the current slot; true once all of it has. */
        private boolean decode()
        {
            final long wire = wireSlot(head);
            if (protocol == Protocol.LL)
            {
                final int expected = LlCodec.llFlag(head);
                if (decodedUnits == 0 && LlCodec.arrivedWords(wire, 0, 1, expected) == 0)
                {
                    return false;
                }
                // the header was written before the first word's release-store
                final int words = LlCodec.llWords(dataLength());
                decodedUnits = (int)LlCodec.unpackArrivedWords(wire, staging, decodedUnits, words, expected);
                if (decodedUnits < words)
                {
                    return false;
                }
            }
            else
            {
                final long expected = flag(head);
                if (decodedUnits == 0 && UnsafeApi.getLongAcquire(null, wire + LL128_LINE_DATA) != expected)
                {
                    return false;
                }
                final int length = dataLength();
                decodedUnits = LlCodec.unpackArrivedLines(wire, staging, decodedUnits, length, expected);
                if (decodedUnits < LlCodec.ll128Lines(length))
                {
                    return false;
                }
            }
            decodedUnits = 0;
            complete = true;
            return true;
        }

        @Override
        public long slotAddress()
        {
            if (protocol != Protocol.SIMPLE)
            {
                return staging;
            }
            final long inlineData = inlineData();
            if (inlineData != 0)
            {
                return inlineData;
            }
            if (peerBuffers != null)
            {
                final long header = base + FifoDescriptor.headerOffset(head);
                final long segment = UnsafeApi.getLong(header + HEADER_DIRECT_SEGMENT);
                return segment == 0 ? wireSlot(head) : peerAddress(UnsafeApi.getLong(header +
                    HEADER_DIRECT_NAMESPACE), segment, UnsafeApi.getLong(header + HEADER_DIRECT_ADDRESS));
            }
            final long directAddress = directAddress();
            return directAddress != 0 ? directAddress : wireSlot(head);
        }

        /** @return where the current SIMPLE slot's data lies in its header, or 0 when it is not inline. */
        private long inlineData()
        {
            final long header = base + FifoDescriptor.headerOffset(head);
            return UnsafeApi.getInt(header + HEADER_KIND) == INLINE ? header + HEADER_INLINE_DATA : 0;
        }

        private long directAddress()
        {
            return direct ? UnsafeApi.getLong(base + FifoDescriptor.headerOffset(head) + HEADER_DIRECT_ADDRESS) : 0;
        }

        /** @return where the slot's data lies in this process's mapping of the sender's buffer. */
        private long peerAddress(final long namespace, final long segment, final long offset)
        {
            if (recent == null || recent.id != segment || recent.namespace != namespace)
            {
                final PeerBuffers.Mapping swap = older;
                older = recent;
                recent = swap != null && swap.id == segment && swap.namespace == namespace ? swap :
                    peerBuffers.map(namespace, segment);
            }
            final int length = dataLength();
            if (offset < 0 || offset + length > recent.length)
            {
                throw new io.jccl.JcclRemoteException("rank " + peer + " sent a direct slot of " + length +
                    " bytes at offset " + offset + " of its buffer " + SharedBuffers.fileName(namespace, segment) +
                    ", which holds " + recent.length);
            }
            return recent.address + offset;
        }

        @Override
        public boolean isDirect()
        {
            if (protocol != Protocol.SIMPLE || inlineData() != 0)
            {
                return false;
            }
            if (peerBuffers != null)
            {
                return UnsafeApi.getLong(base + FifoDescriptor.headerOffset(head) + HEADER_DIRECT_SEGMENT) != 0;
            }
            return directAddress() != 0;
        }

        @Override
        public int dataLength()
        {
            return UnsafeApi.getInt(base + FifoDescriptor.headerOffset(head) + HEADER_DATA_LENGTH);
        }

        @Override
        public long seq()
        {
            return UnsafeApi.getLong(base + FifoDescriptor.headerOffset(head) + HEADER_SEQ);
        }

        @Override
        public long shape()
        {
            return UnsafeApi.getLong(base + FifoDescriptor.headerOffset(head) + HEADER_SHAPE);
        }

        @Override
        public long plan()
        {
            return UnsafeApi.getLong(base + FifoDescriptor.headerOffset(head) + HEADER_PLAN);
        }

        @Override
        public void release()
        {
            complete = false;
            if (eviction != null)
            {
                evictIfFaster();
            }
            // the slot's data has been read before the sender may overwrite it
            UnsafeApi.putLongRelease(null, base + HEAD_OFFSET, ++head);
        }

        /** A large staged slot's lines go back to memory when the slots flow faster so (see the policy). */
        private void evictIfFaster()
        {
            final int length = dataLength();
            final long staged = wireSlot(head);
            // only data staged in the slot itself: not inline in its header, not in a sender's buffer
            if (length < StagedLineEviction.MIN_SLOT_BYTES || slotAddress() != staged)
            {
                return;
            }
            if (eviction.evicting())
            {
                // before the release: the sender may write the slot again right after it
                CacheLines.writeback(staged, length);
            }
            eviction.slotRead(seq(), length, System.nanoTime());
        }

        @Override
        public int peer()
        {
            return peer;
        }
    }
}
