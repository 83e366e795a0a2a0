package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.DeviceBuffer;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;
import io.jccl.kernels.cuda.EmulatedCuda;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The device memory calls of {@link Jccl} on the device double: allocate on a rank's device, copy in and out,
 * collectives on that memory, free; and every misuse refused with the argument named.
 */
class DeviceMemoryTest
{
    @Test
    @Timeout(60)
    void shouldRoundTripThroughACollectiveWhenMemoryIsJcclAllocated()
    {
        final Communicator[] comms = Jccl.initAll(new Context().cuda(new EmulatedCuda()), 2);
        try
        {
            final int count = 64;
            final DeviceBuffer[] device = new DeviceBuffer[comms.length];
            final HostBuffer[] host = new HostBuffer[comms.length];
            for (final Communicator c : comms)
            {
                device[c.rank()] = Jccl.allocateDevice(c, count * Float.BYTES);
                assertEquals(Jccl.cudaDevice(c), device[c.rank()].device());
                host[c.rank()] = HostBuffer.allocate(count * Float.BYTES);
                for (int i = 0; i < count; i++)
                {
                    host[c.rank()].byteBuffer().putFloat(i * Float.BYTES, c.rank() + i);
                }
                Jccl.copyToDevice(device[c.rank()], host[c.rank()]);
            }
            final Work[] work = new Work[comms.length];
            Jccl.groupStart();
            for (final Communicator c : comms)
            {
                work[c.rank()] = c.allReduce(device[c.rank()], device[c.rank()], count, DataType.FLOAT32,
                    ReduceOp.SUM, Stream.DEFAULT);
            }
            Jccl.groupEnd();
            for (final Work w : work)
            {
                w.join();
            }
            for (final Communicator c : comms)
            {
                final HostBuffer back = HostBuffer.allocate(count * Float.BYTES);
                Jccl.copyFromDevice(back, device[c.rank()]);
                for (int i = 0; i < count; i++)
                {
                    assertEquals(1f + 2 * i, back.byteBuffer().getFloat(i * Float.BYTES), "element " + i);
                }
                Jccl.freeDevice(device[c.rank()]);
            }
        }
        finally
        {
            for (final Communicator c : comms)
            {
                c.close();
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldCopySlicesWhenTheyLieInAnAllocation()
    {
        final Communicator[] comms = Jccl.initAll(new Context().cuda(new EmulatedCuda()), 1);
        try
        {
            final DeviceBuffer buffer = Jccl.allocateDevice(comms[0], 16);
            final HostBuffer host = HostBuffer.allocate(16);
            host.byteBuffer().putLong(0, 0x0102030405060708L);
            Jccl.copyToDevice(buffer.slice(8, 8), host.slice(0, 8));
            final HostBuffer back = HostBuffer.allocate(8);
            Jccl.copyFromDevice(back, buffer.slice(8, 8));
            assertEquals(0x0102030405060708L, back.byteBuffer().getLong(0));

            final JcclInvalidArgumentException shortTarget = assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.copyToDevice(buffer.slice(8, 8), host));
            assertTrue(shortTarget.getMessage().contains("target"), shortTarget.getMessage());
            final JcclInvalidArgumentException slice = assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.freeDevice(buffer.slice(0, 8)));
            assertTrue(slice.getMessage().contains("buffer"), slice.getMessage());
            Jccl.freeDevice(buffer);
            final JcclInvalidArgumentException twice = assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.freeDevice(buffer));
            assertTrue(twice.getMessage().contains("not a live buffer"), twice.getMessage());
            final JcclInvalidArgumentException freed = assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.copyFromDevice(back, buffer));
            assertTrue(freed.getMessage().startsWith("source"), freed.getMessage());
        }
        finally
        {
            comms[0].close();
        }
    }

    @Test
    @Timeout(60)
    void shouldNameTheArgumentWhenACallIsMisused()
    {
        final Communicator[] comms = Jccl.initAll(new Context(), 1);
        try
        {
            final JcclInvalidArgumentException host = assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.allocateDevice(comms[0], 8));
            assertTrue(host.getMessage().contains("host backend"), host.getMessage());
            assertEquals("communicator is null", assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.allocateDevice(null, 8)).getMessage());
            assertEquals("target is null", assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.copyToDevice(null, HostBuffer.allocate(8))).getMessage());
            assertEquals("source is null", assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.copyFromDevice(HostBuffer.allocate(8), null)).getMessage());
            assertEquals("buffer is null", assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.freeDevice(null)).getMessage());
        }
        finally
        {
            comms[0].close();
        }
        final Communicator[] cuda = Jccl.initAll(new Context().cuda(new EmulatedCuda()), 1);
        try
        {
            final JcclInvalidArgumentException negative = assertThrows(JcclInvalidArgumentException.class,
                () -> Jccl.allocateDevice(cuda[0], -1));
            assertTrue(negative.getMessage().startsWith("length=-1"), negative.getMessage());
        }
        finally
        {
            cuda[0].close();
        }
    }
}
