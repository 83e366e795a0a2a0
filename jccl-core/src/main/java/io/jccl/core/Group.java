package io.jccl.core;

import io.jccl.JcclInvalidUsageException;

import java.util.ArrayList;
import java.util.List;

/**
 * Group calls of one thread (NCCL's {@code ncclGroupStart/End}): calls made between the outermost start and its
 * end are held and submitted together at the end, in the order they were made.
 */
final class Group
{
    private static final ThreadLocal<Group> CURRENT = ThreadLocal.withInitial(Group::new);

    private int depth;
    private final List<Call> held = new ArrayList<>();

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
                for (final Call call : group.held)
                {
                    call.communicator().submit(call);
                }
            }
            finally
            {
                group.held.clear();
            }
        }
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
