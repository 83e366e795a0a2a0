package io.jccl.schedules;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a Program on symbols, independently of jccl's executor: every chunk holds an expression string (the input
 * of rank r is "r", a reduction of a and b is "(a+b)"), FIFOs are queues keyed by (sender, receiver, channel), and
 * workers run round-robin until none can move. Used to prove that generators compute their collective in the
 * order the arithmetic contract states.
 */
final class SymbolicRun
{
    final Program program;
    final String[][][] buffers;   // [rank][buffer][chunk]
    private final Map<String, ArrayDeque<String[]>> fifos = new HashMap<>();
    private final int[][] stepOf;

    SymbolicRun(final Program program, final boolean inPlace)
    {
        this.program = program;
        final int n = program.ranks();
        buffers = new String[n][3][];
        stepOf = new int[n][];
        for (int r = 0; r < n; r++)
        {
            for (final BufferKind kind : BufferKind.values())
            {
                final ChunkLayout layout = program.layout(kind);
                buffers[r][kind.ordinal()] = new String[layout == null ? 0 : layout.chunks()];
            }
            final String[] in = buffers[r][BufferKind.INPUT.ordinal()];
            for (int c = 0; c < in.length; c++)
            {
                in[c] = Integer.toString(r);
            }
            stepOf[r] = new int[program.workers(r).size()];
        }
    }

    /** @return true when every worker finished; false on a deadlock. */
    boolean run()
    {
        boolean moved = true;
        while (moved)
        {
            moved = false;
            for (int r = 0; r < program.ranks(); r++)
            {
                final List<Worker> workers = program.workers(r);
                for (int w = 0; w < workers.size(); w++)
                {
                    while (tryStep(r, workers, w))
                    {
                        moved = true;
                    }
                }
            }
        }
        for (int r = 0; r < program.ranks(); r++)
        {
            for (int w = 0; w < stepOf[r].length; w++)
            {
                if (stepOf[r][w] < program.workers(r).get(w).stepCount())
                {
                    return false;
                }
            }
        }
        return fifos.values().stream().allMatch(ArrayDeque::isEmpty);
    }

    private boolean tryStep(final int r, final List<Worker> workers, final int w)
    {
        final Worker worker = workers.get(w);
        final int s = stepOf[r][w];
        if (s >= worker.stepCount())
        {
            return false;
        }
        final int depWorker = worker.field(s, StepDescriptor.DEP_WORKER);
        if (depWorker >= 0 && stepOf[r][depWorker] <= worker.field(s, StepDescriptor.DEP_STEP))
        {
            return false;
        }
        final Opcode op = worker.opcode(s);
        final String inKey = worker.recvPeer() + ">" + r + "@" + worker.channel();
        final ArrayDeque<String[]> in = fifos.computeIfAbsent(inKey, k -> new ArrayDeque<>());
        if (op.receives() && in.isEmpty())
        {
            return false;
        }
        final int cnt = worker.field(s, StepDescriptor.CHUNK_COUNT);
        final String[] received = op.receives() ? in.poll() : null;
        final String[] result = new String[cnt];
        for (int j = 0; j < cnt; j++)
        {
            final String src = op.readsSource() ? buffers[r][worker.field(s, StepDescriptor.SRC_BUFFER)]
                [worker.field(s, StepDescriptor.SRC_CHUNK) + j] : null;
            if (op == Opcode.REDUCE)
            {
                final String[] dst = buffers[r][worker.field(s, StepDescriptor.DST_BUFFER)];
                final int d = worker.field(s, StepDescriptor.DST_CHUNK) + j;
                result[j] = "(" + dst[d] + "+" + src + ")";
            }
            else if (op == Opcode.RECV_REDUCE_COPY_REVERSED)
            {
                result[j] = "(" + src + "+" + received[j] + ")";
            }
            else if (op.reduces())
            {
                result[j] = "(" + received[j] + "+" + src + ")";
            }
            else
            {
                result[j] = op.receives() ? received[j] : src;
            }
            if (op.writesDestination())
            {
                buffers[r][worker.field(s, StepDescriptor.DST_BUFFER)][worker.field(s, StepDescriptor.DST_CHUNK) + j] =
                    result[j];
            }
        }
        if (op.sends())
        {
            fifos.computeIfAbsent(r + ">" + worker.sendPeer() + "@" + worker.channel(), k -> new ArrayDeque<>())
                .add(result);
        }
        stepOf[r][w]++;
        return true;
    }

    /** @return the output chunks of a rank. */
    List<String> output(final int rank)
    {
        return new ArrayList<>(List.of(buffers[rank][BufferKind.OUTPUT.ordinal()]));
    }
}
