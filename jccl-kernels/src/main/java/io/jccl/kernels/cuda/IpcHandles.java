package io.jccl.kernels.cuda;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import jcuda.driver.CUipcMemHandle;

import java.lang.reflect.Field;

/**
 * Converts JCuda's {@link CUipcMemHandle} to and from the 64 bytes that travel to another process. JCuda keeps the
 * bytes in a private field and offers no accessor; reflection reads and writes it (JCuda is on the class path, so
 * no {@code --add-opens} is needed). Thread-safe.
 */
public final class IpcHandles
{
    /** The length of a CUDA IPC memory handle ({@code CU_IPC_HANDLE_SIZE}). */
    public static final int HANDLE_LENGTH = 64;

    /** The private {@code byte[] reserved} of JCuda 12.6.0's handle, or null when this JCuda lacks it. */
    private static final Field RESERVED = reservedField();

    private IpcHandles()
    {
    }

    /**
     * @param handle a handle filled by {@code cuIpcGetMemHandle}.
     * @return a copy of its 64 bytes.
     */
    public static byte[] toBytes(final CUipcMemHandle handle)
    {
        if (handle == null)
        {
            throw new JcclInvalidArgumentException("handle is null");
        }
        final byte[] reserved = reserved(handle);
        if (reserved == null || reserved.length != HANDLE_LENGTH)
        {
            throw new JcclSystemException("CUipcMemHandle holds " + (reserved == null ? "no" : reserved.length) +
                " bytes where " + HANDLE_LENGTH + " were expected: this JCuda version lays it out differently");
        }
        return reserved.clone();
    }

    /**
     * @param bytes 64 bytes from {@link #toBytes(CUipcMemHandle)}, possibly in another process.
     * @return a handle holding a copy of them, for {@code cuIpcOpenMemHandle}.
     * @throws JcclInvalidArgumentException when {@code bytes} is null or not 64 bytes long.
     */
    public static CUipcMemHandle fromBytes(final byte[] bytes)
    {
        if (bytes == null || bytes.length != HANDLE_LENGTH)
        {
            throw new JcclInvalidArgumentException("handle bytes: " +
                (bytes == null ? "null" : bytes.length + " bytes") + " where a CUDA IPC handle is exactly " +
                HANDLE_LENGTH + " bytes");
        }
        final CUipcMemHandle handle = new CUipcMemHandle();
        try
        {
            field().set(handle, bytes.clone());
        }
        catch (final IllegalAccessException ex)
        {
            throw new JcclSystemException("cannot write CUipcMemHandle's bytes by reflection", ex);
        }
        return handle;
    }

    private static byte[] reserved(final CUipcMemHandle handle)
    {
        try
        {
            return (byte[])field().get(handle);
        }
        catch (final IllegalAccessException ex)
        {
            throw new JcclSystemException("cannot read CUipcMemHandle's bytes by reflection", ex);
        }
    }

    private static Field field()
    {
        if (RESERVED == null)
        {
            throw new JcclSystemException("JCuda's CUipcMemHandle has no accessible byte[] field 'reserved' " +
                "(JCuda 12.6.0 has one): this JCuda version cannot carry CUDA IPC handles");
        }
        return RESERVED;
    }

    private static Field reservedField()
    {
        try
        {
            final Field field = CUipcMemHandle.class.getDeclaredField("reserved");
            if (field.getType() != byte[].class)
            {
                return null;
            }
            field.setAccessible(true);
            return field;
        }
        catch (final NoSuchFieldException | RuntimeException ex)
        {
            return null;
        }
    }
}
