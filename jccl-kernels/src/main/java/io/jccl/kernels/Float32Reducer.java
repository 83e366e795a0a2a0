package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import static org.agrona.UnsafeApi.getFloat;
import static org.agrona.UnsafeApi.putFloat;

/**
 * FLOAT32 in plain float arithmetic. One static loop per operator, so that each is compiled on its own with the
 * element operation inlined. C2 on JDK 17 unrolls these raw-address loops but does not vectorise them (measured:
 * {@code -XX:-UseSuperWord} changes nothing; it cannot rule out a partial overlap of the addresses): a Vector API
 * path is a later optimisation.
 */
final class Float32Reducer extends HostReducer
{
    private final float scalar;

    Float32Reducer(final ReduceOp.Kind kind, final float scalar)
    {
        super(DataType.FLOAT32, kind);
        this.scalar = scalar;
    }

    @Override
    void premulSum(final long a, final boolean premulA, final long b, final boolean premulB, final long dst,
        final long length)
    {
        // multiplying by one is exact, so one loop serves both one-sided cases
        premulSum(a, premulA ? scalar : 1.0f, b, premulB ? scalar : 1.0f, dst, length);
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
        for (long i = 0; i < length; i += 4)
        {
            putFloat(dst + i, getFloat(a + i) + getFloat(b + i));
        }
    }

    @Override
    void prod(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 4)
        {
            putFloat(dst + i, getFloat(a + i) * getFloat(b + i));
        }
    }

    @Override
    void max(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 4)
        {
            putFloat(dst + i, fmax(getFloat(a + i), getFloat(b + i)));
        }
    }

    @Override
    void min(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 4)
        {
            putFloat(dst + i, fmin(getFloat(a + i), getFloat(b + i)));
        }
    }

    private static void premulSum(
        final long a, final float scalarA, final long b, final float scalarB, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 4)
        {
            putFloat(dst + i, getFloat(a + i) * scalarA + getFloat(b + i) * scalarB);
        }
    }

    private static void scale(final long src, final float scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 4)
        {
            putFloat(dst + i, getFloat(src + i) * scalar);
        }
    }
}
