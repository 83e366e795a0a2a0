package io.jccl.kernels.cuda;

import io.jccl.DataType;
import io.jccl.Protocol;
import io.jccl.ReduceOp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of jccl's CUDA kernels, from the list the CUDA sources generate them from: {@code cuda-src/jccl_types.def},
 * read once from its copy in this module's resources ({@value #DEF_RESOURCE}). The CUDA side expands the same list
 * with macros, so a type, operator or protocol added there appears here without a Java change, and
 * {@code KernelListTest} checks that each shipped PTX defines exactly the kernels named here.
 * <p>
 * Element types and operators are found by their ids ({@link DataType#id()}, {@link ReduceOp.Kind#id()},
 * {@link Protocol#id()}), and named by the list's identifier-safe names ({@code float16}, {@code f8e4m3},
 * {@code premulsum}). AVG has no kernel of its own: on floating types it runs the premulsum kernel with 1/n, on
 * integers the sum kernel and then the divide kernel, so {@link #reduce} and {@link #interpreter(Protocol, DataType,
 * ReduceOp.Kind)} map it there.
 * <p>
 * Stateless and thread-safe; the list is parsed when the class initialises, and a malformed or inconsistent list
 * fails that initialisation with a message naming the line.
 */
public final class KernelNames
{
    /** Class-path resource holding the copy of {@code cuda-src/jccl_types.def} that {@code build-ptx.sh} writes. */
    public static final String DEF_RESOURCE = "/io/jccl/kernels/jccl_types.def";
    /** Base name of the PTX of the stand-alone element kernels ({@code cuda-src/elementwise.cu}). */
    public static final String ELEMENTWISE = "elementwise";
    /** Base name of the PTX of the interpreter kernels ({@code cuda-src/interpreter.cu}). */
    public static final String INTERPRETER = "interpreter";

    private static final Pattern ENTRY = Pattern.compile(
        "^(JCCL_TYPE|JCCL_INT_TYPE|JCCL_FLOAT_TYPE|JCCL_OP|JCCL_PROTO)\\s*\\(([^()]*)\\)\\s*$");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private static final String[] TYPE_NAMES = new String[DataType.values().length];
    private static final boolean[] INTEGER = new boolean[DataType.values().length];
    private static final String[] OP_NAMES = new String[ReduceOp.Kind.values().length];
    private static final String[] PROTO_NAMES = new String[Protocol.values().length];
    private static final Set<String> ELEMENTWISE_NAMES;
    private static final Set<String> INTERPRETER_NAMES;

    static
    {
        parse(readDef());
        final Set<String> elementwise = new TreeSet<>();
        final Set<String> interpreter = new TreeSet<>();
        elementwise.add(copy());
        for (final DataType type : DataType.values())
        {
            for (final ReduceOp.Kind kind : ReduceOp.Kind.values())
            {
                if (OP_NAMES[kind.ordinal()] != null)
                {
                    elementwise.add(reduce(type, kind));
                }
            }
            elementwise.add(scale(type));
            if (INTEGER[type.ordinal()])
            {
                elementwise.add(divide(type));
            }
        }
        for (final Protocol protocol : Protocol.values())
        {
            if (PROTO_NAMES[protocol.ordinal()] == null)
            {
                continue;
            }
            interpreter.add(interpreterCopy(protocol));
            for (final DataType type : DataType.values())
            {
                for (final ReduceOp.Kind kind : ReduceOp.Kind.values())
                {
                    if (OP_NAMES[kind.ordinal()] != null)
                    {
                        interpreter.add(interpreter(protocol, type, kind));
                    }
                }
            }
        }
        ELEMENTWISE_NAMES = Collections.unmodifiableSet(elementwise);
        INTERPRETER_NAMES = Collections.unmodifiableSet(interpreter);
    }

    private KernelNames()
    {
    }

    /**
     * @return every kernel of {@code elementwise.ptx}, sorted: {@code jccl_copy}, {@code jccl_reduce_<type>_<op>}
     * for every type and operator, {@code jccl_scale_<type>} for every type, {@code jccl_divide_<type>} for the
     * integer types.
     */
    public static Set<String> elementwise()
    {
        return ELEMENTWISE_NAMES;
    }

    /**
     * @return every kernel {@code interpreter.ptx} must define, sorted: {@code jccl_interp_<proto>_<type>_<op>} for
     * every protocol, type and operator of the list, and {@code jccl_interp_<proto>_copy} for every protocol.
     */
    public static Set<String> interpreter()
    {
        return INTERPRETER_NAMES;
    }

    /**
     * @param base a PTX base name, {@value #ELEMENTWISE} or {@value #INTERPRETER}.
     * @return the kernels that PTX must define.
     * @throws IllegalArgumentException for any other base name.
     */
    public static Set<String> forPtx(final String base)
    {
        if (ELEMENTWISE.equals(base))
        {
            return ELEMENTWISE_NAMES;
        }
        if (INTERPRETER.equals(base))
        {
            return INTERPRETER_NAMES;
        }
        throw new IllegalArgumentException("no kernel list for PTX '" + base + "': known are " + ELEMENTWISE +
            " and " + INTERPRETER);
    }

    /**
     * @param type the element type.
     * @param kind the operator; AVG maps to PREMULSUM on floating types and to SUM on integers.
     * @return the element kernel {@code jccl_reduce_<type>_<op>}.
     */
    public static String reduce(final DataType type, final ReduceOp.Kind kind)
    {
        return "jccl_reduce_" + typeName(type) + "_" + opName(type, kind);
    }

    /**
     * @param type the element type.
     * @return the kernel {@code jccl_scale_<type>}, which multiplies by PREMULSUM's scalar.
     */
    public static String scale(final DataType type)
    {
        return "jccl_scale_" + typeName(type);
    }

    /**
     * @param type an integer element type.
     * @return the kernel {@code jccl_divide_<type>}, AVG's division on integers.
     * @throws IllegalArgumentException for a floating type (AVG there is PREMULSUM).
     */
    public static String divide(final DataType type)
    {
        final String name = typeName(type);
        if (!INTEGER[type.ordinal()])
        {
            throw new IllegalArgumentException("no divide kernel for the floating type " + type +
                " (AVG on floating types is premulsum)");
        }
        return "jccl_divide_" + name;
    }

    /** @return the byte copy kernel, {@code jccl_copy}. */
    public static String copy()
    {
        return "jccl_copy";
    }

    /**
     * @param protocol a protocol the interpreter implements.
     * @param type     the element type.
     * @param kind     the operator; AVG maps to PREMULSUM on floating types and to SUM on integers.
     * @return the interpreter kernel {@code jccl_interp_<proto>_<type>_<op>}.
     * @throws IllegalArgumentException if the interpreter does not implement the protocol.
     */
    public static String interpreter(final Protocol protocol, final DataType type, final ReduceOp.Kind kind)
    {
        return "jccl_interp_" + protoName(protocol) + "_" + typeName(type) + "_" + opName(type, kind);
    }

    /**
     * @param protocol a protocol the interpreter implements.
     * @return the interpreter kernel for Programs without arithmetic, {@code jccl_interp_<proto>_copy}.
     * @throws IllegalArgumentException if the interpreter does not implement the protocol.
     */
    public static String interpreterCopy(final Protocol protocol)
    {
        return "jccl_interp_" + protoName(protocol) + "_copy";
    }

    /**
     * @param name a type's name in jccl_types.def ({@code float32}, {@code f8e4m3}).
     * @return the type.
     * @throws IllegalArgumentException if the list has no such type.
     */
    public static DataType type(final String name)
    {
        return byName(TYPE_NAMES, name, DataType.values(), "type");
    }

    /**
     * @param name an operator's name in jccl_types.def ({@code sum}, {@code premulsum}).
     * @return the operator.
     * @throws IllegalArgumentException if the list has no such operator.
     */
    public static ReduceOp.Kind kind(final String name)
    {
        return byName(OP_NAMES, name, ReduceOp.Kind.values(), "operator");
    }

    private static <T> T byName(final String[] names, final String name, final T[] values, final String what)
    {
        for (int i = 0; i < names.length; i++)
        {
            if (name.equals(names[i]))
            {
                return values[i];
            }
        }
        throw new IllegalArgumentException("jccl_types.def lists no " + what + " named " + name);
    }

    private static String typeName(final DataType type)
    {
        return TYPE_NAMES[Objects.requireNonNull(type, "type").ordinal()];
    }

    private static String opName(final DataType type, final ReduceOp.Kind kind)
    {
        Objects.requireNonNull(kind, "kind");
        final ReduceOp.Kind mapped = kind != ReduceOp.Kind.AVG ? kind :
            INTEGER[type.ordinal()] ? ReduceOp.Kind.SUM : ReduceOp.Kind.PREMULSUM;
        return OP_NAMES[mapped.ordinal()];
    }

    private static String protoName(final Protocol protocol)
    {
        final String name = PROTO_NAMES[Objects.requireNonNull(protocol, "protocol").ordinal()];
        if (name == null)
        {
            throw new IllegalArgumentException("the interpreter kernel does not implement protocol " + protocol +
                " (jccl_types.def lists no JCCL_PROTO with id " + protocol.id() + ")");
        }
        return name;
    }

    private static List<String> readDef()
    {
        try (InputStream in = KernelNames.class.getResourceAsStream(DEF_RESOURCE))
        {
            if (in == null)
            {
                throw new IllegalStateException(DEF_RESOURCE + " is missing from the class path: run " +
                    "cuda-src/build-ptx.sh, which copies cuda-src/jccl_types.def there");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot read " + DEF_RESOURCE, ex);
        }
    }

    private static void parse(final List<String> lines)
    {
        final List<String> errors = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++)
        {
            final Matcher matcher = ENTRY.matcher(lines.get(i).strip());
            if (!matcher.matches())
            {
                continue;
            }
            final String where = DEF_RESOURCE + ":" + (i + 1) + " '" + lines.get(i).strip() + "': ";
            final String macro = matcher.group(1);
            final String[] fields = matcher.group(2).split(",", -1);
            final boolean isType = macro.endsWith("TYPE");
            if (fields.length != (isType ? 3 : 2))
            {
                errors.add(where + "expected " + (isType ? 3 : 2) + " fields");
                continue;
            }
            final String name = fields[0].strip();
            final int id;
            try
            {
                id = Integer.parseInt(fields[fields.length - 1].strip());
            }
            catch (final NumberFormatException ex)
            {
                errors.add(where + "the id is not an integer");
                continue;
            }
            if (!IDENTIFIER.matcher(name).matches())
            {
                errors.add(where + "the name is not an identifier");
                continue;
            }
            switch (macro)
            {
                case "JCCL_OP" -> addOp(name, id, where, errors);
                case "JCCL_PROTO" -> addProto(name, id, where, errors);
                default -> addType(name, id, macro, where, errors);
            }
        }
        for (final DataType type : DataType.values())
        {
            if (TYPE_NAMES[type.ordinal()] == null)
            {
                errors.add(DEF_RESOURCE + " has no type with id " + type.id() + " (" + type + ")");
            }
        }
        for (final ReduceOp.Kind kind : ReduceOp.Kind.values())
        {
            if (kind != ReduceOp.Kind.AVG && OP_NAMES[kind.ordinal()] == null)
            {
                errors.add(DEF_RESOURCE + " has no operator with id " + kind.id() + " (" + kind + ")");
            }
        }
        if (!errors.isEmpty())
        {
            throw new IllegalStateException(DEF_RESOURCE + " had " + errors.size() + " errors:\n" +
                String.join("\n", errors));
        }
    }

    private static void addType(
        final String name, final int id, final String macro, final String where, final List<String> errors)
    {
        final DataType type;
        try
        {
            type = DataType.fromId(id);
        }
        catch (final RuntimeException ex)
        {
            errors.add(where + "no DataType has id " + id);
            return;
        }
        if (TYPE_NAMES[type.ordinal()] != null)
        {
            errors.add(where + "a second entry for " + type);
            return;
        }
        final boolean integer = !type.isFloatingPoint();
        if (macro.equals("JCCL_INT_TYPE") != integer || macro.equals("JCCL_FLOAT_TYPE") == integer)
        {
            errors.add(where + type + " is " + (integer ? "an integer type: JCCL_INT_TYPE" :
                "a floating type: JCCL_FLOAT_TYPE"));
            return;
        }
        TYPE_NAMES[type.ordinal()] = name;
        INTEGER[type.ordinal()] = integer;
    }

    private static void addOp(final String name, final int id, final String where, final List<String> errors)
    {
        for (final ReduceOp.Kind kind : ReduceOp.Kind.values())
        {
            if (kind.id() == id)
            {
                if (kind == ReduceOp.Kind.AVG)
                {
                    errors.add(where + "AVG has no kernel (premulsum on floating types, sum then divide on integers)");
                }
                else if (OP_NAMES[kind.ordinal()] != null)
                {
                    errors.add(where + "a second entry for " + kind);
                }
                else
                {
                    OP_NAMES[kind.ordinal()] = name;
                }
                return;
            }
        }
        errors.add(where + "no ReduceOp.Kind has id " + id);
    }

    private static void addProto(final String name, final int id, final String where, final List<String> errors)
    {
        for (final Protocol protocol : Protocol.values())
        {
            if (protocol.id() == id)
            {
                if (PROTO_NAMES[protocol.ordinal()] != null)
                {
                    errors.add(where + "a second entry for " + protocol);
                }
                else
                {
                    PROTO_NAMES[protocol.ordinal()] = name;
                }
                return;
            }
        }
        errors.add(where + "no Protocol has id " + id);
    }
}
