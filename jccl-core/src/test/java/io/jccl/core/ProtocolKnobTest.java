package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.Protocol;
import io.jccl.ReduceOp;
import io.jccl.TransportKind;
import io.jccl.transport.ConnectorCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The protocol, transport, channel and chunk knobs change what runs (the connectors count slots of that protocol,
 * bytes staged or read directly over that transport, the channels used) and never the result: for a fixed
 * algorithm, every combination gives the same bytes, in place or not (DESIGN.md, arithmetic contract).
 */
class ProtocolKnobTest
{
    @Test
    @Timeout(120)
    void shouldGiveBitIdenticalResultsWhenProtocolTransportChannelsOrChunkChange()
    {
        for (final Algorithm algorithm : Algorithm.values())
        {
            for (final DataType type : new DataType[] {DataType.FLOAT32, DataType.BFLOAT16, DataType.INT64})
            {
                final byte[][] reference = run(algorithm, Protocol.SIMPLE, TransportKind.SHM, 1, 128 * 1024, type,
                    false);
                for (final Protocol protocol : Protocol.values())
                {
                    for (final TransportKind transport : new TransportKind[] {TransportKind.P2P, TransportKind.SHM})
                    {
                        for (final int channels : new int[] {1, 3})
                        {
                            for (final int chunk : new int[] {1000, 64 * 1024})
                            {
                                final boolean inPlace = chunk == 1000;
                                final byte[][] result = run(algorithm, protocol, transport, channels, chunk, type,
                                    inPlace);
                                for (int r = 0; r < result.length; r++)
                                {
                                    assertArrayEquals(reference[r], result[r], algorithm + " " + type + " " +
                                        protocol + " " + transport + " channels " + channels + " chunk " + chunk +
                                        (inPlace ? " in place" : "") + " rank " + r);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldStageChunksBelowTheDirectThresholdAndReadLargerOnesInPlace()
    {
        // P2P with SIMPLE reads a peer's buffer in place only when the chunk is worth the wait for the peer's
        // release; an 8-byte AllReduce copies through the slot and completes without it
        for (final Algorithm algorithm : Algorithm.values())
        {
            for (final long count : new long[] {2, DirectReads.DIRECT_MIN_BYTES / Float.BYTES - 1, 64 * 1024})
            {
                final int n = 2;
                final Communicator[] comms = Jccl.initAll(new Context().algorithm(algorithm)
                    .protocol(Protocol.SIMPLE).transport(TransportKind.P2P).channels(1), n);
                final ConnectorCounters counters = ((LocalCommunicator)comms[0]).counters();
                final HostBuffer[] send = new HostBuffer[n];
                final HostBuffer[] recv = new HostBuffer[n];
                for (int r = 0; r < n; r++)
                {
                    send[r] = HostBuffer.allocate(count * Float.BYTES);
                    recv[r] = HostBuffer.allocate(count * Float.BYTES);
                    for (int i = 0; i < count; i++)
                    {
                        send[r].byteBuffer().putFloat(i * Float.BYTES, (r + 1) * 0.5f + i);
                    }
                }
                GroupCalls.allReduce(comms, send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
                for (int r = 0; r < n; r++)
                {
                    for (int i = 0; i < count; i++)
                    {
                        assertEquals(0.5f + i + (1.0f + i), recv[r].byteBuffer().getFloat(i * Float.BYTES),
                            algorithm + " count " + count + " rank " + r + " element " + i);
                    }
                    comms[r].close();
                }
                final String what = algorithm + " count " + count + ": " + counters;
                if (count * Float.BYTES < DirectReads.DIRECT_MIN_BYTES)
                {
                    assertEquals(0, counters.bytesDirect(TransportKind.P2P), what);
                    assertTrue(counters.bytesStaged(TransportKind.P2P) > 0, what);
                }
                else
                {
                    assertTrue(counters.bytesDirect(TransportKind.P2P) > 0, what);
                }
            }
        }
    }

    @Test
    void shouldStageChunksUpTo64KiBWhereProcessesOutnumberTheHostsCpusAndUpTo2KiBWhereNot()
    {
        assertEquals(DirectReads.DIRECT_MIN_BYTES, DirectReads.minBytes(false, 8, 2), "ranks of one process");
        assertEquals(DirectReads.PROCESS_MIN_BYTES, DirectReads.minBytes(true, 2, 2), "a process per CPU");
        assertEquals(DirectReads.PROCESS_MIN_BYTES, DirectReads.minBytes(true, 8, 64), "8 processes, 64 CPUs");
        assertEquals(DirectReads.OVERSUBSCRIBED_MIN_BYTES, DirectReads.minBytes(true, 4, 2), "4 processes, 2 CPUs");
        assertEquals(64 * 1024, DirectReads.OVERSUBSCRIBED_MIN_BYTES);
        assertEquals(2 * 1024, DirectReads.PROCESS_MIN_BYTES);
        assertEquals(4 * 1024, DirectReads.DIRECT_MIN_BYTES);
        // in-process ranks keep the small threshold whatever the host
        final Communicator[] comms = Jccl.initAll(new Context(), 3);
        try
        {
            assertEquals(DirectReads.DIRECT_MIN_BYTES, ((LocalCommunicator)comms[0]).group().directMinBytes);
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.close();
            }
        }
    }

    /** Runs one AllReduce of 100003 random elements on 5 ranks and returns every output; checks the counters. */
    private static byte[][] run(final Algorithm algorithm, final Protocol protocol, final TransportKind transport,
        final int channels, final int chunk, final DataType type, final boolean inPlace)
    {
        final int n = 5;
        final long count = 100_003;
        final long bytes = count * type.byteSize();
        final Communicator[] comms = Jccl.initAll(new Context().algorithm(algorithm).protocol(protocol)
            .transport(transport).channels(channels).chunkBytes(chunk), n);
        final ConnectorCounters counters = ((LocalCommunicator)comms[0]).counters();
        final HostBuffer[] send = new HostBuffer[n];
        final HostBuffer[] recv = new HostBuffer[n];
        final Random random = new Random(42);
        for (int r = 0; r < n; r++)
        {
            send[r] = HostBuffer.allocate(bytes);
            recv[r] = inPlace ? send[r] : HostBuffer.allocate(bytes);
            for (long i = 0; i < count; i++)
            {
                switch (type)
                {
                    case FLOAT32 -> send[r].byteBuffer().putFloat((int)(i * 4), (float)random.nextGaussian());
                    case BFLOAT16 -> send[r].byteBuffer().putShort((int)(i * 2), (short)(0x3F80 + random.nextInt(256)));
                    default -> send[r].byteBuffer().putLong((int)(i * 8), random.nextLong());
                }
            }
        }
        GroupCalls.allReduce(comms, send, recv, count, type, ReduceOp.SUM);
        for (final Protocol p : Protocol.values())
        {
            if (p == protocol)
            {
                assertTrue(counters.slotsSent(p) > 0, protocol + " moved no slot");
            }
            else
            {
                assertEquals(0, counters.slotsSent(p), p + " moved slots in a " + protocol + " run");
            }
        }
        assertTrue(counters.connectorsCreated() >= (long)channels * n, "channels used: " + counters);
        assertEquals(channels, counters.channelsUsed(), "channels used: " + counters);
        final TransportKind other = transport == TransportKind.P2P ? TransportKind.SHM : TransportKind.P2P;
        assertEquals(0, counters.bytesStaged(other) + counters.bytesDirect(other), other + " used: " + counters);
        final boolean directInPlace = algorithm == Algorithm.DIRECT && inPlace;
        if (transport == TransportKind.P2P && protocol == Protocol.SIMPLE && !directInPlace)
        {
            // receivers read the senders' buffers directly; steps that only reduce into the slot, and sends of a
            // range this rank writes again (in place), stage: in place, the direct AllReduce writes every range it
            // sends
            assertTrue(counters.bytesDirect(transport) > 0, "direct: " + counters);
        }
        else
        {
            assertEquals(0, counters.bytesDirect(transport), "direct reads over " + transport + ": " + counters);
            assertTrue(counters.bytesStaged(transport) > 0, "staged over " + transport + ": " + counters);
        }
        final byte[][] out = new byte[n][(int)bytes];
        for (int r = 0; r < n; r++)
        {
            recv[r].byteBuffer().get(0, out[r]);
            comms[r].close();
        }
        return out;
    }
}
