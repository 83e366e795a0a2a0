package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Stream;
import io.jccl.Work;

/**
 * A rank's point-to-point calls ({@code ncclSend}, {@code ncclRecv}) and the collectives made of them (all-to-all
 * with a count per peer, gather, scatter), each of those one group of sends and receives. Every argument is checked
 * before the first send or receive is held, so a bad argument leaves nothing half issued.
 */
final class PointToPoint
{
    private PointToPoint()
    {
    }

    static Work send(final LocalCommunicator rank, final Buffer buffer, final long count, final DataType type,
        final int peer, final Stream stream)
    {
        return single(rank, P2pOps.SEND, "send", buffer, count, type, peer, stream);
    }

    static Work recv(final LocalCommunicator rank, final Buffer buffer, final long count, final DataType type,
        final int peer, final Stream stream)
    {
        return single(rank, P2pOps.RECV, "recv", buffer, count, type, peer, stream);
    }

    private static Work single(final LocalCommunicator rank, final byte kind, final String call, final Buffer buffer,
        final long count, final DataType type, final int peer, final Stream stream)
    {
        checkStream(stream, call);
        CallValidator.validateP2p(call, -1, buffer, "buffer", 0, count, type, peer, "peer", rank.size(),
            device(rank));
        return issue(rank, kind, buffer, 0, count, type, peer, stream);
    }

    static Work allToAllv(final LocalCommunicator rank, final Buffer send, final long[] sendCounts,
        final long[] sendDispls, final Buffer recv, final long[] recvCounts, final long[] recvDispls,
        final DataType type, final Stream stream)
    {
        final int size = rank.size();
        checkStream(stream, "allToAllv");
        checkLength(sendCounts, "sendCounts", size);
        checkLength(sendDispls, "sendDispls", size);
        checkLength(recvCounts, "recvCounts", size);
        checkLength(recvDispls, "recvDispls", size);
        for (int peer = 0; peer < size; peer++)
        {
            CallValidator.validateP2p("allToAllv", peer, send, "send", sendDispls[peer], sendCounts[peer], type, peer,
                "peer", size, device(rank));
            CallValidator.validateP2p("allToAllv", peer, recv, "recv", recvDispls[peer], recvCounts[peer], type, peer,
                "peer", size, device(rank));
        }
        if (sendCounts[rank.rank()] != recvCounts[rank.rank()])
        {
            throw new JcclInvalidArgumentException("sendCounts[" + rank.rank() + "]=" + sendCounts[rank.rank()] +
                " differs from recvCounts[" + rank.rank() + "]=" + recvCounts[rank.rank()] + " (allToAllv: what rank " +
                rank.rank() + " sends itself)");
        }
        Jccl.groupStart();
        Work work = null;
        try
        {
            // from the next rank on, so that the ranks' first sends go to different peers
            for (int i = 0; i < size; i++)
            {
                final int peer = (rank.rank() + i) % size;
                work = issue(rank, P2pOps.SEND, send, sendDispls[peer], sendCounts[peer], type, peer, stream);
                final int from = (rank.rank() - i + size) % size;
                work = issue(rank, P2pOps.RECV, recv, recvDispls[from], recvCounts[from], type, from, stream);
            }
        }
        finally
        {
            Jccl.groupEnd();
        }
        return work;
    }

    static Work gather(final LocalCommunicator rank, final Buffer send, final Buffer recv, final long count,
        final DataType type, final int root, final Stream stream)
    {
        return rooted(rank, "gather", P2pOps.SEND, send, "send", recv, "recv", count, type, root, stream);
    }

    static Work scatter(final LocalCommunicator rank, final Buffer send, final Buffer recv, final long count,
        final DataType type, final int root, final Stream stream)
    {
        return rooted(rank, "scatter", P2pOps.RECV, recv, "recv", send, "send", count, type, root, stream);
    }

    /**
     * Gather ({@code mineKind} SEND: every rank sends {@code mine} to the root, which receives rank r's into block r
     * of {@code all}) or scatter (RECV: the root sends block r of {@code all} to rank r, which receives it into
     * {@code mine}), as one group.
     */
    private static Work rooted(final LocalCommunicator rank, final String call, final byte mineKind,
        final Buffer mine, final String mineName, final Buffer all, final String allName, final long count,
        final DataType type, final int root, final Stream stream)
    {
        final int size = rank.size();
        checkStream(stream, call);
        CallValidator.validateP2p(call, -1, mine, mineName, 0, count, type, root, "root", size, device(rank));
        if (rank.rank() == root)
        {
            CallValidator.validateP2p(call, -1, all, allName, Math.multiplyExact(count, size - 1L), count, type,
                root, "root", size, device(rank));
        }
        final byte allKind = mineKind == P2pOps.SEND ? P2pOps.RECV : P2pOps.SEND;
        Jccl.groupStart();
        Work work;
        try
        {
            work = issue(rank, mineKind, mine, 0, count, type, root, stream);
            if (rank.rank() == root)
            {
                for (int peer = 0; peer < size; peer++)
                {
                    work = issue(rank, allKind, all, peer * count, count, type, peer, stream);
                }
            }
        }
        finally
        {
            Jccl.groupEnd();
        }
        return work;
    }

    /**
     * Adds a checked send or receive to the rank's point-to-point call of the thread's group, or submits it as a call
     * of its own outside a group.
     */
    private static Work issue(final LocalCommunicator rank, final byte kind, final Buffer buffer, final long offset,
        final long count, final DataType type, final int peer, final Stream stream)
    {
        rank.checkUsable();
        final long address = count == 0 ? 0 : LocalCommunicator.address(buffer) + offset * type.byteSize();
        final Call held = Group.heldP2p(rank, stream);
        if (held != null)
        {
            held.p2p.add(kind, peer, address, count, type);
            return held;
        }
        final P2pOps ops = new P2pOps();
        ops.add(kind, peer, address, count, type);
        ops.checkSelf(rank.rank());
        final Call call = new Call(rank, ops, stream);
        rank.submit(call);
        return call;
    }

    /** @return the rank's CUDA device, or null on the host backend. */
    private static Integer device(final LocalCommunicator rank)
    {
        final int device = rank.cudaDevice();
        return device < 0 ? null : device;
    }

    private static void checkStream(final Stream stream, final String call)
    {
        if (stream == null)
        {
            throw new JcclInvalidArgumentException("stream is null (" + call + ")");
        }
    }

    private static void checkLength(final long[] values, final String name, final int size)
    {
        if (values == null || values.length != size)
        {
            throw new JcclInvalidArgumentException(name + " has " + (values == null ? "no" : values.length) +
                " entries; allToAllv needs one per rank (" + size + ")");
        }
    }
}
