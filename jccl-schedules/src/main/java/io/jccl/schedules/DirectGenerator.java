package io.jccl.schedules;

import io.jccl.Collective;
import io.jccl.Topology;

import java.util.ArrayList;
import java.util.List;

import static io.jccl.schedules.BufferKind.INPUT;
import static io.jccl.schedules.BufferKind.OUTPUT;
import static io.jccl.schedules.Opcode.COPY;
import static io.jccl.schedules.Opcode.RECV;
import static io.jccl.schedules.Opcode.SEND;

/**
 * AllToAll with every pair of ranks talking directly: per channel, rank {@code r} copies its own block and runs
 * one worker per peer {@code p} that sends block {@code p} of its input to {@code p} and receives {@code p}'s block
 * {@code r} into block {@code p} of its output. Sending a piece of block {@code p} before receiving into the same
 * piece keeps it correct in place.
 */
public final class DirectGenerator
{
    private DirectGenerator()
    {
    }

    /**
     * @param topology the ranks.
     * @param channels channels, each owning a slice of every block.
     * @return the AllToAll program.
     */
    public static Program allToAll(final Topology topology, final int channels)
    {
        final int n = topology.ranks();
        final List<List<Worker>> workers = new ArrayList<>(n);
        for (int r = 0; r < n; r++)
        {
            final List<Worker> rankWorkers = new ArrayList<>();
            for (int c = 0; c < channels; c++)
            {
                final Worker.Builder own = new Worker.Builder(Worker.NO_PEER, Worker.NO_PEER, c);
                own.step(COPY, INPUT, r * channels + c, OUTPUT, r * channels + c);
                rankWorkers.add(own.build());
                for (int k = 1; k < n; k++)
                {
                    // one worker per peer: send it my block for it, then receive its block for me into the same
                    // block index; the send of a piece precedes the receive into it, which keeps in place correct
                    final int peer = (r + k) % n;
                    final Worker.Builder w = new Worker.Builder(peer, peer, c);
                    w.step(SEND, INPUT, peer * channels + c, null, 0);
                    w.step(RECV, null, 0, OUTPUT, peer * channels + c);
                    rankWorkers.add(w.build());
                }
            }
            workers.add(rankWorkers);
        }
        final ChunkLayout blocks = new ChunkLayout(n, channels);
        return new Program("direct", Collective.ALL_TO_ALL, n, -1, blocks, blocks, null, workers);
    }
}
