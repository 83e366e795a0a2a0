package io.jccl.schedules.msccl;

import io.jccl.Collective;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

import static io.jccl.schedules.msccl.MscclReader.MAX_CHUNKS;
import static io.jccl.schedules.msccl.MscclReader.MAX_THREADBLOCKS;

/**
 * Lowers one rank's {@code <gpu>} element for {@link MscclLowering}: its declared chunk counts, each
 * {@code <tb>} into a worker (ids must run {@code 0..n-1}) with a step per {@code <step>} (opcode, operands,
 * {@code cnt}, dependency), and its TACCL {@code <copy>} precopies into one extra worker, dropping those that
 * in-place aliasing makes no-ops. Every problem goes to the read's {@link MscclProblems}, in the order found.
 */
final class MscclGpuLowering
{
    /** The attributes of {@code <gpu>}. */
    static final Set<String> GPU_ATTRS = Set.of("id", "i_chunks", "o_chunks", "s_chunks");
    private static final Set<String> TB_ATTRS = Set.of("id", "send", "recv", "chan");
    private static final Set<String> STEP_ATTRS = Set.of("s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt",
        "depid", "deps", "hasdep");
    private static final Set<String> COPY_ATTRS = Set.of("i_off", "o_off");

    private final MscclProblems problems;

    /**
     * @param problems where to report problems: the read's.
     */
    MscclGpuLowering(final MscclProblems problems)
    {
        this.problems = problems;
    }

    /** One gpu read. */
    static final class GpuResult
    {
        /** Its workers: the threadblocks in id order, then the precopy worker if any. */
        List<Worker> workers;
        /** The declared {@code i_chunks}, {@code o_chunks} and {@code s_chunks}. */
        int[] declared;
        /** The line of each worker's element. */
        int[] tbLines;
        /** The line of each step of each worker. */
        int[][] stepLines;
        /** The {@code hasdep} flag of each step of each worker. */
        boolean[][] hasDep;
        /** The index of the precopy worker, or -1 when there is none. */
        int precopy = -1;
        /** For each precopy step, the 1-based position of its {@code <copy>} among the gpu's copies. */
        int[] copyIndex;
    }

    /**
     * Lowers one gpu; every problem found goes to the read's {@link MscclProblems}.
     *
     * @param gpu         the {@code <gpu>} element.
     * @param naturalIn   the input chunks the collective has on a rank.
     * @param naturalOut  the output chunks the collective has on a rank.
     * @param collective  the collective, or null when unknown (the gpu is then only checked).
     * @param applyCopies whether to apply TACCL {@code <copy>} precopies or ignore them.
     * @param inPlaceOnly the rank's cells when the file is in-place only (its no-op copies are dropped), else null.
     * @return the gpu read, or null when there are errors (or no collective).
     */
    GpuResult gpu(final MscclElement gpu, final int naturalIn, final int naturalOut,
        final Collective collective, final boolean applyCopies, final Cells inPlaceOnly)
    {
        final MscclAttributes a = attrs(gpu, GPU_ATTRS);
        final Integer in = a.integer("i_chunks", true, 0, MAX_CHUNKS);
        final Integer out = a.integer("o_chunks", true, 0, MAX_CHUNKS);
        final Integer scratch = a.integer("s_chunks", true, 0, MAX_CHUNKS);
        a.reportUnknown();
        if (in != null && in > naturalIn)
        {
            a.error("i_chunks=" + in + " but the input of " + collective.xmlName() + " has " + naturalIn +
                " chunks (nchunksperloop" + (naturalIn < naturalOut ? "/ngpus" : "") + ")");
        }
        else if (in != null && in > 0 && in < naturalIn)
        {
            a.cExecutor("i_chunks=" + in + " is neither 0 nor " + naturalIn + ": the older MSCCL runtime " +
                "rejects it");
        }
        if (out != null && out > naturalOut)
        {
            a.error("o_chunks=" + out + " but the output of " + collective.xmlName() + " has " + naturalOut +
                " chunks (nchunksperloop" + (naturalOut < naturalIn ? "/ngpus" : "") + ")");
        }
        else if (out != null && out > 0 && out < naturalOut)
        {
            a.cExecutor("o_chunks=" + out + " is neither 0 nor " + naturalOut + ": the older MSCCL runtime " +
                "rejects it");
        }
        final TreeMap<Integer, MscclElement> tbs = new TreeMap<>();
        for (final MscclElement tb : gpu.children("tb"))
        {
            final Integer id = attrs(tb, TB_ATTRS).integer("id", true, 0, MAX_THREADBLOCKS - 1);
            if (id != null)
            {
                final MscclElement first = tbs.putIfAbsent(id, tb);
                if (first != null)
                {
                    problems.error(tb.line, tb.path, "a second <tb id=\"" + id + "\"> on this gpu (the first is at " +
                        "line " + first.line + ")");
                }
            }
        }
        if (!tbs.isEmpty() && tbs.lastKey() != tbs.size() - 1)
        {
            final List<Integer> missing = new ArrayList<>();
            for (int t = 0; t <= tbs.lastKey() && missing.size() < 16; t++)
            {
                if (!tbs.containsKey(t))
                {
                    missing.add(t);
                }
            }
            a.error("tb ids must run from 0 without gaps, as MSCCL requires: tb " + MscclReader.ranges(missing) +
                " missing");
        }
        final GpuResult result = new GpuResult();
        result.workers = new ArrayList<>();
        result.declared = new int[] {in == null ? 0 : in, out == null ? 0 : out, scratch == null ? 0 : scratch};
        final List<int[]> lines = new ArrayList<>();
        final List<boolean[]> hasDep = new ArrayList<>();
        final List<Integer> tbLines = new ArrayList<>();
        for (final MscclElement tb : tbs.values())
        {
            final Worker worker = tb(tb, lines, hasDep);
            tbLines.add(tb.line);
            if (worker != null)
            {
                result.workers.add(worker);
            }
        }
        copies(gpu, applyCopies, inPlaceOnly, result, lines, hasDep, tbLines);
        if (collective == null || problems.hasErrors())
        {
            return null;
        }
        result.tbLines = tbLines.stream().mapToInt(Integer::intValue).toArray();
        result.stepLines = lines.toArray(new int[0][]);
        result.hasDep = hasDep.toArray(new boolean[0][]);
        return result;
    }

    private void copies(final MscclElement gpu, final boolean applyCopies, final Cells inPlaceOnly,
        final GpuResult result, final List<int[]> lines, final List<boolean[]> hasDep,
        final List<Integer> tbLines)
    {
        final List<MscclElement> copies = gpu.children("copy");
        if (copies.isEmpty())
        {
            return;
        }
        final Worker.Builder precopy = new Worker.Builder(Worker.NO_PEER, Worker.NO_PEER, 0);
        final List<Integer> copyLines = new ArrayList<>();
        final List<Integer> copyIndex = new ArrayList<>();
        int dropped = 0;
        for (int k = 0; k < copies.size(); k++)
        {
            final MscclElement copy = copies.get(k);
            final MscclAttributes a = attrs(copy, COPY_ATTRS);
            final Integer from = a.integer("i_off", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
            final Integer to = a.integer("o_off", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
            a.reportUnknown();
            if (from == null || to == null || !applyCopies)
            {
                continue;
            }
            if (inPlaceOnly != null && inPlaceOnly.sameCell(from, to))
            {
                dropped++;
                continue;
            }
            precopy.step(Opcode.COPY, BufferKind.INPUT, from, BufferKind.OUTPUT, to, 1,
                StepDescriptor.NO_DEPENDENCY, 0);
            copyLines.add(copy.line);
            copyIndex.add(k + 1);
        }
        if (!applyCopies)
        {
            problems.warning(copies.get(0).line, gpu.path + "/copy", copies.size() + " TACCL <copy> precopies " +
                "ignored (the reader was asked to ignore them, as MSCCL's C executors do)");
            return;
        }
        if (copyLines.isEmpty() || problems.hasErrors())
        {
            return;
        }
        result.precopy = result.workers.size();
        result.workers.add(precopy.build());
        lines.add(copyLines.stream().mapToInt(Integer::intValue).toArray());
        hasDep.add(new boolean[copyLines.size()]);
        tbLines.add(copyLines.get(0));
        result.copyIndex = copyIndex.stream().mapToInt(Integer::intValue).toArray();
        if (dropped > 0)
        {
            problems.warning(copies.get(0).line, gpu.path + "/copy", dropped +
                " in-place no-op <copy> elements dropped");
        }
    }

    private Worker tb(final MscclElement tb, final List<int[]> lines, final List<boolean[]> hasDeps)
    {
        final MscclAttributes a = attrs(tb, TB_ATTRS);
        final Integer send = a.integer("send", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
        final Integer recv = a.integer("recv", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
        final Integer chan = a.integer("chan", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
        a.reportUnknown();
        final Worker.Builder builder = new Worker.Builder(send == null ? Worker.NO_PEER : send,
            recv == null ? Worker.NO_PEER : recv, chan == null ? 0 : chan);
        final List<MscclElement> steps = tb.children("step");
        final int[] stepLines = new int[steps.size()];
        final boolean[] hasDep = new boolean[steps.size()];
        for (int p = 0; p < steps.size(); p++)
        {
            stepLines[p] = steps.get(p).line;
            hasDep[p] = step(steps.get(p), p, builder);
        }
        lines.add(stepLines);
        hasDeps.add(hasDep);
        return builder.build();
    }

    /** Reads one step into the builder (a NOP placeholder when it has errors); returns its hasdep flag. */
    private boolean step(final MscclElement step, final int position, final Worker.Builder builder)
    {
        final MscclAttributes a = attrs(step, STEP_ATTRS);
        final Integer s = a.integer("s", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
        if (s != null && s != position)
        {
            a.error("s=" + s + " but this is step " + position + " of its tb: MSCCL numbers steps by " +
                "position, so a dependency on step " + s + " would mean another step");
        }
        final String type = a.string("type", true);
        Opcode op = null;
        if (type != null)
        {
            op = Opcode.fromMscclName(type);
            if (op == null)
            {
                a.error(type.equals("ra") ? "type=\"ra\" (the older runtime's residual add) is not supported: " +
                    "its interpreter never ran it" : "unknown step type \"" + type +
                    "\" (s, r, rcs, rrs, rrc, rrcs, cpy, re, nop, or jccl's rrcr)");
            }
        }
        final boolean reads = op != null && op.readsSource();
        final boolean writes = op != null && op.writesDestination();
        final BufferKind src = a.buffer("srcbuf", reads);
        final Integer srcOff = a.integer("srcoff", reads, Integer.MIN_VALUE, Integer.MAX_VALUE);
        final BufferKind dst = a.buffer("dstbuf", writes);
        final Integer dstOff = a.integer("dstoff", writes, Integer.MIN_VALUE, Integer.MAX_VALUE);
        final boolean transfer = op != null && op != Opcode.NOP;
        Integer cnt = a.integer("cnt", transfer, Integer.MIN_VALUE, Integer.MAX_VALUE);
        if (!a.has("cnt") && op == Opcode.NOP)
        {
            cnt = 0;
        }
        Integer depid = a.integer("depid", false, Integer.MIN_VALUE, Integer.MAX_VALUE);
        Integer deps = a.integer("deps", false, Integer.MIN_VALUE, Integer.MAX_VALUE);
        Integer hasdep = a.integer("hasdep", false, Integer.MIN_VALUE, Integer.MAX_VALUE);
        final List<String> absent = new ArrayList<>();
        for (final String name : List.of("srcbuf", "srcoff", "dstbuf", "dstoff", "cnt", "depid", "deps",
            "hasdep"))
        {
            if (!a.has(name))
            {
                absent.add(name);
            }
        }
        if (!absent.isEmpty() && op != null)
        {
            a.cExecutor("MSCCL's C parser requires every step attribute; missing " + String.join(", ", absent));
        }
        depid = a.has("depid") ? depid : Integer.valueOf(-1);
        if (depid != null && depid != -1 && !a.has("deps"))
        {
            a.error("depid=" + depid + " without deps (the step of tb " + depid + " to wait for)");
        }
        hasdep = a.has("hasdep") ? hasdep : Integer.valueOf(0);
        if (hasdep != null && hasdep != 0 && hasdep != 1)
        {
            a.cExecutor("hasdep=" + hasdep + ": MSCCL's C parser accepts only 0 or 1");
        }
        a.reportUnknown();
        if (op == null || src == null && reads || srcOff == null && reads || dst == null && writes ||
            dstOff == null && writes || cnt == null || depid == null || deps == null && depid != -1)
        {
            builder.step(Opcode.NOP, null, 0, null, 0, 0, StepDescriptor.NO_DEPENDENCY, 0);
            return false;
        }
        final boolean dependent = depid != -1;
        // a nop moves nothing: its cnt is stored as 0, so that no executor touches a chunk for it
        builder.step(op, reads ? src : null, reads ? srcOff : 0, writes ? dst : null, writes ? dstOff : 0,
            op == Opcode.NOP ? 0 : cnt, dependent ? depid : StepDescriptor.NO_DEPENDENCY, dependent ? deps : 0);
        return hasdep != null && hasdep != 0;
    }

    /** The attributes of one element, reporting into this read's problems. */
    private MscclAttributes attrs(final MscclElement element, final Set<String> known)
    {
        return new MscclAttributes(problems, element, known);
    }
}
