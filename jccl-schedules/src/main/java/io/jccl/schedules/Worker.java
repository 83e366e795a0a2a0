package io.jccl.schedules;

import java.util.Arrays;

/**
 * One worker of a rank (MSCCL's thread block): at most one send peer and one receive peer, a channel, and an
 * ordered list of steps held as flat records ({@link StepDescriptor}). Immutable.
 */
public final class Worker
{
    /** Marks the absence of a send or receive peer. */
    public static final int NO_PEER = -1;

    private final int sendPeer;
    private final int recvPeer;
    private final int channel;
    private final int[] records;

    Worker(final int sendPeer, final int recvPeer, final int channel, final int[] records)
    {
        this.sendPeer = sendPeer;
        this.recvPeer = recvPeer;
        this.channel = channel;
        this.records = records;
    }

    /** @return the rank this worker sends to, or {@link #NO_PEER}. */
    public int sendPeer()
    {
        return sendPeer;
    }

    /** @return the rank this worker receives from, or {@link #NO_PEER}. */
    public int recvPeer()
    {
        return recvPeer;
    }

    /** @return the channel that keys this worker's connections. */
    public int channel()
    {
        return channel;
    }

    /** @return the number of steps. */
    public int stepCount()
    {
        return records.length / StepDescriptor.WIDTH;
    }

    /**
     * @param step  step index.
     * @param field a {@link StepDescriptor} field offset.
     * @return the field's value.
     */
    public int field(final int step, final int field)
    {
        return records[step * StepDescriptor.WIDTH + field];
    }

    /**
     * @param step a step index.
     * @return the opcode of a step.
     */
    public Opcode opcode(final int step)
    {
        return Opcode.of(field(step, StepDescriptor.OPCODE));
    }

    /** @return a copy of the flat records (for device upload and export). */
    public int[] records()
    {
        return records.clone();
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("Worker{send=").append(sendPeer).append(", recv=").append(recvPeer)
            .append(", channel=").append(channel).append(", steps=[");
        for (int s = 0; s < stepCount(); s++)
        {
            final Opcode op = opcode(s);
            sb.append(s == 0 ? "" : ", ").append(op.mscclName());
            if (op.readsSource())
            {
                sb.append(' ').append(BufferKind.of(field(s, StepDescriptor.SRC_BUFFER)).mscclName())
                    .append(field(s, StepDescriptor.SRC_CHUNK));
            }
            if (op.writesDestination())
            {
                sb.append("->").append(BufferKind.of(field(s, StepDescriptor.DST_BUFFER)).mscclName())
                    .append(field(s, StepDescriptor.DST_CHUNK));
            }
        }
        return sb.append("]}").toString();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Worker w && w.sendPeer == sendPeer && w.recvPeer == recvPeer && w.channel == channel &&
            Arrays.equals(w.records, records);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(records) * 31 + channel;
    }

    /** Builds a worker step by step, as generators and parsers do. */
    public static final class Builder
    {
        private final int sendPeer;
        private final int recvPeer;
        private final int channel;
        private int[] records = new int[8 * StepDescriptor.WIDTH];
        private int steps;

        /**
         * @param sendPeer rank sent to, or {@link #NO_PEER}.
         * @param recvPeer rank received from, or {@link #NO_PEER}.
         * @param channel  channel index.
         */
        public Builder(final int sendPeer, final int recvPeer, final int channel)
        {
            this.sendPeer = sendPeer;
            this.recvPeer = recvPeer;
            this.channel = channel;
        }

        /** @return the channel of the worker being built. */
        public int channel()
        {
            return channel;
        }

        /** @return the index the next step will get. */
        public int nextStep()
        {
            return steps;
        }

        /**
         * Appends a step over one chunk without dependency.
         *
         * @param op       the verb.
         * @param src      source buffer (null when the verb reads none).
         * @param srcChunk source chunk.
         * @param dst      destination buffer (null when the verb writes none).
         * @param dstChunk destination chunk.
         * @return the step's index.
         */
        public int step(final Opcode op, final BufferKind src, final int srcChunk, final BufferKind dst,
            final int dstChunk)
        {
            return step(op, src, srcChunk, dst, dstChunk, 1, StepDescriptor.NO_DEPENDENCY, 0);
        }

        /**
         * Appends a step.
         *
         * @param op         the verb.
         * @param src        source buffer (null when the verb reads none).
         * @param srcChunk   source chunk.
         * @param dst        destination buffer (null when the verb writes none).
         * @param dstChunk   destination chunk.
         * @param chunkCount consecutive chunks covered, at least 1.
         * @param depWorker  worker of this rank that must first complete {@code depStep}, or
         *                   {@link StepDescriptor#NO_DEPENDENCY}.
         * @param depStep    that worker's step.
         * @return the step's index.
         */
        public int step(final Opcode op, final BufferKind src, final int srcChunk, final BufferKind dst,
            final int dstChunk, final int chunkCount, final int depWorker, final int depStep)
        {
            if (steps * StepDescriptor.WIDTH == records.length)
            {
                records = Arrays.copyOf(records, records.length * 2);
            }
            final int base = steps * StepDescriptor.WIDTH;
            records[base + StepDescriptor.OPCODE] = op.id();
            records[base + StepDescriptor.SRC_BUFFER] = src == null ? 0 : src.ordinal();
            records[base + StepDescriptor.SRC_CHUNK] = srcChunk;
            records[base + StepDescriptor.DST_BUFFER] = dst == null ? 0 : dst.ordinal();
            records[base + StepDescriptor.DST_CHUNK] = dstChunk;
            records[base + StepDescriptor.CHUNK_COUNT] = chunkCount;
            records[base + StepDescriptor.DEP_WORKER] = depWorker;
            records[base + StepDescriptor.DEP_STEP] = depStep;
            return steps++;
        }

        /** @return the worker. */
        public Worker build()
        {
            return new Worker(sendPeer, recvPeer, channel, Arrays.copyOf(records, steps * StepDescriptor.WIDTH));
        }
    }
}
