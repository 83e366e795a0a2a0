package io.jccl.kernels.cuda;

import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.kernels.HostReducer;
import io.jccl.kernels.LlCodec;
import org.agrona.UnsafeApi;

import static io.jccl.kernels.cuda.DeviceLayout.*;

/**
 * One launch of the interpreter kernel run in Java: the same launch record, block records, step records, rank
 * tables and FIFOs the CUDA kernel ({@code cuda-src/interpreter.cu}) reads, with each block a state machine that
 * stops where the kernel's block would wait (a dependency, an empty FIFO, a full one, a missing LL flag) and goes on
 * when called again. A step runs whole once it can run, so a block never holds half a slot. The arithmetic is the
 * host backend's, which the CUDA reductions match bit for bit.
 */
final class EmulatedInterpreter
{
    private static final int NOP = DeviceWire.OP_NOP;
    private static final int SEND = DeviceWire.OP_SEND;
    private static final int RECV = DeviceWire.OP_RECV;
    private static final int RECV_COPY_SEND = DeviceWire.OP_RECV_COPY_SEND;
    private static final int RECV_REDUCE_SEND = DeviceWire.OP_RECV_REDUCE_SEND;
    private static final int RECV_REDUCE_COPY = DeviceWire.OP_RECV_REDUCE_COPY;
    private static final int RECV_REDUCE_COPY_REVERSED = DeviceWire.OP_RECV_REDUCE_COPY_REVERSED;
    private static final int RECV_REDUCE_COPY_SEND = DeviceWire.OP_RECV_REDUCE_COPY_SEND;
    private static final int COPY = DeviceWire.OP_COPY;
    private static final int REDUCE = DeviceWire.OP_REDUCE;

    private final int protocol;
    private final long launch;
    private final BlockState[] blocks;
    private final HostReducer reducer;
    private final long elemSize;
    private final long pieceCount;
    private final long iterations;
    private final long payloadBytes;
    private final long wireSlot;
    private final long abortAddr;
    private final long errorAddr;
    private final long tag;
    /** Payload of an LL step, unpacked or packed (the kernel keeps it in registers). */
    private final long staging;
    private boolean moved;
    private boolean finished;

    EmulatedInterpreter(final int protocol, final DataType type, final ReduceOp.Kind kind, final long launch,
        final int blockCount)
    {
        this.protocol = protocol;
        this.launch = launch;
        this.elemSize = UnsafeApi.getLong(launch + L_ELEM_SIZE);
        this.pieceCount = UnsafeApi.getLong(launch + L_PIECE_COUNT);
        this.iterations = UnsafeApi.getLong(launch + L_ITERATIONS);
        this.payloadBytes = UnsafeApi.getLong(launch + L_PAYLOAD_BYTES);
        this.wireSlot = wireBytes(protocol, payloadBytes);
        this.abortAddr = UnsafeApi.getLong(launch + L_ABORT_ADDR);
        this.errorAddr = UnsafeApi.getLong(launch + L_ERROR_ADDR);
        this.tag = UnsafeApi.getLong(launch + L_TAG);
        this.reducer = type == null ? null :
            HostReducer.of(type, kind, Double.longBitsToDouble(UnsafeApi.getLong(launch + L_SCALAR_F)));
        if (UnsafeApi.getLong(launch + L_BLOCKS) != blockCount)
        {
            throw new IllegalStateException("launch of " + blockCount + " blocks for a record of " +
                UnsafeApi.getLong(launch + L_BLOCKS));
        }
        this.blocks = new BlockState[blockCount];
        for (int b = 0; b < blockCount; b++)
        {
            blocks[b] = new BlockState(launch + RECORD_BYTES + (long)b * RECORD_BYTES);
        }
        this.staging = protocol == 0 ? 0 : UnsafeApi.allocateMemory(payloadBytes + 16);
    }

    /** @return true when every block finished (or the launch was aborted). */
    boolean advance()
    {
        moved = false;
        if (finished)
        {
            return true;
        }
        boolean any;
        do
        {
            any = false;
            boolean all = true;
            for (final BlockState b : blocks)
            {
                if (!b.done)
                {
                    any |= b.advance();
                    all &= b.done;
                }
            }
            moved |= any;
            if (all || UnsafeApi.getIntVolatile(null, abortAddr) != 0)
            {
                finished = true;
                for (final BlockState b : blocks)
                {
                    // the kernel's exit stamp: every block leaves when the launch ends or is aborted
                    UnsafeApi.putLongVolatile(null, b.clock + 8, System.nanoTime());
                }
                if (staging != 0)
                {
                    UnsafeApi.freeMemory(staging);
                }
                return true;
            }
        }
        while (any);
        return false;
    }

    /** @return true when the last {@link #advance()} ran a step. */
    boolean moved()
    {
        return moved;
    }

    private void fail(final long error)
    {
        UnsafeApi.putLongVolatile(null, errorAddr, error);
        UnsafeApi.putIntVolatile(null, abortAddr, 1);
    }

    private final class BlockState
    {
        final long steps;
        final int stepCount;
        final long flags;
        final long sendFifo;
        final long recvFifo;
        final long progress;
        final long workerIndex;
        final long rankTable;
        final long clock;
        long sendTail;
        long recvHead;
        long iteration;
        int step;
        boolean done;

        BlockState(final long record)
        {
            steps = UnsafeApi.getLong(record + B_STEPS);
            stepCount = (int)UnsafeApi.getLong(record + B_STEP_COUNT);
            flags = UnsafeApi.getLong(record + B_FLAGS);
            sendFifo = UnsafeApi.getLong(record + B_SEND_FIFO);
            recvFifo = UnsafeApi.getLong(record + B_RECV_FIFO);
            progress = UnsafeApi.getLong(record + B_PROGRESS);
            workerIndex = UnsafeApi.getLong(record + B_WORKER_INDEX);
            rankTable = UnsafeApi.getLong(record + B_RANK_TABLE);
            clock = UnsafeApi.getLong(record + B_CLOCK);
            // the kernel's entry stamp, on the clock of its host build (CLOCK_MONOTONIC)
            UnsafeApi.putLongVolatile(null, clock, System.nanoTime());
            sendTail = sendFifo == 0 ? 0 : UnsafeApi.getLongVolatile(null, sendFifo + FIFO_TAIL);
            recvHead = recvFifo == 0 ? 0 : UnsafeApi.getLongVolatile(null, recvFifo + FIFO_HEAD);
            done = stepCount == 0 || iterations == 0;
        }

        /** @return true if at least one step ran. */
        boolean advance()
        {
            boolean ran = false;
            while (!done && ready())
            {
                if (!execute())
                {
                    return ran;
                }
                ran = true;
                UnsafeApi.putLongVolatile(null, progress + 8 * workerIndex, iteration * stepCount + step + 1);
                if (++step == stepCount)
                {
                    step = 0;
                    done = ++iteration == iterations;
                }
            }
            return ran;
        }

        private int field(final int f)
        {
            return UnsafeApi.getInt(steps + 4L * ((long)step * DeviceWire.STEP_WIDTH + f));
        }

        private boolean ready()
        {
            final int op = field(DeviceWire.STEP_OPCODE);
            final int depWorker = field(DeviceWire.STEP_DEP_WORKER);
            if (depWorker >= 0)
            {
                final long dep = launch + RECORD_BYTES + (long)depWorker * RECORD_BYTES;
                final long target = iteration * UnsafeApi.getLong(dep + B_STEP_COUNT) +
                    field(DeviceWire.STEP_DEP_STEP) + 1;
                if (UnsafeApi.getLongVolatile(null, progress + 8L * depWorker) < target)
                {
                    return false;
                }
            }
            // LL too: the model reads a step once its sender has published it whole, header and all (the kernel
            // reads LL words as they come and checks the header at the step's end)
            if (receives(op))
            {
                if (UnsafeApi.getLongVolatile(null, recvFifo + FIFO_TAIL) <= recvHead)
                {
                    return false;
                }
                if (UnsafeApi.getLongVolatile(null, recvFifo + FIFO_HEADERS + (recvHead % SLOTS) * 16 + 8) != tag)
                {
                    fail(ERROR_TAG);
                    done = true;
                    return false;
                }
            }
            return !sends(op) || sendTail - UnsafeApi.getLongVolatile(null, sendFifo + FIFO_HEAD) < SLOTS;
        }

        /** @return false when an LL step's words have not all arrived (nothing was done). */
        private boolean execute()
        {
            final int op = field(DeviceWire.STEP_OPCODE);
            if (op == NOP)
            {
                return true;
            }
            final int srcBuffer = field(DeviceWire.STEP_SRC_BUFFER);
            final int srcChunk = field(DeviceWire.STEP_SRC_CHUNK);
            final int dstBuffer = field(DeviceWire.STEP_DST_BUFFER);
            final int dstChunk = field(DeviceWire.STEP_DST_CHUNK);
            final int chunkCount = field(DeviceWire.STEP_CHUNK_COUNT);
            final int stepFlags = UnsafeApi.getByte(flags + step) & 0xff;
            final boolean premulSrc = (stepFlags & FLAG_PREMUL_SOURCE) != 0;
            final boolean premulDst = (stepFlags & FLAG_PREMUL_DESTINATION) != 0;
            final boolean reads = readsSource(op);
            final boolean writes = writesDestination(op);
            final long inSlot = receives(op) ? recvFifo + FIFO_DATA + (recvHead % SLOTS) * wireSlot : 0;
            final long outSlot = sends(op) ? sendFifo + FIFO_DATA + (sendTail % SLOTS) * wireSlot : 0;
            if (protocol != 0 && receives(op) && !arrived(inSlot, chunkCount, reads ? srcBuffer : dstBuffer,
                reads ? srcChunk : dstChunk))
            {
                return false;
            }
            final boolean fills = protocol != 0 && outSlot != 0 && LlCodec.llFillsSlot(sendTail, SLOTS);
            long offset = 0;
            for (int j = 0; j < chunkCount; j++)
            {
                final int buffer = reads ? srcBuffer : dstBuffer;
                final long bytes = pieceElements(buffer, (reads ? srcChunk : dstChunk) + j) * elemSize;
                final long src = reads ? address(srcBuffer, srcChunk + j) : 0;
                final long dst = writes ? address(dstBuffer, dstChunk + j) : 0;
                if (bytes > 0)
                {
                    final long in;
                    if (protocol == 0)
                    {
                        in = inSlot + offset;
                    }
                    else
                    {
                        in = staging;
                        if (inSlot != 0)
                        {
                            unpack(inSlot + 2 * offset, bytes);
                        }
                    }
                    final long out = protocol == 0 ? outSlot + offset : staging;
                    region(op, in, src, premulSrc, dst, premulDst, out, bytes);
                    if (protocol != 0 && outSlot != 0)
                    {
                        pack(outSlot + 2 * offset, bytes, LlCodec.llFlag(sendTail));
                    }
                }
                if (fills)
                {
                    // the region's padding up to the next region, 2 words a unit of 8 bytes, as the kernel's
                    LlCodec.fillWords(outSlot + 2 * offset, (bytes + 7) / 8 * 2, alignRegion(bytes) / 8 * 2,
                        LlCodec.llFlag(sendTail));
                }
                offset += alignRegion(bytes);
            }
            if (fills)
            {
                LlCodec.fillWords(outSlot, offset / 8 * 2, payloadBytes / 8 * 2, LlCodec.llFlag(sendTail));
            }
            if (receives(op) &&
                UnsafeApi.getLongVolatile(null, recvFifo + FIFO_HEADERS + (recvHead % SLOTS) * 16) != offset)
            {
                fail(ERROR_LENGTH);
                done = true;
                return false;
            }
            if (sends(op))
            {
                final long header = sendFifo + FIFO_HEADERS + (sendTail % SLOTS) * 16;
                UnsafeApi.putLong(header, offset);
                UnsafeApi.putLong(header + 8, tag);
                UnsafeApi.putLongVolatile(null, sendFifo + FIFO_TAIL, ++sendTail);
            }
            if (receives(op))
            {
                UnsafeApi.putLongVolatile(null, recvFifo + FIFO_HEAD, ++recvHead);
            }
            return true;
        }

        /** The kernel's simpleRegion and llRegion arithmetic: {@code in} and {@code out} are payload. */
        private void region(final int op, final long in, final long src, final boolean premulSrc, final long dst,
            final boolean premulDst, final long out, final long bytes)
        {
            final long n = reducer == null ? bytes : bytes / elemSize;
            switch (op)
            {
                case SEND -> copy(src, premulSrc, out, n, bytes);
                case RECV -> UnsafeApi.copyMemory(in, dst, bytes);
                case RECV_COPY_SEND ->
                {
                    UnsafeApi.copyMemory(in, dst, bytes);
                    if (out != in)
                    {
                        UnsafeApi.copyMemory(in, out, bytes);
                    }
                }
                case RECV_REDUCE_SEND -> reducer.reduce(in, false, src, premulSrc, out, n);
                case RECV_REDUCE_COPY -> reducer.reduce(in, false, src, premulSrc, dst, n);
                case RECV_REDUCE_COPY_REVERSED -> reducer.reduce(src, premulSrc, in, false, dst, n);
                case RECV_REDUCE_COPY_SEND ->
                {
                    reducer.reduce(in, false, src, premulSrc, dst, n);
                    if (out != dst)
                    {
                        UnsafeApi.copyMemory(dst, out, bytes);
                    }
                }
                case COPY -> copy(src, premulSrc, dst, n, bytes);
                case REDUCE -> reducer.reduce(dst, premulDst, src, premulSrc, dst, n);
                default -> throw new IllegalStateException("opcode " + op);
            }
        }

        private void copy(final long src, final boolean premul, final long dst, final long n, final long bytes)
        {
            if (reducer != null && premul)
            {
                reducer.copy(src, true, dst, n);
            }
            else
            {
                UnsafeApi.copyMemory(src, dst, bytes);
            }
        }

        /** @return true when every LL word of the step's chunks carries the slot's flag. */
        private boolean arrived(final long wire, final int chunkCount, final int buffer, final int chunk)
        {
            final int flag = LlCodec.llFlag(recvHead);
            long offset = 0;
            for (int j = 0; j < chunkCount; j++)
            {
                final long bytes = pieceElements(buffer, chunk + j) * elemSize;
                final long words = (bytes + 7) / 8 * 2;
                if (LlCodec.arrivedWords(wire + 2 * offset, 0, words, flag) < words)
                {
                    return false;
                }
                offset += alignRegion(bytes);
            }
            return true;
        }

        /** LL words {data, flag} to payload in {@link #staging}. */
        private void unpack(final long wire, final long bytes)
        {
            LlCodec.unpackWords(wire, staging, (bytes + 7) / 8 * 2);
        }

        /** Payload in {@link #staging} to LL words {data, flag}; the last unit's padding is zero, as the kernel's. */
        private void pack(final long wire, final long bytes, final int flag)
        {
            final long words = (bytes + 7) / 8 * 2;
            UnsafeApi.setMemory(staging + bytes, words * 4 - bytes, (byte)0);
            LlCodec.packWords(staging, wire, words, flag);
        }

        private long pieceElements(final int buffer, final int chunk)
        {
            final long length = UnsafeApi.getLong(UnsafeApi.getLong(rankTable + 8L * (6 + buffer)) + 8L * chunk);
            final long remaining = length - iteration * pieceCount;
            return remaining <= 0 ? 0 : Math.min(remaining, pieceCount);
        }

        private long address(final int buffer, final int chunk)
        {
            final long start = UnsafeApi.getLong(UnsafeApi.getLong(rankTable + 8L * (3 + buffer)) + 8L * chunk);
            return UnsafeApi.getLong(rankTable + 8L * buffer) + (start + iteration * pieceCount) * elemSize;
        }
    }

    private static boolean receives(final int op)
    {
        return op == RECV || op == RECV_COPY_SEND || op == RECV_REDUCE_SEND || op == RECV_REDUCE_COPY ||
            op == RECV_REDUCE_COPY_SEND || op == RECV_REDUCE_COPY_REVERSED;
    }

    private static boolean sends(final int op)
    {
        return op == SEND || op == RECV_COPY_SEND || op == RECV_REDUCE_SEND || op == RECV_REDUCE_COPY_SEND;
    }

    private static boolean readsSource(final int op)
    {
        return op == SEND || op == RECV_REDUCE_SEND || op == RECV_REDUCE_COPY || op == RECV_REDUCE_COPY_SEND ||
            op == COPY || op == REDUCE || op == RECV_REDUCE_COPY_REVERSED;
    }

    private static boolean writesDestination(final int op)
    {
        return op == RECV || op == RECV_COPY_SEND || op == RECV_REDUCE_COPY || op == RECV_REDUCE_COPY_SEND ||
            op == COPY || op == REDUCE || op == RECV_REDUCE_COPY_REVERSED;
    }
}
