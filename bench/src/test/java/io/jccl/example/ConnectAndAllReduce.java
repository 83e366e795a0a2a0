package io.jccl.example;

import io.jccl.Communicator;
import io.jccl.DataType;
import io.jccl.HostBuffer;
import io.jccl.ReduceOp;
import io.jccl.core.Context;
import io.jccl.core.Jccl;

/**
 * A user's program, outside jccl, as {@code bin/jccl-run} starts it: each process joins with
 * {@code Jccl.connect(new Context())} from the launcher's variables and AllReduces three rounds of 1024 floats,
 * checking every element. {@code java ... ConnectAndAllReduce K S} makes rank K exit with status S before its
 * second round (a rank that dies mid-run).
 */
public final class ConnectAndAllReduce
{
    private static final int COUNT = 1024;
    private static final int ROUNDS = 3;

    private ConnectAndAllReduce()
    {
    }

    /**
     * @param args optionally the rank that exits mid-run and its status.
     */
    public static void main(final String[] args)
    {
        final int failRank = args.length > 0 ? Integer.parseInt(args[0]) : -1;
        final int failStatus = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        try (Communicator comm = Jccl.connect(new Context()))
        {
            final int rank = comm.rank();
            final int size = comm.size();
            final HostBuffer buffer = HostBuffer.allocate((long)COUNT * Float.BYTES);
            for (int round = 0; round < ROUNDS; round++)
            {
                if (rank == failRank && round == 1)
                {
                    System.out.println("exiting with status " + failStatus + " before round 1");
                    System.out.flush();
                    System.exit(failStatus);
                }
                for (int i = 0; i < COUNT; i++)
                {
                    buffer.byteBuffer().putFloat((int)buffer.offset() + i * Float.BYTES, rank + 1 + round + i);
                }
                comm.allReduce(buffer, buffer, COUNT, DataType.FLOAT32, ReduceOp.SUM);
                for (int i = 0; i < COUNT; i++)
                {
                    final float expected = size * (size + 1) / 2f + size * (float)(round + i);
                    final float actual = buffer.byteBuffer().getFloat((int)buffer.offset() + i * Float.BYTES);
                    if (actual != expected)
                    {
                        System.out.println("round " + round + ": element " + i + " is " + actual + ", not " +
                            expected);
                        System.exit(1);
                    }
                }
                System.out.println("rank " + rank + " of " + size + ", round " + round + ": " + COUNT +
                    " sums right");
            }
        }
    }
}
