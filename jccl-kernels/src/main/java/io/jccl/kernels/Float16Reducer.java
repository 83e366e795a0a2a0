package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import static io.jccl.kernels.Float16.fromFloat;
import static io.jccl.kernels.Float16.toFloat;
import static org.agrona.UnsafeApi.getShort;
import static org.agrona.UnsafeApi.putShort;

/**
 * FLOAT16: each operand widened to float, each operation rounded back to binary16, so a pre-multiplied sum rounds
 * twice per operand. The four narrow floating reducers are one template ({@code Float16Reducer}) specialised by the
 * storage width and the static imports of their conversions; keep them identical otherwise.
 */
final class Float16Reducer extends HostReducer
{
    private final float scalar;

    Float16Reducer(final ReduceOp.Kind kind, final short scalar)
    {
        super(DataType.FLOAT16, kind);
        this.scalar = toFloat(scalar);
    }

    @Override
    void premulSum(final long a, final boolean premulA, final long b, final boolean premulB, final long dst,
        final long length)
    {
        if (premulA && premulB)
        {
            premulSumBoth(a, b, scalar, dst, length);
        }
        else
        {
            // float addition commutes, so the pre-multiplied operand may always come first
            premulSumOne(premulA ? a : b, premulA ? b : a, scalar, dst, length);
        }
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

    private static float premul(final short x, final float scalar)
    {
        return toFloat(fromFloat(toFloat(x) * scalar));
    }

    @Override
    void sum(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 2)
        {
            putShort(dst + i, fromFloat(toFloat(getShort(a + i)) + toFloat(getShort(b + i))));
        }
    }

    @Override
    void prod(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 2)
        {
            putShort(dst + i, fromFloat(toFloat(getShort(a + i)) * toFloat(getShort(b + i))));
        }
    }

    @Override
    void max(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 2)
        {
            putShort(dst + i, fromFloat(fmax(toFloat(getShort(a + i)), toFloat(getShort(b + i)))));
        }
    }

    @Override
    void min(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 2)
        {
            putShort(dst + i, fromFloat(fmin(toFloat(getShort(a + i)), toFloat(getShort(b + i)))));
        }
    }

    private static void premulSumOne(
        final long premultiplied, final long plain, final float scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 2)
        {
            putShort(dst + i, fromFloat(premul(getShort(premultiplied + i), scalar) + toFloat(getShort(plain + i))));
        }
    }

    private static void premulSumBoth(final long a, final long b, final float scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 2)
        {
            putShort(dst + i, fromFloat(premul(getShort(a + i), scalar) + premul(getShort(b + i), scalar)));
        }
    }

    private static void scale(final long src, final float scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i += 2)
        {
            putShort(dst + i, fromFloat(toFloat(getShort(src + i)) * scalar));
        }
    }
}
