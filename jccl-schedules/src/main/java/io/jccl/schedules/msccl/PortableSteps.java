package io.jccl.schedules.msccl;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.ChunkLayout;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.Program;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;

import java.util.ArrayList;
import java.util.List;

/**
 * Rewrites a Program's jccl-only steps into steps MSCCL's runtime also runs, with the same arithmetic: each
 * {@link Opcode#RECV_REDUCE_COPY_REVERSED} ({@code dst = op(src, received)}) becomes {@code cpy} of the source into
 * the destination, {@code r} into a scratch chunk and {@code re} of that chunk into the destination
 * ({@code dst = op(dst, scratch)}), the order of operands kept, so results stay bit for bit. The scratch chunk is the
 * destination's chunk of a scratch buffer laid out as the destination; steps that depended on the reversed step
 * depend on its {@code re}.
 */
public final class PortableSteps
{
    private PortableSteps()
    {
    }

    /**
     * @param program a program.
     * @return the program itself when it has no jccl-only step, else its portable equivalent.
     * @throws JcclInvalidArgumentException where a rank that needs the scratch chunk also uses the scratch buffer, or
     *                                      its layout differs from the destination's.
     */
    public static Program of(final Program program)
    {
        BufferKind destination = null;
        for (int r = 0; r < program.ranks(); r++)
        {
            for (final Worker w : program.workers(r))
            {
                for (int s = 0; s < w.stepCount(); s++)
                {
                    if (w.opcode(s) == Opcode.RECV_REDUCE_COPY_REVERSED)
                    {
                        destination = BufferKind.of(w.field(s, StepDescriptor.DST_BUFFER));
                    }
                }
            }
        }
        if (destination == null)
        {
            return program;
        }
        final ChunkLayout scratch = program.layout(BufferKind.SCRATCH) != null ? program.layout(BufferKind.SCRATCH) :
            program.layout(destination);
        if (!scratch.equals(program.layout(destination)))
        {
            throw new JcclInvalidArgumentException(program.name() + " program: its reversed receive-reduce steps " +
                "need a scratch chunk laid out as the " + destination.mscclName() + " buffer to be written as MSCCL " +
                "steps, and its scratch buffer is laid out otherwise");
        }
        final List<List<Worker>> ranks = new ArrayList<>();
        for (int r = 0; r < program.ranks(); r++)
        {
            ranks.add(rank(program, r));
        }
        return new Program(program.name(), program.collective(), program.ranks(), program.root(),
            program.layout(BufferKind.INPUT), program.layout(BufferKind.OUTPUT), scratch, ranks);
    }

    private static List<Worker> rank(final Program program, final int r)
    {
        final List<Worker> workers = program.workers(r);
        // where each step lands: the last step it becomes
        final int[][] moved = new int[workers.size()][];
        boolean reversed = false;
        boolean usesScratch = false;
        for (int w = 0; w < workers.size(); w++)
        {
            final Worker worker = workers.get(w);
            moved[w] = new int[worker.stepCount()];
            int next = 0;
            for (int s = 0; s < worker.stepCount(); s++)
            {
                final Opcode op = worker.opcode(s);
                final boolean isReversed = op == Opcode.RECV_REDUCE_COPY_REVERSED;
                reversed |= isReversed;
                usesScratch |= !isReversed && (op.readsSource() && scratch(worker, s, StepDescriptor.SRC_BUFFER) ||
                    op.writesDestination() && scratch(worker, s, StepDescriptor.DST_BUFFER));
                next += isReversed ? 3 : 1;
                moved[w][s] = next - 1;
            }
        }
        if (!reversed)
        {
            return workers;
        }
        if (usesScratch)
        {
            throw new JcclInvalidArgumentException(program.name() + " program: rank " + r + " uses its scratch " +
                "buffer and has reversed receive-reduce steps, which cannot be written as MSCCL steps");
        }
        final List<Worker> out = new ArrayList<>();
        for (final Worker worker : workers)
        {
            final Worker.Builder b = new Worker.Builder(worker.sendPeer(), worker.recvPeer(), worker.channel());
            for (int s = 0; s < worker.stepCount(); s++)
            {
                final Opcode op = worker.opcode(s);
                final BufferKind src = BufferKind.of(worker.field(s, StepDescriptor.SRC_BUFFER));
                final BufferKind dst = BufferKind.of(worker.field(s, StepDescriptor.DST_BUFFER));
                final int srcChunk = worker.field(s, StepDescriptor.SRC_CHUNK);
                final int dstChunk = worker.field(s, StepDescriptor.DST_CHUNK);
                final int count = worker.field(s, StepDescriptor.CHUNK_COUNT);
                final int depWorker = worker.field(s, StepDescriptor.DEP_WORKER);
                final int depStep = depWorker == StepDescriptor.NO_DEPENDENCY ? 0 :
                    moved[depWorker][worker.field(s, StepDescriptor.DEP_STEP)];
                if (op == Opcode.RECV_REDUCE_COPY_REVERSED)
                {
                    b.step(Opcode.COPY, src, srcChunk, dst, dstChunk, count, depWorker, depStep);
                    b.step(Opcode.RECV, null, 0, BufferKind.SCRATCH, dstChunk, count, StepDescriptor.NO_DEPENDENCY, 0);
                    b.step(Opcode.REDUCE, BufferKind.SCRATCH, dstChunk, dst, dstChunk, count,
                        StepDescriptor.NO_DEPENDENCY, 0);
                }
                else
                {
                    b.step(op, src, srcChunk, dst, dstChunk, count, depWorker, depStep);
                }
            }
            out.add(b.build());
        }
        return out;
    }

    private static boolean scratch(final Worker worker, final int step, final int field)
    {
        return worker.field(step, field) == BufferKind.SCRATCH.ordinal();
    }
}
