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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CUDA contexts. A caller's thread leaves jccl with the context it came with, though jccl's driver calls on it make
 * the ranks' devices current: after creating communicators, allocating and copying device buffers, waiting on calls
 * (join, isDone), aborting and closing. The ranks run on devices 0 and 1 of the device double, which keeps a current
 * context per thread as the driver does; the caller's thread holds device 1's, device 0's or none. And memory of
 * another context than the primary one, where the kernels run, is refused before the call is queued.
 */
class CudaContextTest
{
    private static final int COUNT = 256;

    @ParameterizedTest(name = "caller's context token {0}")
    @ValueSource(longs = {0, 1, 2})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldGiveTheCallersThreadItsContextBack(final long token)
    {
        final EmulatedCuda cuda = new EmulatedCuda(2, 132);
        // the token of device d's primary context is d + 1 on the double; 0 is no context
        cuda.makeCurrent(token);
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda), 2);
        assertEquals(token, cuda.currentContext(), "after creating the communicators");
        final DeviceBuffer[] buffers = new DeviceBuffer[2];
        try
        {
            final HostBuffer ones = HostBuffer.allocate(4L * COUNT);
            for (int i = 0; i < COUNT; i++)
            {
                ones.byteBuffer().order(ByteOrder.nativeOrder()).putInt(4 * i, 1);
            }
            for (int r = 0; r < 2; r++)
            {
                buffers[r] = Jccl.allocateDevice(comms[r], 4L * COUNT);
                Jccl.copyToDevice(buffers[r], ones);
            }
            assertEquals(token, cuda.currentContext(), "after allocating and copying");
            for (int call = 0; call < 3; call++)
            {
                final Work[] works = CudaSharedDeviceLaunchTest.submitInt32Sums(comms,
                    new long[] {buffers[0].address(), buffers[1].address()}, 2, COUNT, r -> Stream.DEFAULT);
                assertEquals(token, cuda.currentContext(), "after submitting");
                while (!works[0].isDone())
                {
                    assertEquals(token, cuda.currentContext(), "after polling");
                }
                works[1].join();
                assertEquals(token, cuda.currentContext(), "after joining");
            }
            final HostBuffer result = HostBuffer.allocate(4L * COUNT);
            Jccl.copyFromDevice(result, buffers[1]);
            assertEquals(8, result.byteBuffer().order(ByteOrder.nativeOrder()).getInt(4 * (COUNT - 1)),
                "1 summed over 2 ranks, 3 times");
            comms[0].abort();
            assertEquals(token, cuda.currentContext(), "after aborting");
        }
        finally
        {
            for (int r = 0; r < 2; r++)
            {
                comms[r].close();
                assertEquals(token, cuda.currentContext(), "after closing rank " + r);
                if (buffers[r] != null)
                {
                    Jccl.freeDevice(buffers[r]);
                }
            }
            assertEquals(token, cuda.currentContext(), "after freeing");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldRefuseMemoryOfAnotherContextNamingTheArgument()
    {
        final EmulatedCuda cuda = new EmulatedCuda();
        cuda.makeCurrent(cuda.createContext(0));
        final DeviceBuffer foreign = DeviceBuffer.of(cuda.malloc(4L * COUNT), 4L * COUNT, 0);
        cuda.makeCurrent(cuda.primaryContext(0));
        final long[] primary = {cuda.malloc(4L * COUNT), cuda.malloc(4L * COUNT)};
        cuda.makeCurrent(0);
        final Communicator[] comms = Jccl.initAll(new Context().cuda(cuda), 2);
        try
        {
            final DeviceBuffer good = DeviceBuffer.of(primary[0], 4L * COUNT, 0);
            final String[] names = {"send", "recv"};
            for (final String name : names)
            {
                final JcclInvalidArgumentException error = assertThrows(JcclInvalidArgumentException.class,
                    () -> comms[0].allReduce("send".equals(name) ? foreign : good, "send".equals(name) ? good :
                        foreign, COUNT, DataType.INT32, ReduceOp.SUM, Stream.DEFAULT));
                assertTrue(error.getMessage().startsWith(name + " is " + foreign + ", memory of another CUDA " +
                    "context than the primary context of device 0, where this rank's kernels run"),
                    error.getMessage());
            }
            // refused before anything was queued: the ranks go on with the primary context's memory
            for (final Work w : CudaSharedDeviceLaunchTest.submitInt32Sums(comms, primary, 1, COUNT,
                r -> Stream.DEFAULT))
            {
                w.join();
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
}
