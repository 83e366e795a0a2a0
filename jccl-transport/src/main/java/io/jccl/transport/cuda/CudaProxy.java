package io.jccl.transport.cuda;

import io.jccl.kernels.LlCodec;
import io.jccl.transport.RecvConnector;
import io.jccl.transport.SendConnector;
import org.agrona.UnsafeApi;

import static io.jccl.kernels.cuda.DeviceLayout.*;

/**
 * The host side of a connection between a rank on a GPU and a rank in another process (on this host or another):
 * the kernel's FIFO lies in pinned host memory the device maps, and this proxy moves its slots through the host
 * transport (shared memory between processes of a host, the network between hosts), as NCCL's proxy thread does.
 * An outbox forwards each slot the kernel published (SIMPLE payload, or LL words unpacked to payload) into the
 * connector and hands the slot back to the kernel; an inbox writes each slot that arrives into the FIFO the kernel
 * reads (with its header and tag for SIMPLE, with the slot's flag in every word for LL). Made by the
 * {@link CudaTransport}; driven by the runtime's progress engine while a call of the rank runs, so only by the thread
 * that holds that rank's claim (a proxy serves one local rank's connection): no lock, and nothing allocated.
 */
public final class CudaProxy
{
    private final long fifo;
    private final int protocol;
    private final long wireSlot;
    private final SendConnector send;
    private final RecvConnector recv;
    /** Outbox: slots forwarded (the FIFO's head, which this proxy owns). Inbox: slots written (its tail). */
    private long count;

    private CudaProxy(final long fifo, final int protocol, final SendConnector send, final RecvConnector recv)
    {
        this.fifo = fifo;
        this.protocol = protocol;
        this.wireSlot = wireBytes(protocol, payloadBytes(protocol));
        this.send = send;
        this.recv = recv;
    }

    /**
     * @param fifo     the kernel's FIFO, in pinned host memory, zeroed.
     * @param protocol the device protocol id.
     * @param send     where the slots go.
     * @return a proxy forwarding what a local rank's kernel sends to a rank of another process.
     */
    static CudaProxy outbox(final long fifo, final int protocol, final SendConnector send)
    {
        return new CudaProxy(fifo, protocol, send, null);
    }

    /**
     * @param fifo     the kernel's FIFO, in pinned host memory, zeroed.
     * @param protocol the device protocol id.
     * @param recv     where the slots come from.
     * @return a proxy delivering what a rank of another process sends to a local rank's kernel.
     */
    static CudaProxy inbox(final long fifo, final int protocol, final RecvConnector recv)
    {
        return new CudaProxy(fifo, protocol, null, recv);
    }

    /**
     * Moves every slot that can move.
     *
     * @param seq   the running call's sequence number (carried in the host slot headers).
     * @param shape the call's shape hash.
     * @param plan  the call's plan hash.
     * @return slots moved.
     */
    public int doWork(final long seq, final long shape, final long plan)
    {
        return send != null ? forward(seq, shape, plan) : deliver();
    }

    /** @return true when every slot the kernel published has been forwarded (always, for an inbox). */
    public boolean drained()
    {
        return send == null || count == UnsafeApi.getLongVolatile(null, fifo + FIFO_TAIL);
    }

    private int forward(final long seq, final long shape, final long plan)
    {
        int moved = 0;
        while (count < UnsafeApi.getLongVolatile(null, fifo + FIFO_TAIL) && send.hasSpace())
        {
            final long slot = count % SLOTS;
            final long bytes = UnsafeApi.getLongVolatile(null, fifo + FIFO_HEADERS + slot * 16);
            final long data = fifo + FIFO_DATA + slot * wireSlot;
            if (protocol == 0)
            {
                UnsafeApi.copyMemory(data, send.slotAddress(), bytes);
            }
            else
            {
                LlCodec.unpackWords(data, send.slotAddress(), bytes / LlCodec.LL_WORD_DATA);
            }
            send.publish((int)bytes, seq, shape, plan);
            UnsafeApi.putLongVolatile(null, fifo + FIFO_HEAD, ++count);
            moved++;
        }
        return moved;
    }

    private int deliver()
    {
        int moved = 0;
        while (recv.hasData() && count - UnsafeApi.getLongVolatile(null, fifo + FIFO_HEAD) < SLOTS)
        {
            final long slot = count % SLOTS;
            final int bytes = recv.dataLength();
            final long data = fifo + FIFO_DATA + slot * wireSlot;
            final long in = recv.slotAddress();
            final long header = fifo + FIFO_HEADERS + slot * 16;
            UnsafeApi.putLong(header, bytes);
            UnsafeApi.putLong(header + 8, slotTag(recv.seq(), recv.shape(), recv.plan()));
            if (protocol == 0)
            {
                UnsafeApi.copyMemory(in, data, bytes);
            }
            else
            {
                final int flag = LlCodec.llFlag(count);
                LlCodec.packWords(in, data, bytes / LlCodec.LL_WORD_DATA, flag);
                if (LlCodec.llFillsSlot(count, SLOTS))
                {
                    LlCodec.fillWords(data, bytes / LlCodec.LL_WORD_DATA, wireSlot / LlCodec.LL_WORD, flag);
                }
            }
            recv.release();
            UnsafeApi.putLongVolatile(null, fifo + FIFO_TAIL, ++count);
            moved++;
        }
        return moved;
    }
}
