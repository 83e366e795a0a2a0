package io.jccl.schedules.msccl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An element of an MSCCL XML document kept for lowering: name, line, element path, attributes in document order
 * and the children MSCCL knows. {@link MscclReader} builds the tree, {@link MscclLowering} turns it into a
 * Program.
 */
final class MscclElement
{
    /** The element name ({@code algo}, {@code gpu}, {@code tb}, {@code step} or {@code copy}). */
    final String name;
    /** The 1-based line of its start tag, or 0 when unknown. */
    final int line;
    /** Its element path, as {@code algo/gpu[id=3]/tb[id=1]/step[s=4]}. */
    final String path;
    /** Its attributes in document order. */
    final Map<String, String> attrs;
    /** Its known children in document order. */
    final List<MscclElement> children = new ArrayList<>();

    /**
     * @param name  the element name.
     * @param line  the 1-based line of its start tag, or 0 when unknown.
     * @param path  its element path.
     * @param attrs its attributes in document order.
     */
    MscclElement(final String name, final int line, final String path, final Map<String, String> attrs)
    {
        this.name = name;
        this.line = line;
        this.path = path;
        this.attrs = attrs;
    }

    /**
     * @param childName an element name.
     * @return the children of that name, in document order.
     */
    List<MscclElement> children(final String childName)
    {
        final List<MscclElement> list = new ArrayList<>();
        for (final MscclElement child : children)
        {
            if (child.name.equals(childName))
            {
                list.add(child);
            }
        }
        return list;
    }
}
