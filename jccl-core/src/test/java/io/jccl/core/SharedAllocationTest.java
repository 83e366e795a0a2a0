package io.jccl.core;

import io.jccl.BufferRegistration;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.ReduceOp;
import io.jccl.TransportKind;
import io.jccl.transport.SharedBuffers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Jccl#allocate(long)} and {@link Jccl#free(HostBuffer)} (NCCL's {@code ncclMemAlloc}/{@code ncclMemFree}):
 * shared memory under a file named after this process, usable with ranks of this process as any buffer, and
 * removed by free; {@link Communicator#register} says every host buffer is read in place by ranks of one process.
 * Between processes: {@link MultiProcessTest}.
 */
class SharedAllocationTest
{
    @Test
    void shouldBackABufferWithAFileOfThisProcessUntilFreed()
    {
        final HostBuffer buffer = Jccl.allocate(1000);
        final long address = LocalCommunicator.address(buffer);
        final SharedBuffers.Segment segment = SharedBuffers.INSTANCE.find(address, 1000);
        assertTrue(buffer.isJcclOwned());
        assertEquals(1000, buffer.length());
        assertEquals(address, segment.address());
        final Path file = segment.file();
        assertTrue(Files.exists(file), file.toString());
        assertTrue(file.getFileName().toString().contains("-" + ProcessHandle.current().pid() + "-"), file.toString());
        buffer.byteBuffer().putLong(992, 42);
        assertEquals(42, segment.memory().getLong(992));

        assertThrows(JcclInvalidArgumentException.class, () -> Jccl.free(buffer.slice(64, 64)), "a slice");
        Jccl.free(buffer);
        assertFalse(Files.exists(file), "freed: the name is gone");
        final JcclInvalidArgumentException twice = assertThrows(JcclInvalidArgumentException.class,
            () -> Jccl.free(buffer));
        assertTrue(twice.getMessage().contains("not a live buffer"), twice.getMessage());
        assertThrows(JcclInvalidArgumentException.class, () -> Jccl.free(HostBuffer.allocate(64)), "private memory");
        assertThrows(JcclInvalidArgumentException.class, () -> Jccl.free(null));
        assertThrows(JcclInvalidArgumentException.class, () -> Jccl.allocate(-1));
    }

    @Test
    @Timeout(60)
    void shouldReduceExactlyInPlaceAndNotOverSharedBuffersOfRanksInOneProcess()
    {
        final int size = 3;
        final long count = 100_003;
        final Communicator[] comms = Jccl.initAll(new Context().transport(TransportKind.P2P), size);
        final HostBuffer[] send = new HostBuffer[size];
        final HostBuffer[] recv = new HostBuffer[size];
        try
        {
            for (final boolean inPlace : new boolean[] {false, true})
            {
                for (int r = 0; r < size; r++)
                {
                    send[r] = Jccl.allocate(count * 4);
                    recv[r] = inPlace ? send[r] : Jccl.allocate(count * 4);
                    for (int i = 0; i < count; i++)
                    {
                        send[r].byteBuffer().putInt(i * 4, r * 1000 + i % 977);
                    }
                }
                GroupCalls.allReduce(comms, send, recv, count, DataType.INT32, ReduceOp.SUM);
                for (int r = 0; r < size; r++)
                {
                    for (int i = 0; i < count; i++)
                    {
                        assertEquals(3000 + 3 * (i % 977), recv[r].byteBuffer().getInt(i * 4), "rank " + r +
                            " element " + i + (inPlace ? " in place" : ""));
                    }
                    Jccl.free(send[r]);
                    if (!inPlace)
                    {
                        Jccl.free(recv[r]);
                    }
                }
            }
            assertTrue(((LocalCommunicator)comms[0]).counters().bytesDirect(TransportKind.P2P) > 0);
            final HostBuffer shared = Jccl.allocate(64);
            try (BufferRegistration a = comms[0].register(shared);
                BufferRegistration b = comms[0].register(HostBuffer.allocate(64)))
            {
                assertTrue(a.peersReadInPlace(), "ranks of one process read any host buffer in place");
                assertTrue(b.peersReadInPlace(), "ranks of one process read any host buffer in place");
            }
            finally
            {
                Jccl.free(shared);
            }
            assertThrows(JcclInvalidArgumentException.class, () -> comms[0].register(null));
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.close();
            }
        }
    }
}
