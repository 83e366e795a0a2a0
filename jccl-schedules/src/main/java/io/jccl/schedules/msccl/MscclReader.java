package io.jccl.schedules.msccl;

import io.jccl.schedules.Program;
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
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
        final MscclProblems problems = new MscclProblems(name);
        try
        {
            final MscclElement root = document(problems, in, xml);
            if (root == null || problems.hasErrors())
            {
                throw problems.failure();
            }
            final MscclSchedule schedule = new MscclLowering(problems).schedule(root, applyCopies);
            if (schedule == null || problems.hasErrors())
            {
                throw problems.failure();
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
            problems.error(0, "algo", "internal error of the reader (please report): " + e);
            throw problems.failure();
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

    /** XML to elements: the tree of known elements, or null after an error that ends the read. */
    private static MscclElement document(final MscclProblems problems, final InputStream in, final String xml)
    {
        XMLStreamReader x = null;
        final Deque<MscclElement> stack = new ArrayDeque<>();
        final Deque<String> skipped = new ArrayDeque<>();
        final Map<String, Integer> siblings = new LinkedHashMap<>();
        MscclElement root = null;
        boolean warnedText = false;
        try
        {
            x = in != null ? FACTORY.get().createXMLStreamReader(in) : FACTORY.get().createXMLStreamReader(
                new StringReader(xml));
            if (x.getVersion() != null)
            {
                problems.cExecutor(1, "algo", "the XML declaration stops MSCCL's C parser (\"expected >\"); " +
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
                        final MscclElement parent = stack.peek();
                        if (parent == null && root != null)
                        {
                            problems.error(line, name, "a second root element <" + name + ">");
                            return null;
                        }
                        if (parent == null && !name.equals("algo"))
                        {
                            problems.error(line, name, "the root element must be <algo>, not <" + name + ">");
                            return null;
                        }
                        if (parent != null && !CHILDREN.get(parent.name).contains(name))
                        {
                            problems.warning(line, parent.path + "/" + name, "element <" + name + "> in <" +
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
                        final MscclElement element = new MscclElement(name, line, path, attrs);
                        cLimits(problems, element);
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
                            final MscclElement ended = stack.pop();
                            if (ended.children.size() > C_MAX_CHILDREN)
                            {
                                problems.cExecutor(ended.line, ended.path, ended.children.size() + " child elements: " +
                                    "MSCCL's C parser reads at most " + C_MAX_CHILDREN);
                            }
                        }
                    }
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA ->
                    {
                        if (!warnedText && !x.isWhiteSpace() && !x.getText().isBlank())
                        {
                            warnedText = true;
                            problems.warning(line(x), stack.isEmpty() ? "algo" : stack.peek().path,
                                "text content ignored");
                        }
                    }
                    case XMLStreamConstants.PROCESSING_INSTRUCTION -> problems.cExecutor(line(x),
                        stack.isEmpty() ? "algo" : stack.peek().path,
                        "a processing instruction stops MSCCL's C parser");
                    case XMLStreamConstants.DTD -> problems.cExecutor(line(x), "algo",
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
            problems.error(Math.max(line, 0), stack.isEmpty() ? "algo" : stack.peek().path,
                "not well-formed XML: " + message + (peer ? " (a threadblock has at most one send peer and " +
                "one receive peer: split it into one threadblock per peer)" : ""));
            return null;
        }
        catch (final RuntimeException e)
        {
            problems.error(x == null ? 0 : line(x), stack.isEmpty() ? "algo" : stack.peek().path,
                "the XML parser failed: " + e);
            return null;
        }
        finally
        {
            close(x);
        }
        if (root == null)
        {
            problems.error(0, "algo", "no <algo> element");
        }
        return root;
    }

    private static void cLimits(final MscclProblems problems, final MscclElement element)
    {
        if (element.attrs.size() > C_MAX_ATTRIBUTES)
        {
            problems.cExecutor(element.line, element.path, element.attrs.size() + " attributes: MSCCL's C parser " +
                "reads at most " + C_MAX_ATTRIBUTES + " per element and ignores the rest");
        }
        for (final Map.Entry<String, String> e : element.attrs.entrySet())
        {
            if (e.getKey().length() > C_MAX_TEXT || e.getValue().length() > C_MAX_TEXT)
            {
                problems.cExecutor(element.line, element.path, "attribute " + shorten(e.getKey()) + " has a name or " +
                    "value longer than " + C_MAX_TEXT + " characters, the limit of MSCCL's C parser");
            }
        }
    }

    private static String segment(final MscclElement parent, final String name, final Map<String, String> attrs,
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

    /**
     * @param raw an attribute name or value.
     * @return it, cut to 40 characters for a message.
     */
    static String shorten(final String raw)
    {
        return raw.length() > 40 ? raw.substring(0, 40) + "..." : raw;
    }

    /**
     * @param values a sorted list of ints.
     * @return them as ranges, as "0-2, 5".
     */
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
}
