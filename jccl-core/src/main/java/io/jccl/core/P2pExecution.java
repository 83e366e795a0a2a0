package io.jccl.core;

import io.jccl.DataType;
import io.jccl.JcclRemoteException;
import io.jccl.JcclTimeoutException;
import io.jccl.Plan;
import io.jccl.Protocol;
import io.jccl.TransportKind;
import io.jccl.kernels.HostReducer;
import io.jccl.transport.Connections;
import io.jccl.transport.RecvConnector;
import io.jccl.transport.SendConnector;

import java.util.Arrays;

/**
 * The executor of one rank's point-to-point calls ({@link P2pOps}): every send and receive of a call progresses
 * together, each as a state machine that moves what its connector allows and never waits (DESIGN.md, "Execution
 * model: steps never block"). Sends and receives between a pair of ranks travel on connectors of their own
 * ({@link #CHANNEL}, beyond every collective's channels), so they keep their order whatever collectives run between
 * them, and the k-th send from a to b meets the k-th receive at b from a.
 * <p>
 * Every slot's header carries, where a collective's carries its call number, shape and plan: the op's number among
 * the sends from a to b, the element type, and the count, so a receive checks that it meets its own send and names
 * both sides when the counts or types differ. A send of 0 elements publishes one empty slot, so it still meets its
 * receive. Sends publish their data in place where the receiver can read it (P2P with SIMPLE), else stage it in
 * slots of the connector's size or the pinned chunk, whichever is smaller. A rank's sends to itself are copied to
 * their receives when the call is bound.
 * <p>
 * Made once per rank and rebound for every point-to-point call; the hot path allocates nothing.
 */
final class P2pExecution implements Execution
{
    /** The channel of point-to-point connectors: past every channel a collective or a schedule may use. */
    static final int CHANNEL = 2 * Plan.MAX_CHANNELS;
    /** The shape field of a point-to-point slot: this base plus the element type's id. */
    private static final long SHAPE_BASE = 0x5032_5000_0000L;

    private final int rank;
    private final Connections transport;
    private final int pinnedChunk;
    private final SendConnector[] senders;
    private final RecvConnector[] receivers;
    /** Sends to each peer and receives from each peer bound so far: the next op's number on that pair. */
    private final long[] sent;
    private final long[] received;
    /** While a call binds: per peer, its latest send and receive so far, -1 for none (all -1 between calls). */
    private final int[] lastSend;
    private final int[] lastRecv;

    private Call call;
    private P2pOps ops;
    private int remaining;
    /** Per op: bytes moved, whether a slot moved (an op of 0 bytes moves one), its number, the op it follows. */
    private long[] moved = new long[0];
    private boolean[] started = new boolean[0];
    private long[] number = new long[0];
    private int[] after = new int[0];
    private boolean[] done = new boolean[0];
    private long slots;
    private long staged;
    private long direct;

    /**
     * @param rank      the rank.
     * @param size      the communicator's rank count.
     * @param transport the communicator's connections.
     * @param chunk     the pinned chunk in bytes, or 0 for the connector's slot size.
     */
    P2pExecution(final int rank, final int size, final Connections transport, final int chunk)
    {
        this.rank = rank;
        this.transport = transport;
        this.pinnedChunk = chunk;
        this.senders = new SendConnector[size];
        this.receivers = new RecvConnector[size];
        this.sent = new long[size];
        this.received = new long[size];
        this.lastSend = new int[size];
        this.lastRecv = new int[size];
        Arrays.fill(lastSend, -1);
        Arrays.fill(lastRecv, -1);
    }

    /**
     * Binds a point-to-point call: numbers its ops on their pairs and copies its sends to this rank itself.
     *
     * @param call the call, its ops checked ({@link P2pOps#checkSelf}).
     */
    void bind(final Call call)
    {
        this.call = call;
        this.ops = call.p2p;
        final int n = ops.size();
        if (moved.length < n)
        {
            moved = new long[n];
            started = new boolean[n];
            number = new long[n];
            after = new int[n];
            done = new boolean[n];
        }
        Arrays.fill(moved, 0, n, 0);
        Arrays.fill(started, 0, n, false);
        Arrays.fill(done, 0, n, false);
        slots = 0;
        staged = 0;
        direct = 0;
        remaining = n;
        for (int op = 0; op < n; op++)
        {
            final int peer = ops.peer(op);
            final int[] last = ops.kind(op) == P2pOps.SEND ? lastSend : lastRecv;
            number[op] = ops.kind(op) == P2pOps.SEND ? sent[peer]++ : received[peer]++;
            after[op] = last[peer];
            last[peer] = op;
        }
        for (int op = 0; op < n; op++)
        {
            // back to "none" for the next call, touching only the peers this one named
            lastSend[ops.peer(op)] = -1;
            lastRecv[ops.peer(op)] = -1;
        }
        copyToSelf(n);
    }

    /** The k-th send to this rank itself lands in the k-th receive from it ({@link P2pOps#checkSelf} paired them). */
    private void copyToSelf(final int n)
    {
        int send = ops.next(P2pOps.SEND, rank, 0);
        int recv = ops.next(P2pOps.RECV, rank, 0);
        while (send < n && recv < n)
        {
            final long bytes = ops.bytes(send);
            if (bytes > 0 && ops.address(send) != ops.address(recv))
            {
                org.agrona.UnsafeApi.copyMemory(ops.address(send), ops.address(recv), bytes);
            }
            finish(send);
            finish(recv);
            send = ops.next(P2pOps.SEND, rank, send + 1);
            recv = ops.next(P2pOps.RECV, rank, recv + 1);
        }
    }

    @Override
    public void bind(final Call call, final HostReducer reducer, final boolean premulInput, final long inputAddress,
        final long outputAddress, final long scratchAddress, final long inputElements, final long outputElements,
        final int chunkBytes, final long planHash)
    {
        throw new IllegalStateException("a point-to-point call binds with bind(Call)");
    }

    @Override
    public int doWork()
    {
        int work = 0;
        final int n = ops.size();
        for (int op = 0; op < n && remaining > 0; op++)
        {
            if (!done[op] && (after[op] < 0 || done[after[op]]))
            {
                work += ops.kind(op) == P2pOps.SEND ? send(op) : receive(op);
            }
        }
        return work;
    }

    private int send(final int op)
    {
        final SendConnector to = sender(ops.peer(op));
        final long bytes = ops.bytes(op);
        final long shape = SHAPE_BASE + ops.type(op).id();
        final int piece = pinnedChunk > 0 ? Math.min(pinnedChunk, to.slotLength()) : to.slotLength();
        int work = 0;
        while (moved[op] < bytes || !started[op])
        {
            if (!to.hasSpace())
            {
                return work;
            }
            final int length = (int)Math.min(piece, bytes - moved[op]);
            final long source = ops.address(op) + moved[op];
            if (length > 0 && to.direct() && to.readableInPlace(source, length))
            {
                to.publishDirect(source, length, number[op], shape, ops.count(op));
                direct += length;
            }
            else
            {
                final long slot = to.slotAddress(length);
                if (length > 0)
                {
                    org.agrona.UnsafeApi.copyMemory(source, slot, length);
                }
                to.publish(length, number[op], shape, ops.count(op));
                staged += length;
            }
            moved[op] += length;
            started[op] = true;
            slots++;
            work++;
        }
        finish(op);
        return work + 1;
    }

    private int receive(final int op)
    {
        final RecvConnector from = receiver(ops.peer(op));
        final long bytes = ops.bytes(op);
        int work = 0;
        while (moved[op] < bytes || !started[op])
        {
            if (!from.hasData())
            {
                return work;
            }
            final int length = from.dataLength();
            if (from.seq() != number[op] || from.shape() != SHAPE_BASE + ops.type(op).id() ||
                from.plan() != ops.count(op) || length > bytes - moved[op])
            {
                throw mismatch(op, from);
            }
            if (length > 0)
            {
                org.agrona.UnsafeApi.copyMemory(from.slotAddress(), ops.address(op) + moved[op], length);
            }
            from.release();
            moved[op] += length;
            started[op] = true;
            work++;
        }
        finish(op);
        return work + 1;
    }

    private void finish(final int op)
    {
        if (!done[op])
        {
            done[op] = true;
            remaining--;
        }
    }

    private JcclRemoteException mismatch(final int op, final RecvConnector from)
    {
        final String theirs;
        if (from.seq() != number[op])
        {
            theirs = "send #" + from.seq() + " of rank " + from.peer() + " to rank " + rank + ", where its send #" +
                number[op] + " was due";
        }
        else
        {
            final long typeId = from.shape() - SHAPE_BASE;
            final DataType type = typeId >= 0 && typeId < 64 ? typeOf((int)typeId) : null;
            theirs = "rank " + from.peer() + "'s send #" + from.seq() + " to it, of " + from.plan() + ' ' +
                (type == null ? "elements of an unknown type" : type.ncclTestsName());
        }
        return new JcclRemoteException(call.describe() + " on rank " + rank + ": its " + ops.describe(op) +
            " (#" + number[op] + " from that rank) met " + theirs + ": a send and its receive must have the same " +
            "count and type, and the ranks must issue their sends and receives between each pair in one order");
    }

    private static DataType typeOf(final int id)
    {
        try
        {
            return DataType.fromId(id);
        }
        catch (final RuntimeException ex)
        {
            return null;
        }
    }

    private SendConnector sender(final int peer)
    {
        SendConnector s = senders[peer];
        if (s == null)
        {
            s = transport.sender(rank, peer, CHANNEL, Protocol.SIMPLE, TransportKind.P2P);
            senders[peer] = s;
        }
        return s;
    }

    private RecvConnector receiver(final int peer)
    {
        RecvConnector r = receivers[peer];
        if (r == null)
        {
            r = transport.receiver(peer, rank, CHANNEL, Protocol.SIMPLE, TransportKind.P2P);
            receivers[peer] = r;
        }
        return r;
    }

    @Override
    public boolean isComplete()
    {
        return remaining == 0 && undrained() < 0;
    }

    /** @return a peer that may still read this rank's buffers in place (a direct send), or -1. */
    private int undrained()
    {
        for (int op = 0; op < ops.size(); op++)
        {
            final int peer = ops.peer(op);
            if (ops.kind(op) == P2pOps.SEND && peer != rank && !senders[peer].drained())
            {
                return peer;
            }
        }
        return -1;
    }

    /** @return the first op that may move and has not finished, or -1. */
    private int stuck()
    {
        for (int op = 0; op < ops.size(); op++)
        {
            if (!done[op] && (after[op] < 0 || done[after[op]]))
            {
                return op;
            }
        }
        return -1;
    }

    @Override
    public JcclTimeoutException timeout(final long timeoutMs)
    {
        final int op = stuck();
        final String where;
        if (op >= 0)
        {
            final int peer = ops.peer(op);
            where = ": its " + ops.describe(op) + " (#" + number[op] + (ops.kind(op) == P2pOps.SEND ?
                " to that rank) has sent " + moved[op] + " of " + ops.bytes(op) + " bytes and waits for rank " +
                peer + " to receive" : " from that rank) has received " + moved[op] + " of " + ops.bytes(op) +
                " bytes and waits for rank " + peer + " to send");
        }
        else
        {
            final int peer = undrained();
            where = peer < 0 ? "" : ": rank " + peer + " has not read this rank's send buffer (in place)";
        }
        return new JcclTimeoutException(call.describe() + " timed out after " + timeoutMs + " ms on rank " + rank +
            where);
    }

    @Override
    public int waitsOn()
    {
        final int op = stuck();
        return op >= 0 ? ops.peer(op) : undrained();
    }

    @Override
    public boolean ownScratch()
    {
        return true;
    }

    @Override
    public Protocol protocol()
    {
        return Protocol.SIMPLE;
    }

    @Override
    public TransportKind transport()
    {
        return TransportKind.P2P;
    }

    @Override
    public int channels()
    {
        return 1;
    }

    @Override
    public long slotsSent()
    {
        return slots;
    }

    @Override
    public long bytesStaged()
    {
        return staged;
    }

    @Override
    public long bytesDirect()
    {
        return direct;
    }

    @Override
    public boolean dividesAverage()
    {
        return false;
    }
}
