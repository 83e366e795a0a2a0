package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import static org.agrona.UnsafeApi.getInt;
import static org.agrona.UnsafeApi.putInt;

/**
 * INT32 and UINT32: wrapping arithmetic, which is the same for both; MAX and MIN flip the sign bit of unsigned
 * operands ({@code x ^ bias}) so that one signed comparison orders both. One static loop per operator, as in
 * {@link Float32Reducer}.
 */
final class Int32Reducer extends HostReducer
{
    private final int scalar;
    private final int bias;

    Int32Reducer(final DataType type, final ReduceOp.Kind kind, final int scalar)
    {
        super(type, kind);
        this.scalar = scalar;
        this.bias = type.isSigned() ? 0 : Integer.MIN_VALUE;
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
        final long length = count << 2;
        if (type().isSigned())
        {
            for (long i = 0; i < length; i += 4)
            {
                putInt(address + i, (int)(getInt(address + i) / divisor));
            }
        }
        else
        {
            for (long i = 0; i < length; i += 4)
            {
                putInt(address + i, (int)divideUnsigned(getInt(address + i) & 0xFFFF_FFFFL, divisor));
            }
        }
    }

    @Override
    void sum(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 4)
        {
            putInt(dst + i, getInt(a + i) + getInt(b + i));
        }
    }

    @Override
    void prod(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 4)
        {
            putInt(dst + i, getInt(a + i) * getInt(b + i));
        }
    }

    private static void max(final long a, final long b, final long dst, final long length, final int bias)
    {
        for (long i = 0; i < length; i += 4)
        {
            putInt(dst + i, Math.max(getInt(a + i) ^ bias, getInt(b + i) ^ bias) ^ bias);
        }
    }

    private static void min(final long a, final long b, final long dst, final long length, final int bias)
    {
        for (long i = 0; i < length; i += 4)
        {
            putInt(dst + i, Math.min(getInt(a + i) ^ bias, getInt(b + i) ^ bias) ^ bias);
        }
    }

    private static void premulSum(
        final long a, final int scalarA, final long b, final int scalarB, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 4)
        {
            putInt(dst + i, getInt(a + i) * scalarA + getInt(b + i) * scalarB);
        }
    }

    private static void scale(final long src, final int scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 4)
        {
            putInt(dst + i, getInt(src + i) * scalar);
        }
    }
}
