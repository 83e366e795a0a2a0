package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import static org.agrona.UnsafeApi.getDouble;
import static org.agrona.UnsafeApi.putDouble;

/**
 * FLOAT64 in plain double arithmetic. One static loop per operator, so that each is compiled on its own with the
 * element operation inlined. C2 on JDK 17 unrolls these raw-address loops but does not vectorise them (measured:
 * {@code -XX:-UseSuperWord} changes nothing; it cannot rule out a partial overlap of the addresses): a Vector API
 * path is a later optimisation.
 */
final class Float64Reducer extends HostReducer
{
    private final double scalar;

    Float64Reducer(final ReduceOp.Kind kind, final double scalar)
    {
        super(DataType.FLOAT64, kind);
        this.scalar = scalar;
    }

    @Override
    void premulSum(final long a, final boolean premulA, final long b, final boolean premulB, final long dst,
        final long length)
    {
        // multiplying by one is exact, so one loop serves both one-sided cases
        premulSum(a, premulA ? scalar : 1.0, b, premulB ? scalar : 1.0, dst, length);
    }

    @Override
    void scale(final long src, final long dst, final long length)
    {
        scale(src, scalar, dst, length);
    }

    @Override
    public void divide(final long address, final long count, final long divisor)
    {
        checkDivide(divisor); // always throws: AVG on floating types is PREMULSUM
    }

    @Override
    void sum(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putDouble(dst + i, getDouble(a + i) + getDouble(b + i));
        }
    }

    @Override
    void prod(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putDouble(dst + i, getDouble(a + i) * getDouble(b + i));
        }
    }

    @Override
    void max(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putDouble(dst + i, fmax(getDouble(a + i), getDouble(b + i)));
        }
    }

    @Override
    void min(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putDouble(dst + i, fmin(getDouble(a + i), getDouble(b + i)));
        }
    }

    private static void premulSum(
        final long a, final double scalarA, final long b, final double scalarB, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putDouble(dst + i, getDouble(a + i) * scalarA + getDouble(b + i) * scalarB);
        }
    }

    private static void scale(final long src, final double scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 8)
        {
            putDouble(dst + i, getDouble(src + i) * scalar);
        }
    }
}
