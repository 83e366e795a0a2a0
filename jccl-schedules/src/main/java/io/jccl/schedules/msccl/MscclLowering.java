package io.jccl.schedules.msccl;

import io.jccl.Collective;
import io.jccl.Protocol;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.ChunkLayout;
import io.jccl.schedules.Program;
import io.jccl.schedules.Worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static io.jccl.schedules.msccl.MscclReader.MAX_CHUNKS;
import static io.jccl.schedules.msccl.MscclReader.MAX_RANKS;

/**
 * Lowers the element tree that {@link MscclReader} parsed into jccl's {@link Program} IR and its
 * {@link MscclSchedule}: the {@code <algo>} attributes (collective, protocol, sizes, root), the ranks'
 * {@code <gpu>} elements (each lowered by {@link MscclGpuLowering}), the input, output and scratch chunk layouts,
 * and the {@link MscclSourceMap} back to lines. The mapping is the one {@link MscclReader}'s class comment
 * describes. Every problem goes to the read's {@link MscclProblems}, in the order found.
 */
final class MscclLowering
{
    private static final Set<String> ALGO_ATTRS = Set.of("name", "proto", "nchannels", "nchunksperloop", "ngpus",
        "coll", "inplace", "outofplace", "minBytes", "maxBytes", "nthreads", "redop", "root");

    private final MscclProblems problems;
    private final MscclGpuLowering gpuLowering;

    /**
     * @param problems where to report problems: the read's, which already holds what parsing found.
     */
    MscclLowering(final MscclProblems problems)
    {
        this.problems = problems;
        this.gpuLowering = new MscclGpuLowering(problems);
    }

    /**
     * Lowers a document; every problem found goes to the read's {@link MscclProblems}.
     *
     * @param algo        the root element.
     * @param applyCopies whether to apply TACCL {@code <copy>} precopies or ignore them.
     * @return the schedule, or null when there are errors.
     */
    MscclSchedule schedule(final MscclElement algo, final boolean applyCopies)
    {
        final MscclAttributes a = attrs(algo, ALGO_ATTRS);
        String name = a.string("name", false);
        if (name == null)
        {
            problems.cExecutor(algo.line, algo.path, "no name attribute: the older MSCCL runtime requires one");
            name = stem(problems.source());
        }
        final Integer ngpus = a.integer("ngpus", true, 1, MAX_RANKS);
        final Collective collective = collective(a);
        final Integer chunksPerLoop = a.integer("nchunksperloop", true, 1, MAX_CHUNKS);
        final Protocol protocol = protocol(a);
        final Integer nchannels = a.integer("nchannels", true, 0, Integer.MAX_VALUE);
        final Integer inplace = a.flag("inplace", true);
        Integer outofplace = a.flag("outofplace", false);
        if (!a.has("outofplace"))
        {
            problems.cExecutor(algo.line, algo.path, "no outofplace attribute: msccl-executor-nccl and RCCL " +
                "reject the file (the older dialect); read as outofplace = 1 - inplace");
            outofplace = inplace == null ? null : 1 - inplace;
        }
        Long minBytes = a.int64("minBytes", false);
        Long maxBytes = a.int64("maxBytes", false);
        if (!a.has("minBytes") || !a.has("maxBytes"))
        {
            problems.cExecutor(algo.line, algo.path, "no minBytes/maxBytes: msccl-executor-nccl and RCCL reject the " +
                "file (the older dialect); read as 0 and unbounded");
        }
        minBytes = a.has("minBytes") ? minBytes : Long.valueOf(0);
        maxBytes = a.has("maxBytes") ? maxBytes : Long.valueOf(0);
        if (minBytes != null && minBytes < 0)
        {
            problems.error(algo.line, algo.path, "minBytes=" + minBytes + " is negative");
        }
        if (maxBytes != null && maxBytes < 0)
        {
            problems.error(algo.line, algo.path, "maxBytes=" + maxBytes + " is negative");
        }
        if (minBytes != null && maxBytes != null && maxBytes > 0 && minBytes > maxBytes)
        {
            problems.error(algo.line, algo.path, "minBytes=" + minBytes + " exceeds maxBytes=" + maxBytes);
        }
        final Integer nthreads = a.integer("nthreads", false, 0, Integer.MAX_VALUE);
        if (nthreads != null && nthreads % 32 != 0)
        {
            problems.cExecutor(algo.line, algo.path, "nthreads=" + nthreads + " is not a multiple of 32, which the " +
                "older MSCCL runtime requires");
        }
        final String redop = a.string("redop", false);
        final Integer root = root(a, collective, ngpus);
        a.reportUnknown();
        if (ngpus != null && chunksPerLoop != null && collective != null && ngpus > 0 &&
            chunksPerLoop % ngpus != 0 && collective != Collective.ALL_REDUCE &&
            !collective.isRooted())
        {
            problems.error(algo.line, algo.path, "nchunksperloop=" + chunksPerLoop + " is not a multiple of ngpus=" +
                ngpus + ", as " + collective.xmlName() + " needs (each rank's part is nchunksperloop/ngpus " +
                "chunks)");
        }
        if (ngpus == null || collective == null || chunksPerLoop == null || problems.hasErrors())
        {
            // without these no gpu can be checked against anything; report what the gpus say anyway
            gpus(algo, ngpus == null ? -1 : ngpus, null, 0, applyCopies, false);
            return null;
        }
        final boolean inPlace = inplace != null && inplace != 0;
        final boolean outOfPlace = outofplace != null && outofplace != 0;
        final Gpus gpus = gpus(algo, ngpus, collective, chunksPerLoop, applyCopies, inPlace && !outOfPlace);
        if (gpus == null || problems.hasErrors())
        {
            return null;
        }
        final int inputChunks = MscclSchedule.naturalChunks(collective, ngpus, chunksPerLoop, BufferKind.INPUT);
        final int outputChunks = MscclSchedule.naturalChunks(collective, ngpus, chunksPerLoop,
            BufferKind.OUTPUT);
        final Program program = new Program(name, collective, ngpus, collective.isRooted() ? root : -1,
            new ChunkLayout(inputChunks, 1), new ChunkLayout(outputChunks, 1),
            gpus.scratchChunks == 0 ? null : new ChunkLayout(gpus.scratchChunks, 1), gpus.workers);
        final MscclSourceMap map = new MscclSourceMap(algo.line, gpus.gpuLines, gpus.declared, gpus.tbLines,
            gpus.stepLines, gpus.hasDep, gpus.precopy, gpus.copyIndex);
        return new MscclSchedule(program, name, collective, ngpus, protocol == null ? Protocol.SIMPLE : protocol,
            nchannels, chunksPerLoop, inPlace, outOfPlace, minBytes, maxBytes == 0 ? Long.MAX_VALUE : maxBytes,
            redop, collective.isRooted() ? root : -1, problems.source(), map, problems.notes());
    }

    private Collective collective(final MscclAttributes a)
    {
        final String coll = a.string("coll", true);
        if (coll == null)
        {
            return null;
        }
        if (coll.equals("reduce_scatter"))
        {
            a.cExecutor("coll=\"reduce_scatter\" is the older runtime's spelling; msccl-executor-nccl and RCCL " +
                "need \"reducescatter\"");
            return Collective.REDUCE_SCATTER;
        }
        for (final Collective collective : Collective.values())
        {
            if (collective.xmlName().equals(coll))
            {
                return collective;
            }
        }
        a.error("coll=\"" + coll + "\" is not supported (allreduce, allgather, reducescatter or reduce_scatter, " +
            "alltoall, broadcast, reduce)");
        return null;
    }

    private Protocol protocol(final MscclAttributes a)
    {
        final String proto = a.string("proto", true);
        if (proto == null)
        {
            return null;
        }
        Protocol protocol = null;
        for (final Protocol p : Protocol.values())
        {
            if (p.lowerName().equalsIgnoreCase(proto))
            {
                protocol = p;
            }
        }
        if (protocol == null)
        {
            a.error("proto=\"" + proto + "\" is not Simple, LL or LL128");
        }
        else if (!proto.equals("Simple") && !proto.equals("LL") && !proto.equals("LL128"))
        {
            a.cExecutor("proto=\"" + proto + "\": MSCCL's C parser accepts exactly Simple, LL or LL128");
        }
        return protocol;
    }

    private Integer root(final MscclAttributes a, final Collective collective, final Integer ngpus)
    {
        final Integer root = a.integer("root", false, 0, ngpus == null ? Integer.MAX_VALUE : ngpus - 1);
        if (collective == null || !collective.isRooted())
        {
            if (a.has("root"))
            {
                a.warning("root ignored: " + (collective == null ? "the collective" : collective.xmlName()) +
                    " has no root");
            }
            return -1;
        }
        if (!a.has("root"))
        {
            a.warning("no root attribute (jccl's extension): " + collective.xmlName() + " read with root 0");
            return 0;
        }
        a.cExecutor("MSCCL's C executors have no root attribute: this " + collective.xmlName() +
            " schedule is right only for root " + root);
        return root == null ? 0 : root;
    }

    /** The gpus read: workers and their source map. */
    private static final class Gpus
    {
        List<List<Worker>> workers;
        int[] gpuLines;
        int[][] declared;
        int[][] tbLines;
        int[][][] stepLines;
        boolean[][][] hasDep;
        int[] precopy;
        int[][] copyIndex;
        int scratchChunks;
    }

    private Gpus gpus(final MscclElement algo, final int ngpus, final Collective collective, final int chunksPerLoop,
        final boolean applyCopies, final boolean inPlaceOnly)
    {
        final Map<Integer, MscclElement> byId = new TreeMap<>();
        for (final MscclElement gpu : algo.children("gpu"))
        {
            final MscclAttributes a = attrs(gpu, MscclGpuLowering.GPU_ATTRS);
            final Integer id = a.integer("id", true, 0, ngpus < 0 ? Integer.MAX_VALUE : ngpus - 1);
            if (id != null)
            {
                final MscclElement first = byId.putIfAbsent(id, gpu);
                if (first != null)
                {
                    problems.error(gpu.line, gpu.path, "a second <gpu id=\"" + id + "\"> (the first is at line " +
                        first.line + ")");
                }
            }
        }
        if (ngpus > 0 && byId.size() < ngpus && !problems.hasErrors())
        {
            final List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < ngpus; r++)
            {
                if (!byId.containsKey(r))
                {
                    missing.add(r);
                }
            }
            problems.error(algo.line, algo.path, "ngpus=" + ngpus + " but there is no <gpu> for rank" +
                (missing.size() == 1 ? " " : "s ") + MscclReader.ranges(missing));
        }
        final Gpus gpus = new Gpus();
        if (collective == null || ngpus <= 0)
        {
            for (final MscclElement gpu : algo.children("gpu"))
            {
                gpuLowering.gpu(gpu, Integer.MAX_VALUE, Integer.MAX_VALUE, null, false, null);
            }
            return null;
        }
        final int naturalIn = MscclSchedule.naturalChunks(collective, ngpus, chunksPerLoop, BufferKind.INPUT);
        final int naturalOut = MscclSchedule.naturalChunks(collective, ngpus, chunksPerLoop, BufferKind.OUTPUT);
        gpus.workers = new ArrayList<>(ngpus);
        gpus.gpuLines = new int[ngpus];
        gpus.declared = new int[ngpus][3];
        gpus.tbLines = new int[ngpus][];
        gpus.stepLines = new int[ngpus][][];
        gpus.hasDep = new boolean[ngpus][][];
        gpus.precopy = new int[ngpus];
        gpus.copyIndex = new int[ngpus][];
        for (int r = 0; r < ngpus; r++)
        {
            final MscclElement gpu = byId.get(r);
            if (gpu == null)
            {
                continue;
            }
            final MscclGpuLowering.GpuResult result = gpuLowering.gpu(gpu, naturalIn, naturalOut, collective,
                applyCopies, inPlaceOnly ? new Cells(collective, r, naturalIn, naturalOut, 0, true) : null);
            if (result == null)
            {
                continue;
            }
            gpus.workers.add(result.workers);
            gpus.gpuLines[r] = gpu.line;
            gpus.declared[r] = result.declared;
            gpus.tbLines[r] = result.tbLines;
            gpus.stepLines[r] = result.stepLines;
            gpus.hasDep[r] = result.hasDep;
            gpus.precopy[r] = result.precopy;
            gpus.copyIndex[r] = result.copyIndex;
            gpus.scratchChunks = Math.max(gpus.scratchChunks, result.declared[BufferKind.SCRATCH.ordinal()]);
        }
        return gpus.workers.size() == ngpus ? gpus : null;
    }

    /** The attributes of one element, reporting into this read's problems. */
    private MscclAttributes attrs(final MscclElement element, final Set<String> known)
    {
        return new MscclAttributes(problems, element, known);
    }

    private static String stem(final String source)
    {
        final String file = source.substring(Math.max(source.lastIndexOf('/'), source.lastIndexOf('\\')) + 1);
        return file.endsWith(".xml") ? file.substring(0, file.length() - 4) : file;
    }
}
