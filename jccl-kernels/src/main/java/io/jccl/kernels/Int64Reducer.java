package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import static org.agrona.UnsafeApi.getLong;
import static org.agrona.UnsafeApi.putLong;

/**
 * INT64 and UINT64: wrapping arithmetic, which is the same for both; MAX and MIN flip the sign bit of unsigned
 * operands ({@code x ^ bias}) so that one signed comparison orders both. One static loop per operator, as in
 * {@link Float32Reducer}.
 */
final class Int64Reducer extends HostReducer
{
    private final long scalar;
    private final long bias;

    Int64Reducer(final DataType type, final ReduceOp.Kind kind, final long scalar)
    {
        super(type, kind);
        this.scalar = scalar;
        this.bias = type.isSigned() ? 0 : Long.MIN_VALUE;
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
        premulSum(a, premulA ? scalar : 1L, b, premulB ? scalar : 1L, dst, length);
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
        final long length = count << 3;
        if (type().isSigned())
        {
            for (long i = 0; i < length; i += 8)
            {
                putLong(address + i, getLong(address + i) / divisor);
            }
        }
        else
        {
            for (long i = 0; i < length; i += 8)
            {
                putLong(address + i, divideUnsigned(getLong(address + i), divisor));
            }
        }
    }

    @Override
    void sum(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putLong(dst + i, getLong(a + i) + getLong(b + i));
        }
    }

    @Override
    void prod(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putLong(dst + i, getLong(a + i) * getLong(b + i));
        }
    }

    private static void max(final long a, final long b, final long dst, final long length, final long bias)
    {
        for (long i = 0; i < length; i += 8)
        {
            putLong(dst + i, Math.max(getLong(a + i) ^ bias, getLong(b + i) ^ bias) ^ bias);
        }
    }

    private static void min(final long a, final long b, final long dst, final long length, final long bias)
    {
        for (long i = 0; i < length; i += 8)
        {
            putLong(dst + i, Math.min(getLong(a + i) ^ bias, getLong(b + i) ^ bias) ^ bias);
        }
    }

    private static void premulSum(
        final long a, final long scalarA, final long b, final long scalarB, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putLong(dst + i, getLong(a + i) * scalarA + getLong(b + i) * scalarB);
        }
    }

    private static void scale(final long src, final long scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putLong(dst + i, getLong(src + i) * scalar);
        }
    }
}
