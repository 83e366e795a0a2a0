package io.jccl.kernels.cuda;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real driver through {@link JCudaApi}, on a machine with a GPU:
 * {@code mvn -pl jccl-kernels test -Djccl.test.excludedGroups=none -Dgroups=gpu}. Skipped where CUDA is absent.
 */
@Tag("gpu")
@Timeout(120)
class JCudaApiGpuTest
{
    /**
     * {@code data[i] += 1} for {@code i < count}, one thread per element: PTX 7.8 for sm_75 loads on CUDA 12 and 13
     * drivers alike (assembled for sm_75 and sm_90 with JCuda's PTX compiler when this test was written).
     */
    private static final String ADD_ONE_PTX = String.join("\n",
        ".version 7.8",
        ".target sm_75",
        ".address_size 64",
        "",
        ".visible .entry jccl_test_add_one(",
        "    .param .u64 data,",
        "    .param .u64 count",
        ")",
        "{",
        "    .reg .pred %p<2>;",
        "    .reg .b32 %r<6>;",
        "    .reg .b64 %rd<6>;",
        "",
        "    ld.param.u64 %rd1, [data];",
        "    ld.param.u64 %rd2, [count];",
        "    mov.u32 %r1, %ctaid.x;",
        "    mov.u32 %r2, %ntid.x;",
        "    mov.u32 %r3, %tid.x;",
        "    mad.lo.u32 %r4, %r1, %r2, %r3;",
        "    cvt.u64.u32 %rd3, %r4;",
        "    setp.ge.u64 %p1, %rd3, %rd2;",
        "    @%p1 bra DONE;",
        "    cvta.to.global.u64 %rd4, %rd1;",
        "    shl.b64 %rd5, %rd3, 2;",
        "    add.s64 %rd4, %rd4, %rd5;",
        "    ld.global.u32 %r5, [%rd4];",
        "    add.s32 %r5, %r5, 1;",
        "    st.global.u32 [%rd4], %r5;",
        "DONE:",
        "    ret;",
        "}",
        "");

    private CudaApi api;

    private final List<Runnable> cleanups = new ArrayList<>();

    /** Skips each test, with the probe's reason, where CUDA is absent (a skipped class would report 0 tests). */
    @BeforeEach
    void requireCudaAndUseDeviceZero()
    {
        final CudaAvailability availability = CudaProbe.availability();
        assumeTrue(availability.available(), availability::reason);
        api = CudaProbe.api();
        api.setDevice(0);
    }

    @AfterEach
    void release()
    {
        for (int i = cleanups.size() - 1; i >= 0; i--)
        {
            cleanups.get(i).run();
        }
    }

    @Test
    void shouldDescribeDriverAndDevice()
    {
        final int driverVersion = api.driverVersion();
        final String name = api.deviceName(0);
        final int multiprocessors = api.multiprocessorCount(0);
        System.out.println("cuda: driver " + driverVersion + ", " + api.deviceCount() + " device(s), device 0 " +
            name + " with " + multiprocessors + " SMs");

        assertEquals("cuda", api.name());
        assertEquals(CudaProbe.availability().driverVersion(), driverVersion);
        assertEquals(CudaProbe.availability().devices(), api.deviceCount());
        assertFalse(name.isBlank());
        assertTrue(multiprocessors > 0);
        assertThrows(JcclSystemException.class, () -> api.deviceName(api.deviceCount()));
    }

    @Test
    void shouldRoundTripBytesWhenCopyingThroughDevice()
    {
        final int length = 1 << 20;
        final long source = hostBuffer(length);
        final long target = hostBuffer(length);
        final long device = deviceBuffer(length);
        final long stream = stream();
        assertEquals(0, device % 256, "cuMemAlloc aligns to 256 bytes");
        for (int i = 0; i < length; i++)
        {
            UnsafeApi.putByte(source + i, (byte)(i * 7 + 3));
        }
        UnsafeApi.setMemory(target, length, (byte)0);

        api.memcpyAsync(device, source, length, stream);
        api.memsetAsync(device + 4096, 0xAB, 1000, stream);
        api.memcpyAsync(target, device, length, stream);
        api.streamSynchronize(stream);

        for (int i = 0; i < length; i++)
        {
            final byte expected = i >= 4096 && i < 5096 ? (byte)0xAB : (byte)(i * 7 + 3);
            if (UnsafeApi.getByte(target + i) != expected)
            {
                fail("byte " + i + " is " + UnsafeApi.getByte(target + i) + ", expected " + expected);
            }
        }
    }

    @Test
    void shouldMeasureTimeBetweenEventsAroundCopies()
    {
        final int length = 64 << 20;
        final long a = deviceBuffer(length);
        final long b = deviceBuffer(length);
        final long stream = stream();
        final long other = stream();
        final long start = event();
        final long end = event();
        api.memsetAsync(a, 0x5A, length, stream);

        api.eventRecord(start, stream);
        for (int i = 0; i < 10; i++)
        {
            api.memcpyAsync(b, a, length, stream);
            api.memcpyAsync(a, b, length, stream);
        }
        api.eventRecord(end, stream);
        api.streamWaitEvent(other, end);
        api.streamSynchronize(other);
        api.streamSynchronize(stream);

        assertTrue(api.eventQuery(end));
        final float milliseconds = api.eventElapsedMs(start, end);
        System.out.println("cuda: 20 device copies of 64 MiB in " + milliseconds + " ms (" +
            (40.0 * length / (milliseconds * 1e6)) + " GB/s counting reads and writes)");
        assertTrue(milliseconds > 0, "elapsed " + milliseconds);
    }

    @Test
    void shouldAddOneWhenLaunchingInlinePtx()
    {
        final int count = 1_000_003;
        final long length = 4L * count;
        final long host = hostBuffer(length);
        final long device = deviceBuffer(length);
        final long stream = stream();
        for (int i = 0; i < count; i++)
        {
            UnsafeApi.putInt(host + 4L * i, i * 3 - 7);
        }
        final long module = api.moduleLoad(ADD_ONE_PTX);
        final long function = api.function(module, "jccl_test_add_one");

        api.memcpyAsync(device, host, length, stream);
        api.launch(function, (count + 255) / 256, 256, 0, stream, device, count);
        api.memcpyAsync(host, device, length, stream);
        api.streamSynchronize(stream);

        for (int i = 0; i < count; i++)
        {
            if (UnsafeApi.getInt(host + 4L * i) != i * 3 - 6)
            {
                fail("element " + i + " is " + UnsafeApi.getInt(host + 4L * i) + ", expected " + (i * 3 - 6));
            }
        }
        final JcclSystemException missing = assertThrows(
            JcclSystemException.class, () -> api.function(module, "jccl_no_such_kernel"));
        assertTrue(missing.getMessage().contains("jccl_no_such_kernel"), missing.getMessage());
    }

    @Test
    void shouldGive64ByteIpcHandleWhenAllocationIsDeviceMemory()
    {
        final long device = deviceBuffer(1 << 20);

        final byte[] handle = api.ipcHandle(device);

        assertEquals(IpcHandles.HANDLE_LENGTH, handle.length);
        assertNotEquals(0, nonZeroBytes(handle), "a handle is not all zeros");
    }

    @Test
    void shouldEnablePeerAccessWhenPeerIsSelfOrReachable()
    {
        assertTrue(api.enablePeerAccess(0), "a device reaches its own memory");
        for (int peer = 1; peer < api.deviceCount(); peer++)
        {
            final boolean first = api.enablePeerAccess(peer);
            assertEquals(first, api.enablePeerAccess(peer), "enabling twice answers the same (peer " + peer + ")");
        }
        assertThrows(JcclSystemException.class, () -> api.enablePeerAccess(api.deviceCount()));
    }

    @Test
    void shouldRejectBadArgumentsBeforeCallingDriver()
    {
        assertThrows(JcclInvalidArgumentException.class, () -> api.malloc(0));
        assertThrows(JcclInvalidArgumentException.class, () -> api.mallocHost(Integer.MAX_VALUE + 1L));
        assertThrows(JcclInvalidArgumentException.class, () -> api.eventQuery(Long.MAX_VALUE));
        assertThrows(JcclInvalidArgumentException.class, () -> api.streamSynchronize(Long.MAX_VALUE));
        assertThrows(JcclInvalidArgumentException.class, () -> api.moduleLoad(""));
        api.free(0);
        api.freeHost(0);
        api.streamDestroy(0);
        api.eventDestroy(0);
    }

    private long hostBuffer(final long length)
    {
        final long address = api.mallocHost(length);
        cleanups.add(() -> api.freeHost(address));
        return address;
    }

    private long deviceBuffer(final long length)
    {
        final long pointer = api.malloc(length);
        cleanups.add(() -> api.free(pointer));
        return pointer;
    }

    private long stream()
    {
        final long stream = api.streamCreate();
        cleanups.add(() -> api.streamDestroy(stream));
        return stream;
    }

    private long event()
    {
        final long event = api.eventCreate(true);
        cleanups.add(() -> api.eventDestroy(event));
        return event;
    }

    private static int nonZeroBytes(final byte[] bytes)
    {
        int count = 0;
        for (final byte b : bytes)
        {
            count += b != 0 ? 1 : 0;
        }
        return count;
    }
}
