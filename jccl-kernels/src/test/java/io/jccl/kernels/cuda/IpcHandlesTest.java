package io.jccl.kernels.cuda;

import io.jccl.JcclInvalidArgumentException;
import jcuda.driver.CUipcMemHandle;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IpcHandlesTest
{
    @Test
    void shouldRoundTripBytesWhenConvertingToHandleAndBack()
    {
        final byte[] bytes = new byte[IpcHandles.HANDLE_LENGTH];
        new Random(42).nextBytes(bytes);
        final byte[] original = bytes.clone();

        final CUipcMemHandle handle = IpcHandles.fromBytes(bytes);
        bytes[0]++;

        assertArrayEquals(original, IpcHandles.toBytes(handle), "the handle keeps its own copy");
    }

    @Test
    void shouldGiveZeroBytesWhenHandleIsFresh()
    {
        assertArrayEquals(new byte[IpcHandles.HANDLE_LENGTH], IpcHandles.toBytes(new CUipcMemHandle()));
    }

    @Test
    void shouldCopyBytesWhenReadingHandle()
    {
        final CUipcMemHandle handle = IpcHandles.fromBytes(new byte[IpcHandles.HANDLE_LENGTH]);
        IpcHandles.toBytes(handle)[5] = 9;

        assertArrayEquals(new byte[IpcHandles.HANDLE_LENGTH], IpcHandles.toBytes(handle));
    }

    @Test
    void shouldRejectBytesWhenLengthIsNot64()
    {
        for (final int length : new int[] { 0, 1, 63, 65, 128 })
        {
            final JcclInvalidArgumentException ex = assertThrows(
                JcclInvalidArgumentException.class, () -> IpcHandles.fromBytes(new byte[length]));
            assertTrue(ex.getMessage().contains("handle bytes: " + length + " bytes"), ex.getMessage());
            assertTrue(ex.getMessage().contains("exactly 64 bytes"), ex.getMessage());
        }
    }

    @Test
    void shouldRejectNullWhenConverting()
    {
        final JcclInvalidArgumentException fromNull = assertThrows(
            JcclInvalidArgumentException.class, () -> IpcHandles.fromBytes(null));
        assertTrue(fromNull.getMessage().contains("handle bytes: null"), fromNull.getMessage());
        assertThrows(JcclInvalidArgumentException.class, () -> IpcHandles.toBytes(null));
    }
}
