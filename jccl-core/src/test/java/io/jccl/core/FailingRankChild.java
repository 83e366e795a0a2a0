package io.jccl.core;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.JcclException;
import io.jccl.ReduceOp;
import io.jccl.UniqueId;
import io.jccl.Work;

/**
 * One rank of {@link FailureCauseTest}, in its own JVM: it joins with {@link Jccl#connect} and plays its part in a
 * failure, printing what it saw as one line, {@code BROKEN <System.nanoTime()> <exception class>: <message>}, before
 * it closes and exits 3 ({@code System.nanoTime()} is the host's monotonic clock, the same in every process here).
 */
public final class FailingRankChild
{
    private static final long COUNT = 1024;

    private FailingRankChild()
    {
    }

    /**
     * @param args rank, size, the UniqueId text, the mode and the deadline in ms. {@code abort}: rank 0 starts an
     *             AllReduce, prints {@code ABORT <nanoTime>} a second later, aborts from another thread and stays
     *             alive two more seconds; rank 1 waits on the same AllReduce; rank 2 calls only after four seconds.
     *             {@code loop}: small AllReduce calls until one fails, {@code READY} after the first.
     * @throws InterruptedException never: nothing interrupts the child.
     */
    public static void main(final String[] args) throws InterruptedException
    {
        final int rank = Integer.parseInt(args[0]);
        final Communicator comm = Jccl.connect(new Context().timeoutMs(Long.parseLong(args[4])), rank,
            Integer.parseInt(args[1]), UniqueId.parse(args[2]));
        final HostBuffer buffer = HostBuffer.allocate(COUNT * 4);
        try
        {
            if ("abort".equals(args[3]))
            {
                abortWhilePending(comm, buffer);
            }
            else
            {
                for (long i = 0; ; i++)
                {
                    comm.allReduce(buffer, buffer, COUNT, DataType.FLOAT32, ReduceOp.MAX);
                    if (i == 0)
                    {
                        System.out.println("READY");
                        System.out.flush();
                    }
                }
            }
        }
        catch (final JcclException ex)
        {
            System.out.println("BROKEN " + System.nanoTime() + " " + ex.getClass().getSimpleName() + ": " +
                ex.getMessage());
            System.out.flush();
            comm.close();
            System.exit(3);
        }
        System.exit(0);
    }

    private static void abortWhilePending(final Communicator comm, final HostBuffer buffer)
        throws InterruptedException
    {
        if (comm.rank() == 2)
        {
            Thread.sleep(4000);
        }
        final Work pending = comm.allReduce(buffer, buffer, COUNT, DataType.FLOAT32, ReduceOp.SUM,
            io.jccl.Stream.DEFAULT);
        if (comm.rank() == 0)
        {
            Thread.sleep(1000);
            System.out.println("ABORT " + System.nanoTime());
            System.out.flush();
            final Thread aborter = new Thread(comm::abort, "aborter");
            aborter.start();
            aborter.join();
            Thread.sleep(2000);
            System.out.println("ALIVE");
            System.exit(0);
        }
        pending.join();
    }
}
