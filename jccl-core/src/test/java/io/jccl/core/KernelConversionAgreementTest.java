package io.jccl.core;

import io.jccl.DataType;
import io.jccl.kernels.BFloat16;
import io.jccl.kernels.Float16;
import io.jccl.kernels.Float8E4M3;
import io.jccl.kernels.Float8E5M2;
import io.jccl.testkit.NarrowFloat;
import io.jccl.testkit.ReferenceArithmetic;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The reference model's own conversions agree with jccl-kernels' (which the runtime uses), so a grid failure on a
 * narrow type is never a disagreement about conversions alone. NaNs agree when both sides are NaN.
 */
class KernelConversionAgreementTest
{
    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void shouldDecodeEveryEncodingAlikeWhenKernelConverts(final DataType type)
    {
        for (int bits = 0; bits < (1 << (8 * type.byteSize())); bits++)
        {
            final float reference = NarrowFloat.of(type).toFloat(bits);
            final float kernel = kernelToFloat(type, bits);
            if (!(Float.isNaN(reference) && Float.isNaN(kernel)))
            {
                final int b = bits;
                assertEquals(Float.floatToRawIntBits(reference), Float.floatToRawIntBits(kernel),
                    () -> type + " toFloat(0x" + Integer.toHexString(b) + ")");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"FLOAT16", "BFLOAT16", "FLOAT8_E4M3", "FLOAT8_E5M2"})
    void shouldRoundAlikeWhenKernelConverts(final DataType type)
    {
        final StringBuilder failures = new StringBuilder();
        int count = 0;
        // ties, and the floats next to them, between every pair of neighbouring finite encodings
        final NarrowFloat format = NarrowFloat.of(type);
        for (int bits = 0; bits < format.maxFiniteBits(); bits++)
        {
            final double low = format.toDouble(bits);
            final float middle = (float)((low + format.toDouble(bits + 1)) / 2);
            for (final float value : new float[]{middle, Math.nextUp(middle), Math.nextDown(middle), (float)low})
            {
                count += compare(type, value, failures);
                count += compare(type, -value, failures);
            }
        }
        // beyond the largest finite value, the specials, and random floats of every exponent
        final float max = (float)format.maxFinite();
        for (final float value : new float[]{max * 1.03f, max * 1.07f, max * 2, Float.MAX_VALUE,
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 0f, -0f, Float.MIN_VALUE, Float.MIN_NORMAL})
        {
            count += compare(type, value, failures);
            count += compare(type, -value, failures);
        }
        final SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 1_000_000; i++)
        {
            count += compare(type, Float.intBitsToFloat(random.nextInt()), failures);
        }
        if (count > 0)
        {
            fail(type + ": " + count + " floats round differently (reference vs kernels):" + failures);
        }
    }

    private static int compare(final DataType type, final float value, final StringBuilder failures)
    {
        final long reference = NarrowFloat.of(type).fromFloat(value);
        final long kernel = kernelFromFloat(type, value);
        if (reference == kernel || (ReferenceArithmetic.isNaN(type, reference) &&
            ReferenceArithmetic.isNaN(type, kernel)))
        {
            return 0;
        }
        if (failures.length() < 2000)
        {
            failures.append("\n  fromFloat(").append(value).append(" = 0x")
                .append(Integer.toHexString(Float.floatToRawIntBits(value))).append("): reference 0x")
                .append(Long.toHexString(reference)).append(", kernels 0x").append(Long.toHexString(kernel));
        }
        return 1;
    }

    private static float kernelToFloat(final DataType type, final int bits)
    {
        switch (type)
        {
            case FLOAT16:
                return Float16.toFloat((short)bits);
            case BFLOAT16:
                return BFloat16.toFloat((short)bits);
            case FLOAT8_E4M3:
                return Float8E4M3.toFloat((byte)bits);
            default:
                return Float8E5M2.toFloat((byte)bits);
        }
    }

    private static long kernelFromFloat(final DataType type, final float value)
    {
        switch (type)
        {
            case FLOAT16:
                return Float16.fromFloat(value) & 0xffffL;
            case BFLOAT16:
                return BFloat16.fromFloat(value) & 0xffffL;
            case FLOAT8_E4M3:
                return Float8E4M3.fromFloat(value) & 0xffL;
            default:
                return Float8E5M2.fromFloat(value) & 0xffL;
        }
    }
}
