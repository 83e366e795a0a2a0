package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import static org.agrona.UnsafeApi.copyMemory;
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
    public void reduce(
        final long a, final boolean premulA, final long b, final boolean premulB, final long dst, final long count)
    {
        switch (kind())
        {
            case SUM -> sum(a, b, dst, count);
            case PROD -> prod(a, b, dst, count);
            case MAX -> max(a, b, dst, count, bias);
            case MIN -> min(a, b, dst, count, bias);
            default ->
            {
                if (premulA || premulB)
                {
                    premulSum(a, premulA ? scalar : 1, b, premulB ? scalar : 1, dst, count);
                }
                else
                {
                    sum(a, b, dst, count);
                }
            }
        }
    }

    @Override
    public void copy(final long src, final boolean premul, final long dst, final long count)
    {
        if (premul && kind() == ReduceOp.Kind.PREMULSUM)
        {
            scale(src, scalar, dst, count);
        }
        else
        {
            copyMemory(src, dst, count);
        }
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

    private static void sum(final long a, final long b, final long dst, final long count)
    {
        for (long i = 0; i < count; i++)
        {
            putByte(dst + i, (byte)(getByte(a + i) + getByte(b + i)));
        }
    }

    private static void prod(final long a, final long b, final long dst, final long count)
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
