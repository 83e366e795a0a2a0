package io.jccl.schedules.msccl;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import io.jccl.Protocol;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.Program;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes any {@link Program} (a built-in's, a loaded file's) as MSCCL XML in the current dialect, in the exact
 * subset MSCCL's C parser reads (MSCCL-XML.md section 1): no XML declaration, {@code <algo>} first, double quotes,
 * single spaces, every attribute of every element in the order msccl-tools writes them, {@code s} equal to the
 * step's position, {@code hasdep="1"} on exactly the steps something depends on, {@code nchannels} covering every
 * {@code chan}, and {@code maxBytes="0"} for unbounded.
 * <p>
 * Reading the output back with {@link MscclReader} gives the same workers ({@link Worker#equals}), the same
 * collective, rank count, root and chunk counts. Two things are normalised: a buffer cut into {@code segments x
 * slices} becomes {@code segments*slices} equal chunks (the same chunks whenever the element count divides by
 * them, which MSCCL's selection requires), and operands a step type does not use are written as {@code i} and
 * {@code -1} and read back as chunk 0 of the input (which is what the generators store there). Whether the C
 * executors accept the result also depends on limits the Program may exceed (64 steps per threadblock, 32
 * channels, nop dependency chains): {@link MscclValidator} in strict mode says.
 * <p>
 * A Program written from {@link #write(Program, Protocol, boolean, boolean)} has its jccl-only steps (the reversed
 * receive-reduce, {@code rrcr}) rewritten as steps MSCCL's runtime runs, with the same arithmetic
 * ({@link PortableSteps}): reading it back gives those steps, not the original ones. A schedule written as it is
 * keeps them under their jccl names.
 */
public final class MscclWriter
{
    private MscclWriter()
    {
    }

    /**
     * @param program    the program.
     * @param protocol   the protocol to declare.
     * @param inPlace    whether to declare it usable in place.
     * @param outOfPlace whether to declare it usable out of place.
     * @return the XML.
     * @throws JcclInvalidArgumentException if the Program's buffers cannot be cut into MSCCL's equal chunks, or its
     *                                      reversed steps cannot be rewritten ({@link PortableSteps}).
     */
    public static String write(final Program program, final Protocol protocol, final boolean inPlace,
        final boolean outOfPlace)
    {
        return write(MscclSchedule.of(PortableSteps.of(program), protocol, inPlace, outOfPlace));
    }

    /**
     * @param schedule the schedule; its metadata (name, protocol, in/out-of-place, byte range) is written as is.
     * @param file     where to write it (replaced).
     * @throws JcclSystemException if the file cannot be written.
     */
    public static void write(final MscclSchedule schedule, final Path file)
    {
        try
        {
            Files.writeString(file, write(schedule), StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new JcclSystemException("cannot write MSCCL XML to " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param schedule the schedule; its metadata (name, protocol, in/out-of-place, byte range) is written as is.
     * @return the XML.
     */
    public static String write(final MscclSchedule schedule)
    {
        final Program program = schedule.program();
        final StringBuilder sb = new StringBuilder(4096);
        sb.append("<algo");
        attr(sb, "name", schedule.name());
        attr(sb, "proto", protocol(schedule.protocol()));
        attr(sb, "nchannels", Math.max(schedule.nchannels(), program.channels()));
        attr(sb, "nchunksperloop", schedule.nchunksperloop());
        attr(sb, "ngpus", program.ranks());
        attr(sb, "coll", schedule.collective().xmlName());
        attr(sb, "inplace", schedule.inPlace() ? 1 : 0);
        attr(sb, "outofplace", schedule.outOfPlace() ? 1 : 0);
        attr(sb, "minBytes", schedule.minBytes());
        attr(sb, "maxBytes", schedule.maxBytes() == Long.MAX_VALUE ? 0 : schedule.maxBytes());
        if (schedule.redop() != null)
        {
            attr(sb, "redop", schedule.redop());
        }
        if (schedule.collective().isRooted())
        {
            attr(sb, "root", schedule.root());
        }
        sb.append(">\n");
        final MscclSourceMap map = schedule.sourceMap();
        for (int r = 0; r < program.ranks(); r++)
        {
            sb.append("  <gpu");
            attr(sb, "id", r);
            attr(sb, "i_chunks", map.declaredChunks(r, BufferKind.INPUT));
            attr(sb, "o_chunks", map.declaredChunks(r, BufferKind.OUTPUT));
            attr(sb, "s_chunks", map.declaredChunks(r, BufferKind.SCRATCH));
            sb.append(">\n");
            final List<Worker> workers = program.workers(r);
            final boolean[][] hasDep = MscclSourceMap.dependedOn(workers);
            for (int w = 0; w < workers.size(); w++)
            {
                threadblock(sb, w, workers.get(w), hasDep[w]);
            }
            sb.append("  </gpu>\n");
        }
        return sb.append("</algo>\n").toString();
    }

    private static void threadblock(final StringBuilder sb, final int id, final Worker worker,
        final boolean[] hasDep)
    {
        sb.append("    <tb");
        attr(sb, "id", id);
        attr(sb, "send", worker.sendPeer());
        attr(sb, "recv", worker.recvPeer());
        attr(sb, "chan", worker.channel());
        sb.append(">\n");
        for (int s = 0; s < worker.stepCount(); s++)
        {
            final Opcode op = worker.opcode(s);
            final int depWorker = worker.field(s, StepDescriptor.DEP_WORKER);
            sb.append("      <step");
            attr(sb, "s", s);
            attr(sb, "type", op.mscclName());
            operand(sb, "src", op.readsSource(), worker.field(s, StepDescriptor.SRC_BUFFER),
                worker.field(s, StepDescriptor.SRC_CHUNK));
            operand(sb, "dst", op.writesDestination(), worker.field(s, StepDescriptor.DST_BUFFER),
                worker.field(s, StepDescriptor.DST_CHUNK));
            attr(sb, "cnt", worker.field(s, StepDescriptor.CHUNK_COUNT));
            attr(sb, "depid", depWorker == StepDescriptor.NO_DEPENDENCY ? -1 : depWorker);
            attr(sb, "deps", depWorker == StepDescriptor.NO_DEPENDENCY ? -1 :
                worker.field(s, StepDescriptor.DEP_STEP));
            attr(sb, "hasdep", hasDep[s] ? 1 : 0);
            sb.append("/>\n");
        }
        sb.append("    </tb>\n");
    }

    private static void operand(final StringBuilder sb, final String prefix, final boolean used, final int buffer,
        final int chunk)
    {
        attr(sb, prefix + "buf", used ? BufferKind.of(buffer).mscclName() : BufferKind.INPUT.mscclName());
        attr(sb, prefix + "off", used ? chunk : -1);
    }

    private static String protocol(final Protocol protocol)
    {
        return switch (protocol)
        {
            case SIMPLE -> "Simple";
            case LL -> "LL";
            case LL128 -> "LL128";
        };
    }

    private static void attr(final StringBuilder sb, final String name, final long value)
    {
        sb.append(' ').append(name).append("=\"").append(value).append('"');
    }

    private static void attr(final StringBuilder sb, final String name, final String value)
    {
        sb.append(' ').append(name).append("=\"");
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            switch (c)
            {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                default ->
                {
                    if (c < 0x20)
                    {
                        sb.append("&#x").append(Integer.toHexString(c)).append(';');
                    }
                    else
                    {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
