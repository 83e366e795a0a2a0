package io.jccl.core;

import io.jccl.Buffer;
import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.ReduceOp;
import io.jccl.Stream;
import io.jccl.Work;

/** Collectives of every rank of an in-process group, issued in one group call as nccl-tests' {@code -g} does. */
final class GroupCalls
{
    private GroupCalls()
    {
    }

    /** Every rank's AllReduce of {@code send[r]} into {@code recv[r]} in one group, then waits for all of them. */
    static void allReduce(final Communicator[] comms, final Buffer[] send, final Buffer[] recv, final long count,
        final DataType type, final ReduceOp op)
    {
        final Work[] works = new Work[comms.length];
        Jccl.groupStart();
        for (int r = 0; r < comms.length; r++)
        {
            works[r] = comms[r].allReduce(send[r], recv[r], count, type, op, Stream.DEFAULT);
        }
        Jccl.groupEnd();
        for (final Work w : works)
        {
            w.join();
        }
    }
}
