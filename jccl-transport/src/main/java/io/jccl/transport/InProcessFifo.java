package io.jccl.transport;

import io.jccl.kernels.Device;
import org.agrona.UnsafeApi;

import static io.jccl.transport.FifoDescriptor.HEADER_DATA_LENGTH;
import static io.jccl.transport.FifoDescriptor.HEADER_PLAN;
import static io.jccl.transport.FifoDescriptor.HEADER_SEQ;
import static io.jccl.transport.FifoDescriptor.HEADER_SHAPE;
import static io.jccl.transport.FifoDescriptor.HEAD_OFFSET;
import static io.jccl.transport.FifoDescriptor.SLOTS;
import static io.jccl.transport.FifoDescriptor.TAIL_OFFSET;

/**
 * A FIFO between two ranks of one process (the P2P transport in-process, SIMPLE protocol), laid out as
 * {@link FifoDescriptor} says, in memory the receiver's device allocated. Its two ends are separate objects so
 * that each end's cached view of the other's counter stays on its own side.
 */
public final class InProcessFifo implements AutoCloseable
{
    private final Device device;
    private final long base;
    private final int slotLength;
    private final Sender sender;
    private final Receiver receiver;

    /**
     * @param device     where the FIFO's memory lives.
     * @param slotLength bytes per slot.
     * @param from       sending rank.
     * @param to         receiving rank.
     */
    public InProcessFifo(final Device device, final int slotLength, final int from, final int to)
    {
        this.device = device;
        this.slotLength = slotLength;
        this.base = device.allocate(FifoDescriptor.totalLength(slotLength));
        this.sender = new Sender(to);
        this.receiver = new Receiver(from);
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

    /** Frees the memory; neither end may be used afterwards. */
    @Override
    public void close()
    {
        device.free(base);
    }

    private final class Sender implements SendConnector
    {
        private final int peer;
        private long tail;
        private long cachedHead;

        Sender(final int peer)
        {
            this.peer = peer;
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
            return base + FifoDescriptor.dataOffset(tail, slotLength);
        }

        @Override
        public int slotLength()
        {
            return slotLength;
        }

        @Override
        public void publish(final int length, final long seq, final long shape, final long plan)
        {
            final long header = base + FifoDescriptor.headerOffset(tail);
            UnsafeApi.putInt(header + HEADER_DATA_LENGTH, length);
            UnsafeApi.putLong(header + HEADER_SEQ, seq);
            UnsafeApi.putLong(header + HEADER_SHAPE, shape);
            UnsafeApi.putLong(header + HEADER_PLAN, plan);
            // the data and header above become visible before the new tail: one release-store publishes the slot
            UnsafeApi.putLongRelease(null, base + TAIL_OFFSET, ++tail);
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
        private long head;
        private long cachedTail;

        Receiver(final int peer)
        {
            this.peer = peer;
        }

        @Override
        public boolean hasData()
        {
            if (cachedTail > head)
            {
                return true;
            }
            cachedTail = UnsafeApi.getLongAcquire(null, base + TAIL_OFFSET);
            return cachedTail > head;
        }

        @Override
        public long slotAddress()
        {
            return base + FifoDescriptor.dataOffset(head, slotLength);
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
            // the slot's data has been read before the sender may overwrite it
            UnsafeApi.putLongRelease(null, base + HEAD_OFFSET, ++head);
        }

        @Override
        public int peer()
        {
            return peer;
        }
    }
}
