package io.jccl.core;

import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclInvalidUsageException;

import java.util.Arrays;

/**
 * The sends and receives of one rank's point-to-point call, in the order they were issued: one call outside a group,
 * every send and receive of the rank inside one ({@code ncclGroupStart}/{@code ncclGroupEnd}). Written by the
 * issuing thread until the call is submitted, then read by the thread that runs it.
 */
final class P2pOps
{
    static final byte SEND = 0;
    static final byte RECV = 1;
    /** Ops named in a call's description; the rest are counted. */
    private static final int DESCRIBED = 4;

    private int size;
    private byte[] kind = new byte[4];
    private int[] peer = new int[4];
    private long[] address = new long[4];
    private long[] count = new long[4];
    private DataType[] type = new DataType[4];

    void add(final byte kind, final int peer, final long address, final long count, final DataType type)
    {
        if (size == this.kind.length)
        {
            final int length = size * 2;
            this.kind = Arrays.copyOf(this.kind, length);
            this.peer = Arrays.copyOf(this.peer, length);
            this.address = Arrays.copyOf(this.address, length);
            this.count = Arrays.copyOf(this.count, length);
            this.type = Arrays.copyOf(this.type, length);
        }
        this.kind[size] = kind;
        this.peer[size] = peer;
        this.address[size] = address;
        this.count[size] = count;
        this.type[size] = type;
        size++;
    }

    int size()
    {
        return size;
    }

    byte kind(final int op)
    {
        return kind[op];
    }

    int peer(final int op)
    {
        return peer[op];
    }

    long address(final int op)
    {
        return address[op];
    }

    long count(final int op)
    {
        return count[op];
    }

    DataType type(final int op)
    {
        return type[op];
    }

    long bytes(final int op)
    {
        return count[op] * type[op].byteSize();
    }

    /**
     * Checks that this rank's sends to itself and receives from itself pair up, the k-th send with the k-th
     * receive, with one count and type: they never leave the rank, so they must meet in this call.
     *
     * @param rank the rank issuing the ops.
     * @throws JcclInvalidUsageException    where one has no partner in the call.
     * @throws JcclInvalidArgumentException where partners differ in count or type.
     */
    void checkSelf(final int rank)
    {
        int send = next(SEND, rank, 0);
        int recv = next(RECV, rank, 0);
        while (send < size && recv < size)
        {
            if (count[send] != count[recv] || type[send] != type[recv])
            {
                throw new JcclInvalidArgumentException("rank " + rank + "'s " + describe(send) + " meets its " +
                    describe(recv) + ": a send and its receive must have the same count and type");
            }
            send = next(SEND, rank, send + 1);
            recv = next(RECV, rank, recv + 1);
        }
        final int unmatched = Math.min(send, recv);
        if (unmatched < size)
        {
            throw new JcclInvalidUsageException("rank " + rank + "'s " + describe(unmatched) + " has no " +
                (kind[unmatched] == SEND ? "receive from" : "send to") + " itself in the same call: a rank's data " +
                "to itself pairs within one group (groupStart, send and recv, groupEnd)");
        }
    }

    /** @return the first op from {@code from} on of a kind with a peer, or {@link #size()}. */
    int next(final byte kind, final int peer, final int from)
    {
        int op = from;
        while (op < size && (this.kind[op] != kind || this.peer[op] != peer))
        {
            op++;
        }
        return op;
    }

    /** @return {@code send of 16 float to rank 2}. */
    String describe(final int op)
    {
        return (kind[op] == SEND ? "send of " : "recv of ") + count[op] + ' ' + type[op].ncclTestsName() +
            (kind[op] == SEND ? " to rank " : " from rank ") + peer[op];
    }

    /** @return the ops, the first few named: {@code send of 16 float to rank 1, recv of 16 float from rank 3}. */
    String describe()
    {
        final StringBuilder b = new StringBuilder();
        for (int op = 0; op < Math.min(size, DESCRIBED); op++)
        {
            b.append(op == 0 ? "" : ", ").append(describe(op));
        }
        return size > DESCRIBED ? b.append(" and ").append(size - DESCRIBED).append(" more").toString() :
            b.toString();
    }
}
