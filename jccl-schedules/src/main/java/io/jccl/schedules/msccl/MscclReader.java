package io.jccl.schedules.msccl;

import io.jccl.Collective;
import io.jccl.Protocol;
import io.jccl.schedules.BufferKind;
import io.jccl.schedules.ChunkLayout;
import io.jccl.schedules.Opcode;
import io.jccl.schedules.Program;
import io.jccl.schedules.StepDescriptor;
import io.jccl.schedules.Worker;
import io.jccl.schedules.msccl.MscclProblem.Severity;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads MSCCL XML (MSCCL-XML.md) into an {@link MscclSchedule}, with the JDK's StAX parser. Accepts a superset of
 * what MSCCL's C executors load: both dialects (the current executor's {@code reducescatter}, {@code outofplace},
 * {@code minBytes} and {@code maxBytes}; the older one's {@code reduce_scatter} and defaults), an XML declaration,
 * comments, any attribute order and quoting, numbers as C's {@code strtol(s, NULL, 0)} reads them (a leading
 * {@code 0x} is hex, a leading {@code 0} octal, with a warning).
 * <p>
 * Mapping to the {@link Program}: {@code <tb id=k>} is worker {@code k} of its rank (ids must run {@code 0..n-1});
 * a {@code <step>} is a step with its opcode, operands, {@code cnt} (consecutive chunks) and its one dependency
 * ({@code depid}, {@code deps}); {@code nop} steps stay NOP steps, so a chain of nops keeps every dependency. Every
 * buffer is cut into equal chunks ({@code ChunkLayout(chunks, 1)}) of {@code nBytes / nchunksperloop}, whatever
 * a {@code <gpu>} declares (it may declare 0 for a buffer it does not use); the scratch buffer has as many chunks
 * as the largest {@code s_chunks}. Operands a step type does not use are stored as chunk 0 of the input, a
 * {@code nop}'s {@code cnt} as 0, and {@code depid="-1"} as no dependency with step 0, so that equal files give
 * equal Programs.
 * <p>
 * TACCL's {@code <copy i_off="a" o_off="b"/>} elements are precopies {@code o[b] = i[a]} that the C executors
 * ignore but TACCL's out-of-place AllToAll needs. By default they are applied: as COPY steps of one extra worker
 * per rank, appended after the threadblocks (so no threadblock's index changes), without peers; a copy that is a
 * no-op because input and output alias (every copy of an in-place-only file) is dropped. The semantic check
 * reports any step that races with such a copy.
 * <p>
 * Errors that make a Program impossible (malformed XML, unknown step types, missing or non-numeric attributes,
 * wrong ids) are collected, each with its line and element path, and thrown together as one
 * {@link MscclFormatException}; nothing else is ever thrown. Whatever a Program can hold but is wrong (offsets out
 * of range, missing dependency targets, mismatched queues, deadlocks) is {@link MscclValidator}'s to report.
 */
public final class MscclReader
{
    /** Largest {@code ngpus} read. */
    public static final int MAX_RANKS = 1 << 14;
    /** Largest chunk count of any buffer read. */
    public static final int MAX_CHUNKS = 1 << 20;
    /** Largest threadblock id read. */
    public static final int MAX_THREADBLOCKS = 1 << 16;

    /** Attributes per element that MSCCL's C parser reads. */
    static final int C_MAX_ATTRIBUTES = 16;
    /** Characters of an attribute name or value that MSCCL's C parser reads. */
    static final int C_MAX_TEXT = 255;
    /** Children per element that MSCCL's C parser reads. */
    static final int C_MAX_CHILDREN = 1024;

    private static final ThreadLocal<XMLInputFactory> FACTORY = ThreadLocal.withInitial(MscclReader::factory);
    private static final Map<String, Set<String>> CHILDREN = Map.of(
        "algo", Set.of("gpu"),
        "gpu", Set.of("tb", "copy"),
        "tb", Set.of("step"),
        "step", Set.of(),
        "copy", Set.of());
    private static final Set<String> ALGO_ATTRS = Set.of("name", "proto", "nchannels", "nchunksperloop", "ngpus",
        "coll", "inplace", "outofplace", "minBytes", "maxBytes", "nthreads", "redop", "root");
    private static final Set<String> GPU_ATTRS = Set.of("id", "i_chunks", "o_chunks", "s_chunks");
    private static final Set<String> TB_ATTRS = Set.of("id", "send", "recv", "chan");
    private static final Set<String> STEP_ATTRS = Set.of("s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt",
        "depid", "deps", "hasdep");
    private static final Set<String> COPY_ATTRS = Set.of("i_off", "o_off");

    private final boolean applyCopies;

    /** A reader that applies TACCL {@code <copy>} precopies. */
    public MscclReader()
    {
        this(true);
    }

    /**
     * @param applyCopies whether to apply TACCL {@code <copy>} precopies (as TACCL intends) or ignore them (as
     *                    MSCCL's C executors do).
     */
    public MscclReader(final boolean applyCopies)
    {
        this.applyCopies = applyCopies;
    }

    /**
     * @param file an MSCCL XML file.
     * @return the schedule.
     * @throws MscclFormatException if the file cannot be read or has errors.
     */
    public MscclSchedule read(final Path file)
    {
        final String source = String.valueOf(file);
        final byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (final IOException | RuntimeException e)
        {
            throw new MscclFormatException(source,
                List.of(new MscclProblem(Severity.ERROR, 0, "algo", "cannot read the file: " + e)));
        }
        return read(new ByteArrayInputStream(bytes), source);
    }

    /**
     * @param in     MSCCL XML bytes (the encoding is taken from the XML declaration, UTF-8 by default); not closed.
     * @param source a name for messages (a file name).
     * @return the schedule.
     * @throws MscclFormatException if the document has errors.
     */
    public MscclSchedule read(final InputStream in, final String source)
    {
        return parse(in, null, source);
    }

    /**
     * @param xml    an MSCCL XML document.
     * @param source a name for messages.
     * @return the schedule.
     * @throws MscclFormatException if the document has errors.
     */
    public MscclSchedule readString(final String xml, final String source)
    {
        return parse(null, xml, source);
    }

    private MscclSchedule parse(final InputStream in, final String xml, final String source)
    {
        final String name = source == null ? "<msccl xml>" : source;
        final Parse parse = new Parse(name);
        try
        {
            final Element root = parse.document(in, xml);
            if (root == null || parse.hasErrors())
            {
                throw parse.failure();
            }
            final MscclSchedule schedule = parse.schedule(root, applyCopies);
            if (schedule == null || parse.hasErrors())
            {
                throw parse.failure();
            }
            return schedule;
        }
        catch (final MscclFormatException e)
        {
            throw e;
        }
        catch (final RuntimeException | StackOverflowError e)
        {
            // the contract is MscclFormatException and nothing else, even for a bug of ours: say so plainly
            parse.error(0, "algo", "internal error of the reader (please report): " + e);
            throw parse.failure();
        }
    }

    private static XMLInputFactory factory()
    {
        final XMLInputFactory factory = XMLInputFactory.newFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        factory.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, false);
        factory.setProperty(XMLInputFactory.IS_COALESCING, false);
        return factory;
    }

    /** An element kept for interpretation: name, line, attributes in document order, known children. */
    private static final class Element
    {
        final String name;
        final int line;
        final String path;
        final Map<String, String> attrs;
        final List<Element> children = new ArrayList<>();

        Element(final String name, final int line, final String path, final Map<String, String> attrs)
        {
            this.name = name;
            this.line = line;
            this.path = path;
            this.attrs = attrs;
        }

        List<Element> children(final String childName)
        {
            final List<Element> list = new ArrayList<>();
            for (final Element child : children)
            {
                if (child.name.equals(childName))
                {
                    list.add(child);
                }
            }
            return list;
        }
    }

    /** One read: the problems found so far and the interpretation of the element tree. */
    private static final class Parse
    {
        private final String source;
        private final List<MscclProblem> errors = new ArrayList<>();
        private final List<MscclProblem> notes = new ArrayList<>();

        Parse(final String source)
        {
            this.source = source;
        }

        boolean hasErrors()
        {
            return !errors.isEmpty();
        }

        MscclFormatException failure()
        {
            return new MscclFormatException(source, errors);
        }

        void error(final int line, final String path, final String message)
        {
            errors.add(new MscclProblem(Severity.ERROR, line, path, message));
        }

        void warning(final int line, final String path, final String message)
        {
            notes.add(new MscclProblem(Severity.WARNING, line, path, message));
        }

        void cExecutor(final int line, final String path, final String message)
        {
            notes.add(new MscclProblem(Severity.C_EXECUTOR, line, path, message));
        }

        // ---------------------------------------------------------------- XML to elements

        Element document(final InputStream in, final String xml)
        {
            XMLStreamReader x = null;
            final Deque<Element> stack = new ArrayDeque<>();
            final Deque<String> skipped = new ArrayDeque<>();
            final Map<String, Integer> siblings = new LinkedHashMap<>();
            Element root = null;
            boolean warnedText = false;
            try
            {
                x = in != null ? FACTORY.get().createXMLStreamReader(in) : FACTORY.get().createXMLStreamReader(
                    new StringReader(xml));
                if (x.getVersion() != null)
                {
                    cExecutor(1, "algo", "the XML declaration stops MSCCL's C parser (\"expected >\"); " +
                        "remove it for the C executors");
                }
                while (x.hasNext())
                {
                    final int event = x.next();
                    switch (event)
                    {
                        case XMLStreamConstants.START_ELEMENT ->
                        {
                            final String name = x.getLocalName();
                            final int line = line(x);
                            if (!skipped.isEmpty())
                            {
                                skipped.push(name);
                                continue;
                            }
                            final Element parent = stack.peek();
                            if (parent == null && root != null)
                            {
                                error(line, name, "a second root element <" + name + ">");
                                return null;
                            }
                            if (parent == null && !name.equals("algo"))
                            {
                                error(line, name, "the root element must be <algo>, not <" + name + ">");
                                return null;
                            }
                            if (parent != null && !CHILDREN.get(parent.name).contains(name))
                            {
                                warning(line, parent.path + "/" + name, "element <" + name + "> in <" +
                                    parent.name + "> ignored, as MSCCL's C parser ignores it");
                                skipped.push(name);
                                continue;
                            }
                            final Map<String, String> attrs = new LinkedHashMap<>();
                            for (int i = 0; i < x.getAttributeCount(); i++)
                            {
                                attrs.put(x.getAttributeLocalName(i), x.getAttributeValue(i));
                            }
                            final String path = parent == null ? "algo" :
                                parent.path + "/" + segment(parent, name, attrs, siblings);
                            final Element element = new Element(name, line, path, attrs);
                            cLimits(element);
                            if (parent == null)
                            {
                                root = element;
                            }
                            else
                            {
                                parent.children.add(element);
                            }
                            stack.push(element);
                        }
                        case XMLStreamConstants.END_ELEMENT ->
                        {
                            if (!skipped.isEmpty())
                            {
                                skipped.pop();
                            }
                            else
                            {
                                final Element ended = stack.pop();
                                if (ended.children.size() > C_MAX_CHILDREN)
                                {
                                    cExecutor(ended.line, ended.path, ended.children.size() + " child elements: " +
                                        "MSCCL's C parser reads at most " + C_MAX_CHILDREN);
                                }
                            }
                        }
                        case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA ->
                        {
                            if (!warnedText && !x.isWhiteSpace() && !x.getText().isBlank())
                            {
                                warnedText = true;
                                warning(line(x), stack.isEmpty() ? "algo" : stack.peek().path,
                                    "text content ignored");
                            }
                        }
                        case XMLStreamConstants.PROCESSING_INSTRUCTION -> cExecutor(line(x),
                            stack.isEmpty() ? "algo" : stack.peek().path,
                            "a processing instruction stops MSCCL's C parser");
                        case XMLStreamConstants.DTD -> cExecutor(line(x), "algo",
                            "a document type declaration stops MSCCL's C parser");
                        default ->
                        {
                            // comments, whitespace, end of document
                        }
                    }
                }
            }
            catch (final XMLStreamException e)
            {
                final int line = e.getLocation() == null ? 0 : e.getLocation().getLineNumber();
                final String message = xmlMessage(e);
                final boolean peer = message.contains("\"send\" was already specified") ||
                    message.contains("\"recv\" was already specified");
                error(Math.max(line, 0), stack.isEmpty() ? "algo" : stack.peek().path,
                    "not well-formed XML: " + message + (peer ? " (a threadblock has at most one send peer and " +
                    "one receive peer: split it into one threadblock per peer)" : ""));
                return null;
            }
            catch (final RuntimeException e)
            {
                error(x == null ? 0 : line(x), stack.isEmpty() ? "algo" : stack.peek().path,
                    "the XML parser failed: " + e);
                return null;
            }
            finally
            {
                close(x);
            }
            if (root == null)
            {
                error(0, "algo", "no <algo> element");
            }
            return root;
        }

        private void cLimits(final Element element)
        {
            if (element.attrs.size() > C_MAX_ATTRIBUTES)
            {
                cExecutor(element.line, element.path, element.attrs.size() + " attributes: MSCCL's C parser reads " +
                    "at most " + C_MAX_ATTRIBUTES + " per element and ignores the rest");
            }
            for (final Map.Entry<String, String> e : element.attrs.entrySet())
            {
                if (e.getKey().length() > C_MAX_TEXT || e.getValue().length() > C_MAX_TEXT)
                {
                    cExecutor(element.line, element.path, "attribute " + shorten(e.getKey()) + " has a name or " +
                        "value longer than " + C_MAX_TEXT + " characters, the limit of MSCCL's C parser");
                }
            }
        }

        private static String segment(final Element parent, final String name, final Map<String, String> attrs,
            final Map<String, Integer> siblings)
        {
            final String key = parent.path + "/" + name;
            final int position = siblings.merge(key, 1, Integer::sum);
            final String id = switch (name)
            {
                case "gpu", "tb" -> attrs.get("id") == null ? null : "id=" + attrs.get("id");
                case "step" -> attrs.get("s") == null ? null : "s=" + attrs.get("s");
                default -> null;
            };
            return name + "[" + (id == null ? Integer.toString(position) : id) + "]";
        }

        private static int line(final XMLStreamReader x)
        {
            try
            {
                return Math.max(0, x.getLocation().getLineNumber());
            }
            catch (final RuntimeException e)
            {
                return 0;
            }
        }

        private static void close(final XMLStreamReader x)
        {
            if (x != null)
            {
                try
                {
                    x.close();
                }
                catch (final XMLStreamException | RuntimeException ignored)
                {
                    // nothing to release that matters: the input is not ours to close
                }
            }
        }

        private static String xmlMessage(final XMLStreamException e)
        {
            final String message = String.valueOf(e.getMessage());
            final int at = message.indexOf("Message: ");
            return (at >= 0 ? message.substring(at + "Message: ".length()) : message).strip();
        }

        // ---------------------------------------------------------------- elements to a schedule

        MscclSchedule schedule(final Element algo, final boolean applyCopies)
        {
            final Attrs a = new Attrs(algo, ALGO_ATTRS);
            String name = a.string("name", false);
            if (name == null)
            {
                cExecutor(algo.line, algo.path, "no name attribute: the older MSCCL runtime requires one");
                name = stem(source);
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
                cExecutor(algo.line, algo.path, "no outofplace attribute: msccl-executor-nccl and RCCL reject the " +
                    "file (the older dialect); read as outofplace = 1 - inplace");
                outofplace = inplace == null ? null : 1 - inplace;
            }
            Long minBytes = a.int64("minBytes", false);
            Long maxBytes = a.int64("maxBytes", false);
            if (!a.has("minBytes") || !a.has("maxBytes"))
            {
                cExecutor(algo.line, algo.path, "no minBytes/maxBytes: msccl-executor-nccl and RCCL reject the " +
                    "file (the older dialect); read as 0 and unbounded");
            }
            minBytes = a.has("minBytes") ? minBytes : Long.valueOf(0);
            maxBytes = a.has("maxBytes") ? maxBytes : Long.valueOf(0);
            if (minBytes != null && minBytes < 0)
            {
                error(algo.line, algo.path, "minBytes=" + minBytes + " is negative");
            }
            if (maxBytes != null && maxBytes < 0)
            {
                error(algo.line, algo.path, "maxBytes=" + maxBytes + " is negative");
            }
            if (minBytes != null && maxBytes != null && maxBytes > 0 && minBytes > maxBytes)
            {
                error(algo.line, algo.path, "minBytes=" + minBytes + " exceeds maxBytes=" + maxBytes);
            }
            final Integer nthreads = a.integer("nthreads", false, 0, Integer.MAX_VALUE);
            if (nthreads != null && nthreads % 32 != 0)
            {
                cExecutor(algo.line, algo.path, "nthreads=" + nthreads + " is not a multiple of 32, which the " +
                    "older MSCCL runtime requires");
            }
            final String redop = a.string("redop", false);
            final Integer root = root(a, collective, ngpus);
            a.reportUnknown();
            if (ngpus != null && chunksPerLoop != null && collective != null && ngpus > 0 &&
                chunksPerLoop % ngpus != 0 && collective != Collective.ALL_REDUCE &&
                !collective.isRooted())
            {
                error(algo.line, algo.path, "nchunksperloop=" + chunksPerLoop + " is not a multiple of ngpus=" +
                    ngpus + ", as " + collective.xmlName() + " needs (each rank's part is nchunksperloop/ngpus " +
                    "chunks)");
            }
            if (ngpus == null || collective == null || chunksPerLoop == null || hasErrors())
            {
                // without these no gpu can be checked against anything; report what the gpus say anyway
                gpus(algo, ngpus == null ? -1 : ngpus, null, 0, applyCopies, false);
                return null;
            }
            final boolean inPlace = inplace != null && inplace != 0;
            final boolean outOfPlace = outofplace != null && outofplace != 0;
            final Gpus gpus = gpus(algo, ngpus, collective, chunksPerLoop, applyCopies, inPlace && !outOfPlace);
            if (gpus == null || hasErrors())
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
                redop, collective.isRooted() ? root : -1, source, map, notes);
        }

        private Collective collective(final Attrs a)
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

        private Protocol protocol(final Attrs a)
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

        private Integer root(final Attrs a, final Collective collective, final Integer ngpus)
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

        private Gpus gpus(final Element algo, final int ngpus, final Collective collective, final int chunksPerLoop,
            final boolean applyCopies, final boolean inPlaceOnly)
        {
            final Map<Integer, Element> byId = new TreeMap<>();
            for (final Element gpu : algo.children("gpu"))
            {
                final Attrs a = new Attrs(gpu, GPU_ATTRS);
                final Integer id = a.integer("id", true, 0, ngpus < 0 ? Integer.MAX_VALUE : ngpus - 1);
                if (id != null)
                {
                    final Element first = byId.putIfAbsent(id, gpu);
                    if (first != null)
                    {
                        error(gpu.line, gpu.path, "a second <gpu id=\"" + id + "\"> (the first is at line " +
                            first.line + ")");
                    }
                }
            }
            if (ngpus > 0 && byId.size() < ngpus && errors.isEmpty())
            {
                final List<Integer> missing = new ArrayList<>();
                for (int r = 0; r < ngpus; r++)
                {
                    if (!byId.containsKey(r))
                    {
                        missing.add(r);
                    }
                }
                error(algo.line, algo.path, "ngpus=" + ngpus + " but there is no <gpu> for rank" +
                    (missing.size() == 1 ? " " : "s ") + ranges(missing));
            }
            final Gpus gpus = new Gpus();
            if (collective == null || ngpus <= 0)
            {
                for (final Element gpu : algo.children("gpu"))
                {
                    gpu(gpu, Integer.MAX_VALUE, Integer.MAX_VALUE, null, false, null);
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
                final Element gpu = byId.get(r);
                if (gpu == null)
                {
                    continue;
                }
                final GpuResult result = gpu(gpu, naturalIn, naturalOut, collective, applyCopies,
                    inPlaceOnly ? new Cells(collective, r, naturalIn, naturalOut, 0, true) : null);
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

        /** One gpu read. */
        private static final class GpuResult
        {
            List<Worker> workers;
            int[] declared;
            int[] tbLines;
            int[][] stepLines;
            boolean[][] hasDep;
            int precopy = -1;
            int[] copyIndex;
        }

        private GpuResult gpu(final Element gpu, final int naturalIn, final int naturalOut,
            final Collective collective, final boolean applyCopies, final Cells inPlaceOnly)
        {
            final Attrs a = new Attrs(gpu, GPU_ATTRS);
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
            final TreeMap<Integer, Element> tbs = new TreeMap<>();
            for (final Element tb : gpu.children("tb"))
            {
                final Integer id = new Attrs(tb, TB_ATTRS).integer("id", true, 0, MAX_THREADBLOCKS - 1);
                if (id != null)
                {
                    final Element first = tbs.putIfAbsent(id, tb);
                    if (first != null)
                    {
                        error(tb.line, tb.path, "a second <tb id=\"" + id + "\"> on this gpu (the first is at " +
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
                a.error("tb ids must run from 0 without gaps, as MSCCL requires: tb " + ranges(missing) +
                    " missing");
            }
            final GpuResult result = new GpuResult();
            result.workers = new ArrayList<>();
            result.declared = new int[] {in == null ? 0 : in, out == null ? 0 : out, scratch == null ? 0 : scratch};
            final List<int[]> lines = new ArrayList<>();
            final List<boolean[]> hasDep = new ArrayList<>();
            final List<Integer> tbLines = new ArrayList<>();
            for (final Element tb : tbs.values())
            {
                final Worker worker = tb(tb, lines, hasDep);
                tbLines.add(tb.line);
                if (worker != null)
                {
                    result.workers.add(worker);
                }
            }
            copies(gpu, applyCopies, inPlaceOnly, result, lines, hasDep, tbLines);
            if (collective == null || hasErrors())
            {
                return null;
            }
            result.tbLines = tbLines.stream().mapToInt(Integer::intValue).toArray();
            result.stepLines = lines.toArray(new int[0][]);
            result.hasDep = hasDep.toArray(new boolean[0][]);
            return result;
        }

        private void copies(final Element gpu, final boolean applyCopies, final Cells inPlaceOnly,
            final GpuResult result, final List<int[]> lines, final List<boolean[]> hasDep,
            final List<Integer> tbLines)
        {
            final List<Element> copies = gpu.children("copy");
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
                final Element copy = copies.get(k);
                final Attrs a = new Attrs(copy, COPY_ATTRS);
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
                warning(copies.get(0).line, gpu.path + "/copy", copies.size() + " TACCL <copy> precopies ignored " +
                    "(the reader was asked to ignore them, as MSCCL's C executors do)");
                return;
            }
            if (copyLines.isEmpty() || hasErrors())
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
                warning(copies.get(0).line, gpu.path + "/copy", dropped + " in-place no-op <copy> elements dropped");
            }
        }

        private Worker tb(final Element tb, final List<int[]> lines, final List<boolean[]> hasDeps)
        {
            final Attrs a = new Attrs(tb, TB_ATTRS);
            final Integer send = a.integer("send", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
            final Integer recv = a.integer("recv", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
            final Integer chan = a.integer("chan", true, Integer.MIN_VALUE, Integer.MAX_VALUE);
            a.reportUnknown();
            final Worker.Builder builder = new Worker.Builder(send == null ? Worker.NO_PEER : send,
                recv == null ? Worker.NO_PEER : recv, chan == null ? 0 : chan);
            final List<Element> steps = tb.children("step");
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
        private boolean step(final Element step, final int position, final Worker.Builder builder)
        {
            final Attrs a = new Attrs(step, STEP_ATTRS);
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
                        "\" (s, r, rcs, rrs, rrc, rrcs, cpy, re or nop)");
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

        /** The attributes of one element: typed reads that report problems at the element. */
        private final class Attrs
        {
            private final Element element;
            private final Set<String> known;

            Attrs(final Element element, final Set<String> known)
            {
                this.element = element;
                this.known = known;
            }

            boolean has(final String name)
            {
                return element.attrs.containsKey(name);
            }

            void error(final String message)
            {
                Parse.this.error(element.line, element.path, message);
            }

            void warning(final String message)
            {
                Parse.this.warning(element.line, element.path, message);
            }

            void cExecutor(final String message)
            {
                Parse.this.cExecutor(element.line, element.path, message);
            }

            void reportUnknown()
            {
                for (final String name : element.attrs.keySet())
                {
                    if (!known.contains(name))
                    {
                        warning("attribute " + name + " ignored");
                    }
                }
            }

            String string(final String name, final boolean required)
            {
                final String value = element.attrs.get(name);
                if (value == null && required)
                {
                    error("missing attribute " + name);
                }
                return value;
            }

            Integer integer(final String name, final boolean required, final long min, final long max)
            {
                final Long value = int64(name, required);
                if (value == null)
                {
                    return null;
                }
                if (value < min || value > max)
                {
                    error(name + "=" + element.attrs.get(name).strip() + " is out of range [" + min + ", " + max +
                        "]");
                    return null;
                }
                return value.intValue();
            }

            Integer flag(final String name, final boolean required)
            {
                final Integer value = integer(name, required, Integer.MIN_VALUE, Integer.MAX_VALUE);
                if (value != null && value != 0 && value != 1)
                {
                    warning(name + "=" + value + " read as 1 (expected 0 or 1)");
                    return 1;
                }
                return value;
            }

            Long int64(final String name, final boolean required)
            {
                final String raw = string(name, required);
                if (raw == null)
                {
                    return null;
                }
                final long[] parsed = parseC(raw);
                if (parsed == null)
                {
                    error(name + "=\"" + shorten(raw) + "\" is not an integer");
                    return null;
                }
                if (parsed[1] != 10)
                {
                    warning(name + "=\"" + raw.strip() + "\" read as " + (parsed[1] == 16 ? "hexadecimal" :
                        "octal") + " " + parsed[0] + ", as MSCCL's C parser (strtol base 0) reads it");
                }
                return parsed[0];
            }

            BufferKind buffer(final String name, final boolean required)
            {
                final String raw = string(name, required);
                if (raw == null)
                {
                    return null;
                }
                return switch (raw)
                {
                    case "i" -> BufferKind.INPUT;
                    case "o" -> BufferKind.OUTPUT;
                    case "s" -> BufferKind.SCRATCH;
                    default ->
                    {
                        error(name + "=\"" + shorten(raw) + "\" is not a buffer (i, o or s)");
                        yield null;
                    }
                };
            }
        }
    }

    /**
     * C's {@code strtol(s, NULL, 0)} over the whole (stripped) string: an optional sign, then {@code 0x} and hex
     * digits, {@code 0} and octal digits, or decimal digits.
     *
     * @param raw the text.
     * @return {value, radix}, or null when it is not such a number or does not fit a long.
     */
    static long[] parseC(final String raw)
    {
        final String text = raw.strip();
        int i = 0;
        String sign = "";
        if (i < text.length() && (text.charAt(i) == '-' || text.charAt(i) == '+'))
        {
            sign = text.charAt(i) == '-' ? "-" : "";
            i++;
        }
        int radix = 10;
        if (text.startsWith("0x", i) || text.startsWith("0X", i))
        {
            radix = 16;
            i += 2;
        }
        else if (text.startsWith("0", i) && text.length() > i + 1)
        {
            radix = 8;
            i += 1;
        }
        final String digits = text.substring(i);
        if (digits.isEmpty())
        {
            return null;
        }
        for (int k = 0; k < digits.length(); k++)
        {
            final char c = digits.charAt(k);
            if (c > 0x7f || Character.digit(c, radix) < 0)
            {
                return null;
            }
        }
        try
        {
            return new long[] {Long.parseLong(sign + digits, radix), radix};
        }
        catch (final NumberFormatException e)
        {
            return null;
        }
    }

    private static String shorten(final String raw)
    {
        return raw.length() > 40 ? raw.substring(0, 40) + "..." : raw;
    }

    /** @return "0-2, 5" for a sorted list of ints. */
    static String ranges(final List<Integer> values)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < values.size(); )
        {
            int j = i;
            while (j + 1 < values.size() && values.get(j + 1) == values.get(j) + 1)
            {
                j++;
            }
            sb.append(sb.length() == 0 ? "" : ", ").append(values.get(i));
            if (j > i)
            {
                sb.append('-').append(values.get(j));
            }
            i = j + 1;
        }
        return sb.toString();
    }

    private static String stem(final String source)
    {
        final String file = source.substring(Math.max(source.lastIndexOf('/'), source.lastIndexOf('\\')) + 1);
        return file.endsWith(".xml") ? file.substring(0, file.length() - 4) : file;
    }
}
