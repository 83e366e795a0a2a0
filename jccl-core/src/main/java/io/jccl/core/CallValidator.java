package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;
import io.jccl.MemoryKind;
import io.jccl.ReduceOp;
import io.jccl.Stream;

/**
 * Checks a call's arguments on the caller's thread, before anything is queued or sent, with NCCL's count
 * semantics and in-place rules; every message names the argument.
 */
final class CallValidator
{
    private CallValidator()
    {
    }

    static void validate(final Collective collective, final Buffer send, final Buffer recv, final long count,
        final DataType type, final ReduceOp op, final int root, final Stream stream, final int rank,
        final int size, final Integer cudaDevice)
    {
        final String countName = switch (collective)
        {
            case ALL_GATHER -> "sendCount";
            case REDUCE_SCATTER -> "recvCount";
            default -> "count";
        };
        if (type == null)
        {
            throw new JcclInvalidArgumentException("type is null (" + Names.of(collective) + ")");
        }
        if (collective.isReducing() && op == null)
        {
            throw new JcclInvalidArgumentException("op is null (" + Names.of(collective) + ")");
        }
        if (stream == null)
        {
            throw new JcclInvalidArgumentException("stream is null (" + Names.of(collective) + ")");
        }
        if (count < 0)
        {
            throw new JcclInvalidArgumentException(countName + "=" + count + " is negative (" +
                Names.of(collective) + ")");
        }
        if (collective.isRooted() && (root < 0 || root >= size))
        {
            throw new JcclInvalidArgumentException("root=" + root + " is outside 0.." + (size - 1) + " (" +
                Names.of(collective) + ")");
        }
        final long perRankBytes = multiply(count, type.byteSize(), countName, "", collective);
        final long wholeBytes = multiply(perRankBytes, size, countName, " x ranks", collective);
        final long sendBytes = collective.inputCount(count, size) == count ? perRankBytes : wholeBytes;
        final long recvBytes = collective.outputCount(count, size) == count ? perRankBytes : wholeBytes;
        final boolean needSend = collective != Collective.BROADCAST || rank == root;
        final boolean needRecv = collective != Collective.REDUCE || rank == root;
        if (count == 0)
        {
            return;
        }
        if (needSend)
        {
            checkBuffer(send, "send", sendBytes, collective, count, type, cudaDevice);
        }
        if (needRecv)
        {
            checkBuffer(recv, "recv", recvBytes, collective, count, type, cudaDevice);
        }
        if (needSend && needRecv)
        {
            if (send.memoryKind() != recv.memoryKind())
            {
                throw new JcclInvalidArgumentException("send is " + send.memoryKind() + " memory and recv is " +
                    recv.memoryKind() + " (" + Names.of(collective) + ")");
            }
            checkOverlap(collective, send, recv, sendBytes, recvBytes, count, type, rank);
        }
    }

    /**
     * Checks one send or receive: {@code count} elements from element {@code offset} of {@code buffer}, to or from
     * {@code peer}. Every message names the argument and the call.
     *
     * @param call       the call's name, for messages ({@code send}, {@code gather}, ...).
     * @param index      the peer whose counts and displacements give the range (allToAllv), or -1.
     * @param name       the buffer argument's name.
     * @param peerName   the peer argument's name.
     * @param cudaDevice the rank's CUDA device, or null on the host backend.
     */
    static void validateP2p(final String call, final int index, final Buffer buffer, final String name,
        final long offset, final long count, final DataType type, final int peer, final String peerName,
        final int size, final Integer cudaDevice)
    {
        if (cudaDevice != null)
        {
            throw new JcclInvalidUsageException(label(call, name, index) + " moves host memory only for now, and " +
                "this rank runs on CUDA " +
                "device " + cudaDevice);
        }
        if (type == null)
        {
            throw new JcclInvalidArgumentException("type is null (" + label(call, name, index) + ")");
        }
        if (count < 0 || offset < 0)
        {
            throw new JcclInvalidArgumentException((count < 0 ? "count=" + count : name + " offset=" + offset) +
                " is negative (" + label(call, name, index) + ")");
        }
        if (peer < 0 || peer >= size)
        {
            throw new JcclInvalidArgumentException(peerName + "=" + peer + " is outside 0.." + (size - 1) + " (" +
                label(call, name, index) + ")");
        }
        if (count == 0)
        {
            return;
        }
        if (buffer == null)
        {
            throw new JcclInvalidArgumentException(name + " is null (" + label(call, name, index) + " of " + count +
                " elements)");
        }
        if (buffer.memoryKind() != MemoryKind.HOST)
        {
            throw new JcclInvalidArgumentException(name + " is " + buffer.memoryKind() + " memory, but " +
                label(call, name, index) +
                " moves host memory only for now");
        }
        final long elements = offset + count;
        final long end = multiply(elements < 0 ? Long.MAX_VALUE : elements, type.byteSize(), "count", " + offset",
            call);
        if (buffer.length() < end)
        {
            throw new JcclInvalidArgumentException(name + " holds " + buffer.length() + " bytes; " +
                label(call, name, index) + " of " +
                count + " " + type.ncclTestsName() + (offset == 0 ? "" : " from element " + offset) + " needs " + end);
        }
    }

    /** @return the call's name for a message, with the per-peer arrays that named the range where there are any. */
    private static String label(final String call, final String name, final int index)
    {
        return index < 0 ? call : call + " (" + name + "Counts[" + index + "], " + name + "Displs[" + index + "])";
    }

    /**
     * @return true when the call is in place as NCCL defines it: send is recv's slice {@code rank} (AllGather), recv
     *         is send's slice {@code rank} (ReduceScatter), or both start at one address (the others).
     */
    static boolean isInPlace(final Collective collective, final Buffer send, final Buffer recv, final long count,
        final DataType type, final int rank)
    {
        if (send == null || recv == null || send.memoryKind() != recv.memoryKind())
        {
            return false;
        }
        final long s = LocalCommunicator.address(send);
        final long r = LocalCommunicator.address(recv);
        final long slice = rank * count * type.byteSize();
        return switch (collective)
        {
            case ALL_GATHER -> s == r + slice;
            case REDUCE_SCATTER -> r == s + slice;
            default -> s == r;
        };
    }

    /** The name is {@code name + suffix}, concatenated only for the error: validation allocates nothing. */
    private static long multiply(final long a, final long b, final String name, final String suffix,
        final Collective collective)
    {
        return multiply(a, b, name, suffix, Names.of(collective));
    }

    private static long multiply(final long a, final long b, final String name, final String suffix,
        final String call)
    {
        try
        {
            return Math.multiplyExact(a, b);
        }
        catch (final ArithmeticException ex)
        {
            throw new JcclInvalidArgumentException(name + suffix + " in bytes overflows a long (" + a + " x " + b + ", " +
                call + ")");
        }
    }

    private static void checkBuffer(final Buffer buffer, final String name, final long bytes,
        final Collective collective, final long count, final DataType type, final Integer cudaDevice)
    {
        if (buffer == null)
        {
            throw new JcclInvalidArgumentException(name + " is null (" + Names.of(collective) + ")");
        }
        if (cudaDevice == null && buffer.memoryKind() != MemoryKind.HOST)
        {
            throw new JcclInvalidArgumentException(name + " is " + buffer.memoryKind() + " memory, but this " +
                "communicator runs on the host backend (" + Names.of(collective) + ")");
        }
        if (cudaDevice != null && !(buffer instanceof io.jccl.DeviceBuffer device && device.device() == cudaDevice))
        {
            throw new JcclInvalidArgumentException(name + " is " + buffer + ", but this rank runs on CUDA device " +
                cudaDevice + ": pass a DeviceBuffer of that device (" + Names.of(collective) + ")");
        }
        if (buffer.length() < bytes)
        {
            throw new JcclInvalidArgumentException(name + " holds " + buffer.length() + " bytes; " +
                Names.of(collective) + " of count " + count + " " + type.ncclTestsName() + " needs " + bytes);
        }
    }

    /**
     * In place as NCCL defines it: AllReduce, Broadcast and Reduce when send and recv start at one address;
     * AllGather when send is slice {@code rank} of recv; ReduceScatter when recv is slice {@code rank} of send. Any
     * other overlap is refused.
     */
    private static void checkOverlap(final Collective collective, final Buffer send, final Buffer recv,
        final long sendBytes, final long recvBytes, final long count, final DataType type, final int rank)
    {
        final long s = LocalCommunicator.address(send);
        final long r = LocalCommunicator.address(recv);
        if (s + sendBytes <= r || r + recvBytes <= s)
        {
            return;
        }
        if (!isInPlace(collective, send, recv, count, type, rank))
        {
            throw new JcclInvalidArgumentException("send and recv overlap partially (" + Names.of(collective) +
                "): in place means " + switch (collective)
                {
                    case ALL_GATHER -> "send is slice rank of recv";
                    case REDUCE_SCATTER -> "recv is slice rank of send";
                    default -> "send and recv are the same memory";
                });
        }
    }
}
