package io.jccl.djl;

import ai.djl.ndarray.NDArray;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Copies bytes into an {@link NDArray}'s own memory. Not {@code NDArray.set(ByteBuffer)} with jccl's buffer: on
 * PyTorch's CPU engine that makes the tensor use the given direct buffer as its storage (the array then lives in
 * jccl's bucket, and dies with it; {@link GradientBuckets} does that on purpose, and moves such gradients out before
 * it frees the buckets). A contiguous CPU array's {@code toByteBuffer(true)} is a view of its memory,
 * written through here; anything else (a GPU array, an engine that hands out a copy) gets a private copy through
 * {@code set}.
 */
final class ArrayMemory
{
    private ArrayMemory()
    {
    }

    /**
     * @param target the array.
     * @param source exactly the array's bytes, from its position to its limit (left unchanged).
     * @param viaView try the array's memory view first (false where an earlier verified write found it was none).
     * @param verify read the array back afterwards (through a copy) and fall back to {@code set} if the write did not
     *               land: done once per array, since whether {@code toByteBuffer(true)} is a view does not change.
     * @return true if the bytes went through a view of the array's memory, false if through a private copy.
     */
    static boolean copyInto(final NDArray target, final ByteBuffer source, final boolean viaView,
        final boolean verify)
    {
        if (viaView && !target.getDevice().isGpu())
        {
            final ByteBuffer view = target.toByteBuffer(true);
            if (view.isDirect() && view.remaining() == source.remaining())
            {
                view.put(source.duplicate());
                if (!verify || target.toByteBuffer(false).equals(source))
                {
                    return true;
                }
            }
        }
        final ByteBuffer copy = ByteBuffer.allocateDirect(source.remaining()).order(ByteOrder.nativeOrder());
        copy.put(source.duplicate()).flip();
        target.set(copy);
        return false;
    }
}
