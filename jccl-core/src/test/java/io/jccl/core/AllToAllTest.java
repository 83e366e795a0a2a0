package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Stream;
import io.jccl.Work;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The built-in AllToAll (direct exchange): every rank count, count, type width, in and out of place. */
class AllToAllTest
{
    @Test
    @Timeout(120)
    void shouldDeliverBlockRankOfEveryPeerWhenBuiltInAllToAll()
    {
        for (final int n : new int[] {1, 2, 3, 5, 8})
        {
            for (final int channels : new int[] {1, 3})
            {
                final Communicator[] comms = Jccl.initAll(new Context().channels(channels).chunkBytes(4096), n);
                for (final DataType type : new DataType[] {DataType.INT8, DataType.FLOAT16, DataType.FLOAT64})
                {
                    for (final long count : new long[] {0, 1, 7, 1021, 100_003})
                    {
                        for (final boolean inPlace : new boolean[] {false, true})
                        {
                            check(comms, type, count, inPlace);
                        }
                    }
                }
                for (final Communicator c : comms)
                {
                    c.close();
                }
            }
        }
    }

    @Test
    void shouldRejectPartialOverlapWhenAllToAll()
    {
        final Communicator[] comms = Jccl.initAll(new Context(), 2);
        final HostBuffer b = HostBuffer.allocate(64);
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> comms[0].allToAll(b.slice(0, 32), b.slice(8, 32), 4, DataType.INT32, Stream.DEFAULT));
        assertTrue(ex.getMessage().contains("overlap"), ex.getMessage());
        assertThrows(JcclInvalidArgumentException.class,
            () -> comms[0].allToAll(b, HostBuffer.allocate(16), 4, DataType.INT32, Stream.DEFAULT));
        for (final Communicator c : comms)
        {
            c.close();
        }
    }

    private static void check(final Communicator[] comms, final DataType type, final long count,
        final boolean inPlace)
    {
        final int n = comms.length;
        final int size = type.byteSize();
        final long bytes = n * count * size;
        final HostBuffer[] send = new HostBuffer[n];
        final HostBuffer[] recv = new HostBuffer[n];
        for (int r = 0; r < n; r++)
        {
            send[r] = HostBuffer.allocate(bytes);
            recv[r] = inPlace ? send[r] : HostBuffer.allocate(bytes);
            for (long b = 0; b < bytes; b++)
            {
                send[r].byteBuffer().put((int)b, pattern(r, b));
            }
        }
        final Work[] works = new Work[n];
        Jccl.groupStart();
        for (int r = 0; r < n; r++)
        {
            works[r] = comms[r].allToAll(send[r], recv[r], count, type, Stream.DEFAULT);
        }
        Jccl.groupEnd();
        for (final Work w : works)
        {
            w.join();
        }
        final long block = count * size;
        for (int r = 0; r < n; r++)
        {
            for (long b = 0; b < bytes; b++)
            {
                final int peer = (int)(b / block);
                final byte expected = pattern(peer, r * block + b % block);
                final byte actual = recv[r].byteBuffer().get((int)b);
                if (expected != actual)
                {
                    assertEquals(expected, actual, type + " count " + count + (inPlace ? " in place" : "") +
                        " n=" + n + " rank " + r + " byte " + b);
                }
            }
        }
    }

    private static byte pattern(final int rank, final long b)
    {
        return (byte)(rank * 31 + b * 7 + (b >>> 8) * 13);
    }
}
