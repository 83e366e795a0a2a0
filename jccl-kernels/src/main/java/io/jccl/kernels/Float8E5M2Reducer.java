package io.jccl.kernels;

import io.jccl.DataType;
import io.jccl.ReduceOp;

import static io.jccl.kernels.Float8E5M2.fromFloat;
import static io.jccl.kernels.Float8E5M2.toFloat;
import static org.agrona.UnsafeApi.getByte;
import static org.agrona.UnsafeApi.putByte;

/**
 * FLOAT8_E5M2: each operand widened to float, each operation rounded back to E5M2 (saturating), so a
 * pre-multiplied sum rounds twice per operand. The four narrow floating reducers are one template
 * ({@code Float16Reducer}) specialised by the storage width and the static imports of their conversions; keep them
 * identical otherwise.
 */
final class Float8E5M2Reducer extends HostReducer
{
    private final float scalar;

    Float8E5M2Reducer(final ReduceOp.Kind kind, final byte scalar)
    {
        super(DataType.FLOAT8_E5M2, kind);
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

    private static float premul(final byte x, final float scalar)
    {
        return toFloat(fromFloat(toFloat(x) * scalar));
    }

    @Override
    void sum(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i++)
        {
            putByte(dst + i, fromFloat(toFloat(getByte(a + i)) + toFloat(getByte(b + i))));
        }
    }

    @Override
    void prod(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i++)
        {
            putByte(dst + i, fromFloat(toFloat(getByte(a + i)) * toFloat(getByte(b + i))));
        }
    }

    @Override
    void max(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i++)
        {
            putByte(dst + i, fromFloat(fmax(toFloat(getByte(a + i)), toFloat(getByte(b + i)))));
        }
    }

    @Override
    void min(final long a, final long b, final long dst, final long length)
    {
        for (long i = 0; i < length; i++)
        {
            putByte(dst + i, fromFloat(fmin(toFloat(getByte(a + i)), toFloat(getByte(b + i)))));
        }
    }

    private static void premulSumOne(
        final long premultiplied, final long plain, final float scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i++)
        {
            putByte(dst + i, fromFloat(premul(getByte(premultiplied + i), scalar) + toFloat(getByte(plain + i))));
        }
    }

    private static void premulSumBoth(final long a, final long b, final float scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i++)
        {
            putByte(dst + i, fromFloat(premul(getByte(a + i), scalar) + premul(getByte(b + i), scalar)));
        }
    }

    private static void scale(final long src, final float scalar, final long dst, final long length)
    {
        for (long i = 0; i < length; i++)
        {
            putByte(dst + i, fromFloat(toFloat(getByte(src + i)) * scalar));
        }
    }
}
