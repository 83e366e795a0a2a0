package io.jccl.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import ai.djl.nn.ParameterList;
import ai.djl.util.Pair;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.StableHash;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Makes the ranks' models agree before training: their parameter lists (names, shapes, element types, frozen or
 * not, in {@code block.getParameters()} order) are compared through an AllGather of one hash, and only when the
 * hashes differ through an AllGather of per-parameter hashes and then of the first differing parameter's
 * description, so that every rank fails naming it on each side; then one rank's values are broadcast to all.
 * Control path, run once: buffers here are allocated per call.
 */
final class ParameterAgreement
{
    /** Bytes of one rank's description of a parameter in the mismatch message (UTF-8, truncated). */
    static final int DESCRIPTION_LENGTH = 256;
    /** The most bytes one parameter broadcast moves in one call. */
    static final long BROADCAST_CHUNK_LENGTH = 64L << 20;
    private static final long HASH_PRIME = 0x100000001b3L;

    private ParameterAgreement()
    {
    }

    /**
     * @param name      the parameter's name in the block's list.
     * @param parameter the parameter (initialized).
     * @return its name, shape, element type, and whether it is frozen: what must agree across ranks.
     */
    static String describe(final String name, final Parameter parameter)
    {
        final NDArray array = parameter.getArray();
        return name + " " + array.getShape() + " " + array.getDataType() +
            (parameter.requiresGradient() ? "" : " frozen");
    }

    /**
     * Fails on every rank, naming the first parameter that differs on each rank, unless every rank's parameter list
     * is the same.
     *
     * @param communicator the ranks.
     * @param parameters   this rank's {@code block.getParameters()}.
     * @throws JcclInvalidUsageException if the lists differ.
     */
    static void checkSameParameters(final Communicator communicator, final ParameterList parameters)
    {
        final int count = parameters.size();
        final String[] descriptions = new String[count];
        final long[] hashes = new long[count];
        long whole = StableHash.OFFSET_BASIS;
        for (int i = 0; i < count; i++)
        {
            final Pair<String, Parameter> entry = parameters.get(i);
            requireInitialized(entry.getKey(), entry.getValue());
            descriptions[i] = describe(entry.getKey(), entry.getValue());
            hashes[i] = StableHash.of(descriptions[i]);
            whole = StableHash.mix(whole, descriptions[i]);
        }
        final int size = communicator.size();
        final long[] summaries = allGather(communicator, new long[] {count, whole});
        int most = 0;
        boolean same = true;
        for (int r = 0; r < size; r++)
        {
            most = Math.max(most, (int)summaries[2 * r]);
            same &= summaries[2 * r] == summaries[0] && summaries[2 * r + 1] == summaries[1];
        }
        if (same)
        {
            return;
        }
        // every rank saw the difference: all take the second round, padded to the longest list
        final long[] padded = new long[most];
        System.arraycopy(hashes, 0, padded, 0, count);
        final long[] all = allGather(communicator, padded);
        int first = 0;
        while (first < most && agree(all, most, size, first))
        {
            first++;
        }
        final String mine = first < count ? descriptions[first] : "no parameter #" + first + " (" + count +
            " parameters)";
        final String[] theirs = allGatherText(communicator, mine);
        final StringBuilder message = new StringBuilder("the ranks' models differ at parameter #").append(first)
            .append(" of block.getParameters():");
        for (int r = 0; r < size; r++)
        {
            message.append(r == 0 ? " " : "; ").append("rank ").append(r).append(" has ").append(theirs[r]);
        }
        throw new JcclInvalidUsageException(message.toString());
    }

    /**
     * Fails on every rank unless every rank's parameter values equal the root's (for a first batch reached without
     * a broadcast).
     *
     * @param communicator the ranks.
     * @param parameters   this rank's {@code block.getParameters()}.
     * @param root         the rank whose values count.
     * @param advice       what to do instead, for the message.
     * @throws JcclInvalidUsageException if some rank's values differ.
     */
    static void checkSameValues(final Communicator communicator, final ParameterList parameters, final int root,
        final String advice)
    {
        long hash = StableHash.OFFSET_BASIS;
        for (final Pair<String, Parameter> entry : parameters)
        {
            hash = mixValues(hash, entry.getValue().getArray().toByteBuffer(true));
        }
        final long[] all = allGather(communicator, new long[] {hash});
        final StringBuilder differing = new StringBuilder();
        for (int r = 0; r < all.length; r++)
        {
            if (all[r] != all[root])
            {
                differing.append(differing.length() == 0 ? "" : ", ").append(r);
            }
        }
        if (differing.length() > 0)
        {
            throw new JcclInvalidUsageException("at the first batch the parameters of rank(s) " + differing +
                " differ from rank " + root + "'s: " + advice);
        }
    }

    /**
     * Copies the root's parameter values to every rank, in chunks of whole parameters of at most
     * {@link #BROADCAST_CHUNK_LENGTH} bytes (one parameter larger than that goes alone).
     *
     * @param communicator the ranks.
     * @param parameters   this rank's {@code block.getParameters()}, the same list on every rank.
     * @param root         the rank whose values are sent.
     */
    static void broadcast(final Communicator communicator, final ParameterList parameters, final int root)
    {
        final int count = parameters.size();
        long largest = 0;
        long total = 0;
        for (int i = 0; i < count; i++)
        {
            final long length = byteLength(parameters.get(i).getValue().getArray());
            largest = Math.max(largest, length);
            total += length;
        }
        final HostBuffer staging = HostBuffer.allocate(Math.max(largest, Math.min(total, BROADCAST_CHUNK_LENGTH)));
        final ByteBuffer bytes = staging.byteBuffer().duplicate();
        final boolean sending = communicator.rank() == root;
        int first = 0;
        while (first < count)
        {
            int end = first;
            long used = 0;
            while (end < count && (end == first ||
                used + byteLength(parameters.get(end).getValue().getArray()) <= staging.length()))
            {
                final NDArray array = parameters.get(end).getValue().getArray();
                if (sending)
                {
                    bytes.clear().position((int)used);
                    bytes.put(array.toByteBuffer(true));
                }
                used += byteLength(array);
                end++;
            }
            final HostBuffer chunk = staging.slice(0, used);
            communicator.broadcast(chunk, chunk, used, DataType.UINT8, root);
            if (!sending)
            {
                long offset = 0;
                for (int i = first; i < end; i++)
                {
                    final NDArray array = parameters.get(i).getValue().getArray();
                    final int length = (int)byteLength(array);
                    ArrayMemory.copyInto(array, bytes.slice((int)offset, length), true, true);
                    offset += length;
                }
            }
            first = end;
        }
    }

    private static void requireInitialized(final String name, final Parameter parameter)
    {
        if (!parameter.isInitialized())
        {
            throw new JcclInvalidUsageException("parameter " + name + " is not initialized: call " +
                "trainer.initialize(inputShapes) before the parameters are compared or broadcast");
        }
    }

    private static long byteLength(final NDArray array)
    {
        final long length = array.size() * array.getDataType().getNumOfBytes();
        if (length > Integer.MAX_VALUE - 2L * HostBuffer.ALIGNMENT)
        {
            throw new JcclInvalidArgumentException("a parameter of " + length + " bytes exceeds one host buffer");
        }
        return length;
    }

    private static boolean agree(final long[] all, final int stride, final int size, final int index)
    {
        for (int r = 1; r < size; r++)
        {
            if (all[r * stride + index] != all[index])
            {
                return false;
            }
        }
        return true;
    }

    private static long mixValues(final long hash, final ByteBuffer values)
    {
        final ByteBuffer v = values.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long h = hash;
        while (v.remaining() >= Long.BYTES)
        {
            h = (h ^ v.getLong()) * HASH_PRIME;
        }
        while (v.hasRemaining())
        {
            h = (h ^ v.get()) * HASH_PRIME;
        }
        return h;
    }

    private static long[] allGather(final Communicator communicator, final long[] mine)
    {
        final int size = communicator.size();
        final HostBuffer send = HostBuffer.allocate((long)mine.length * Long.BYTES);
        final HostBuffer recv = HostBuffer.allocate((long)mine.length * Long.BYTES * size);
        final ByteBuffer in = send.byteBuffer();
        for (int i = 0; i < mine.length; i++)
        {
            in.putLong(i * Long.BYTES, mine[i]);
        }
        communicator.allGather(send, recv, mine.length, DataType.INT64);
        final long[] all = new long[mine.length * size];
        final ByteBuffer out = recv.byteBuffer();
        for (int i = 0; i < all.length; i++)
        {
            all[i] = out.getLong(i * Long.BYTES);
        }
        return all;
    }

    private static String[] allGatherText(final Communicator communicator, final String mine)
    {
        final int size = communicator.size();
        final HostBuffer send = HostBuffer.allocate(DESCRIPTION_LENGTH);
        final HostBuffer recv = HostBuffer.allocate((long)DESCRIPTION_LENGTH * size);
        final byte[] utf8 = mine.getBytes(StandardCharsets.UTF_8);
        send.byteBuffer().duplicate().put(utf8, 0, Math.min(utf8.length, DESCRIPTION_LENGTH));
        communicator.allGather(send, recv, DESCRIPTION_LENGTH, DataType.UINT8);
        final String[] all = new String[size];
        final byte[] one = new byte[DESCRIPTION_LENGTH];
        for (int r = 0; r < size; r++)
        {
            recv.byteBuffer().duplicate().position(r * DESCRIPTION_LENGTH).get(one);
            int length = 0;
            while (length < one.length && one[length] != 0)
            {
                length++;
            }
            all[r] = new String(one, 0, length, StandardCharsets.UTF_8);
        }
        return all;
    }
}
