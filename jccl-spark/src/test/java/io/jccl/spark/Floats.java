package io.jccl.spark;

import io.jccl.HostBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

/**
 * Float arrays to and from jccl's host buffers and the testkit's native-order byte buffers, for the tests and the
 * examples of this module. Stateless.
 */
final class Floats
{
    private Floats()
    {
    }

    /**
     * @param values the elements.
     * @return a new host buffer holding them.
     */
    static HostBuffer buffer(final float[] values)
    {
        final HostBuffer buffer = HostBuffer.allocate(4L * values.length);
        buffer.byteBuffer().asFloatBuffer().put(values);
        return buffer;
    }

    /**
     * @param buffer a host buffer of floats from {@link #buffer(float[])} or {@link HostBuffer#allocate(long)}.
     * @return its elements.
     */
    static float[] array(final HostBuffer buffer)
    {
        final float[] values = new float[(int)(buffer.length() / 4)];
        buffer.byteBuffer().asFloatBuffer().get(values);
        return values;
    }

    /**
     * @param values the elements.
     * @return a heap buffer in native order, as the testkit's references take.
     */
    static ByteBuffer bytes(final float[] values)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(4 * values.length).order(ByteOrder.nativeOrder());
        bytes.asFloatBuffer().put(values);
        return bytes;
    }

    /**
     * @param bytes a native-order buffer of floats from position 0.
     * @return its elements.
     */
    static float[] array(final ByteBuffer bytes)
    {
        final float[] values = new float[bytes.capacity() / 4];
        bytes.duplicate().order(ByteOrder.nativeOrder()).position(0).asFloatBuffer().get(values);
        return values;
    }

    /**
     * @param count elements.
     * @param seed  the generator's seed.
     * @return normally distributed floats, a pure function of the seed.
     */
    static float[] random(final int count, final long seed)
    {
        final Random random = new Random(seed);
        final float[] values = new float[count];
        for (int i = 0; i < count; i++)
        {
            values[i] = (float)random.nextGaussian();
        }
        return values;
    }
}
