package io.jccl.core;

import io.jccl.JcclInvalidUsageException;

import java.util.ArrayList;

/**
 * Group calls of one thread (NCCL's {@code ncclGroupStart/End}): calls made between the outermost start and its
 * end are held and submitted together at the end, in the order they were made; each rank's sends and receives in
 * the group become one call of the rank, submitted after the group's collectives, so that they progress together.
 */
final class Group
{
    private static final ThreadLocal<Group> CURRENT = ThreadLocal.withInitial(Group::new);

    private int depth;
    /** The held calls, in order; walked by index, since an iterator per walk is an allocation per group. */
    private final ArrayList<Call> held = new ArrayList<>();

    private Group()
    {
    }

    static void start()
    {
        CURRENT.get().depth++;
    }

    static void end()
    {
        final Group group = CURRENT.get();
        if (group.depth == 0)
        {
            throw new JcclInvalidUsageException("groupEnd without groupStart");
        }
        if (--group.depth == 0)
        {
            try
            {
                // every rank's sends to itself pair up before anything of the group is queued
                for (int i = 0, n = group.held.size(); i < n; i++)
                {
                    final Call call = group.held.get(i);
                    if (call.p2p != null)
                    {
                        call.p2p.checkSelf(call.communicator().rank());
                    }
                }
                // collectives in their order, then each rank's sends and receives as one call: the collectives meet
                // in the order every rank issues them, and the point-to-point calls cannot wait on them
                group.enqueueHeld(false);
                group.enqueueHeld(true);
                // the queue bound only once the whole group is queued: the calls a rank waits for are all there
                for (int i = 0, n = group.held.size(); i < n; i++)
                {
                    group.held.get(i).communicator().waitForRoom();
                }
            }
            finally
            {
                group.held.clear();
            }
        }
    }

    /** @param pointToPoint queues the held send/recv calls if true, else the held collectives, in their order. */
    private void enqueueHeld(final boolean pointToPoint)
    {
        for (int i = 0, n = held.size(); i < n; i++)
        {
            final Call call = held.get(i);
            if ((call.p2p != null) == pointToPoint)
            {
                call.communicator().enqueue(call);
            }
        }
    }

    /**
     * @param communicator a rank.
     * @param stream       the stream of the call, where it is made.
     * @return the rank's point-to-point call held in the thread's group, made on its first send or receive there;
     *         null outside a group.
     */
    static Call heldP2p(final LocalCommunicator communicator, final io.jccl.Stream stream)
    {
        final Group group = CURRENT.get();
        if (group.depth == 0)
        {
            return null;
        }
        for (int i = 0, n = group.held.size(); i < n; i++)
        {
            final Call call = group.held.get(i);
            if (call.p2p != null && call.communicator() == communicator)
            {
                return call;
            }
        }
        final Call call = new Call(communicator, new P2pOps(), stream);
        group.held.add(call);
        return call;
    }

    /** @return true if the call was held for the end of the current group, false if there is no group. */
    static boolean hold(final Call call)
    {
        final Group group = CURRENT.get();
        if (group.depth == 0)
        {
            return false;
        }
        group.held.add(call);
        return true;
    }
}
