package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import static org.agrona.UnsafeApi.getByte;
import static org.agrona.UnsafeApi.putByte;

/**
 * INT8 and UINT8: wrapping arithmetic, which is the same for both; MAX and MIN flip the sign bit of unsigned
 * operands ({@code x ^ bias}) so that one signed comparison orders both. One static loop per operator, as in
 * {@link Float32Reducer}.
 */
final class Int8Reducer extends HostReducer
{
    private final byte scalar;
    private final int bias;

    Int8Reducer(final DataType type, final ReduceOp.Kind kind, final byte scalar)
    {
        super(type, kind);
        this.scalar = scalar;
        this.bias = type.isSigned() ? 0 : Byte.MIN_VALUE;
    }

    @Override
    void max(final long a, final long b, final long dst, final long length)
    {
        max(a, b, dst, length, bias);
    }

    @Override
    void min(final long a, final long b, final long dst, final long length)
    {
        min(a, b, dst, length, bias);
    }

    @Override
    void premulSum(final long a, final boolean premulA, final long b, final boolean premulB, final long dst,
        final long length)
    {
        // multiplying by one is exact, so one loop serves both one-sided cases
        premulSum(a, premulA ? scalar : 1, b, premulB ? scalar : 1, dst, length);
    }

    @Override
    void scale(final long src, final long dst, final long length)
    {
        scale(src, scalar, dst, length);
    }

    @Override
    public void divide(final long address, final long count, final long divisor)
    {
        checkDivide(divisor);
        if (type().isSigned())
        {
            for (long i = 0; i < count; i++)
            {
                putByte(address + i, (byte)(getByte(address + i) / divisor));
            }
        }
        else
        {
            for (long i = 0; i < count; i++)
            {
                putByte(address + i, (byte)divideUnsigned(getByte(address + i) & 0xFF, divisor));
            }
        }
    }

    @Override
    void sum(final long a, final long b, final long dst, final long count)
    {
        for (long i = 0; i < count; i++)
        {
            putByte(dst + i, (byte)(getByte(a + i) + getByte(b + i)));
        }
    }

    @Override
    void prod(final long a, final long b, final long dst, final long count)
    {
        for (long i = 0; i < count; i++)
        {
            putByte(dst + i, (byte)(getByte(a + i) * getByte(b + i)));
        }
    }

    private static void max(final long a, final long b, final long dst, final long count, final int bias)
    {
        for (long i = 0; i < count; i++)
        {
            putByte(dst + i, (byte)(Math.max(getByte(a + i) ^ bias, getByte(b + i) ^ bias) ^ bias));
        }
    }

    private static void min(final long a, final long b, final long dst, final long count, final int bias)
    {
        for (long i = 0; i < count; i++)
        {
            putByte(dst + i, (byte)(Math.min(getByte(a + i) ^ bias, getByte(b + i) ^ bias) ^ bias));
        }
    }

    private static void premulSum(
        final long a, final int scalarA, final long b, final int scalarB, final long dst, final long count)
    {
        for (long i = 0; i < count; i++)
        {
            putByte(dst + i, (byte)(getByte(a + i) * scalarA + getByte(b + i) * scalarB));
        }
    }

    private static void scale(final long src, final int scalar, final long dst, final long count)
    {
        for (long i = 0; i < count; i++)
        {
            putByte(dst + i, (byte)(getByte(src + i) * scalar));
        }
    }
}
