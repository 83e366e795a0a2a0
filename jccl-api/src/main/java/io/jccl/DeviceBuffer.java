package io.jccl;

/**
 * CUDA device memory: a device address ({@code CUdeviceptr}), a length in bytes and the device ordinal. jccl does
 * not own it unless a jccl allocator made it.
 */
public final class DeviceBuffer extends Buffer
{
    private final long address;
    private final long length;
    private final int device;

    private DeviceBuffer(final long address, final long length, final int device)
    {
        this.address = address;
        this.length = length;
        this.device = device;
    }

    /**
     * @param address device address, non-zero.
     * @param length  bytes, non-negative.
     * @param device  CUDA device ordinal, non-negative.
     * @return the buffer.
     * @throws JcclInvalidArgumentException naming the bad argument.
     */
    public static DeviceBuffer of(final long address, final long length, final int device)
    {
        if (address == 0)
        {
            throw new JcclInvalidArgumentException("address is 0 (a null device pointer)");
        }
        if (length < 0)
        {
            throw new JcclInvalidArgumentException("length=" + length + " is negative");
        }
        if (device < 0)
        {
            throw new JcclInvalidArgumentException("device=" + device + " is negative");
        }
        return new DeviceBuffer(address, length, device);
    }

    @Override
    public MemoryKind memoryKind()
    {
        return MemoryKind.DEVICE;
    }

    @Override
    public long length()
    {
        return length;
    }

    /** @return the device address of the first byte. */
    public long address()
    {
        return address;
    }

    /** @return the CUDA device ordinal. */
    public int device()
    {
        return device;
    }

    @Override
    public DeviceBuffer slice(final long offset, final long length)
    {
        checkRange(offset, length, this.length);
        return new DeviceBuffer(address + offset, length, device);
    }

    @Override
    public String toString()
    {
        return "DeviceBuffer{device=" + device + ", address=0x" + Long.toHexString(address) + ", length=" + length + '}';
    }
}
