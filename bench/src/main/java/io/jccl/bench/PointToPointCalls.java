package io.jccl.bench;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.Stream;
import io.jccl.Work;

/**
 * One rank's sends and receives of the tools made of point-to-point calls, as nccl-tests' {@code sendrecv.cu},
 * {@code hypercube.cu} and {@code alltoall.cu} issue them. The caller brackets each step's calls, of all the ranks it
 * drives, in one group ({@code groupStart}/{@code groupEnd}): inside a group a rank's sends and receives progress
 * together, so the order of the calls here cannot deadlock.
 * <p>
 * Threading: stateless; called by the bench thread that drives the rank.
 */
final class PointToPointCalls
{
    private PointToPointCalls()
    {
    }

    /**
     * The ring shift of {@code sendrecv_perf}: sends {@code count} elements to rank + 1 and receives as many from
     * rank - 1.
     *
     * @param comm   the rank.
     * @param send   count elements.
     * @param recv   count elements.
     * @param count  elements.
     * @param type   element type.
     * @param stream ordering domain.
     * @return the receive's handle (inside a group, that of every call of the rank in it).
     */
    static Work sendRecv(final Communicator comm, final Buffer send, final Buffer recv, final long count,
        final DataType type, final Stream stream)
    {
        final int n = comm.size();
        final int rank = comm.rank();
        comm.send(send, count, type, (rank + 1) % n, stream);
        return comm.recv(recv, count, type, (rank - 1 + n) % n, stream);
    }

    /**
     * {@code alltoall_perf --p2p}: block p of {@code send} goes to rank p, block p of {@code recv} comes from rank p,
     * this rank's own block included (a send to itself meets its receive in the same group).
     *
     * @param comm   the rank.
     * @param send   size() x count elements.
     * @param recv   size() x count elements.
     * @param count  elements per peer.
     * @param type   element type.
     * @param stream ordering domain.
     * @return the last receive's handle.
     */
    static Work allToAll(final Communicator comm, final Buffer send, final Buffer recv, final long count,
        final DataType type, final Stream stream)
    {
        Work last = null;
        for (int peer = 0; peer < comm.size(); peer++)
        {
            comm.send(send.view(type, peer * count, count), count, type, peer, stream);
            last = comm.recv(recv.view(type, peer * count, count), count, type, peer, stream);
        }
        return last;
    }

    /**
     * @param nRanks rank count, a power of two.
     * @return the steps of the hypercube AllGather: log2(n), at least 1 (one rank still copies its own block).
     */
    static int hypercubeSteps(final int nRanks)
    {
        return Math.max(1, Integer.numberOfTrailingZeros(nRanks));
    }

    /**
     * Step k of {@code hypercube_perf}'s AllGather by recursive doubling: with {@code mask = 2^k}, the rank holds the
     * {@code mask} blocks from {@code s = rank & ~(mask - 1)}; it sends them to {@code rank ^ mask} and receives that
     * rank's {@code mask} blocks at {@code s ^ mask}. Out of place, step 0 also copies the rank's own block into
     * place as a send to itself (nccl-tests copies it on the stream before the steps); step 0's exchange then sends
     * from {@code send}, which holds the same data, because the self-receive writes that block in the same group.
     *
     * @param comm    the rank.
     * @param step    k, 0 to {@link #hypercubeSteps} - 1.
     * @param inPlace true when {@code send} is block {@code rank} of {@code recv}.
     * @param send    count elements.
     * @param recv    size() x count elements.
     * @param count   elements per block.
     * @param type    element type.
     * @param stream  ordering domain.
     * @return the handle of the step's last call.
     */
    static Work hypercubeStep(final Communicator comm, final int step, final boolean inPlace, final Buffer send,
        final Buffer recv, final long count, final DataType type, final Stream stream)
    {
        final int rank = comm.rank();
        final int mask = 1 << step;
        Work last = null;
        if (step == 0 && !inPlace)
        {
            comm.send(send, count, type, rank, stream);
            last = comm.recv(recv.view(type, rank * count, count), count, type, rank, stream);
        }
        if (mask < comm.size())
        {
            final int peer = rank ^ mask;
            final int first = rank & ~(mask - 1);
            final long blocks = count * mask;
            final Buffer held = step == 0 ? send : recv.view(type, first * count, blocks);
            comm.send(held, blocks, type, peer, stream);
            last = comm.recv(recv.view(type, (first ^ mask) * count, blocks), blocks, type, peer, stream);
        }
        return last;
    }
}
