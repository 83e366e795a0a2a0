package io.jccl;

import java.util.Arrays;
import java.util.function.Function;

/** Looks up the enums that reach files and the wire by their stable lower-case name or constant name. */
final class EnumNames
{
    private EnumNames()
    {
    }

    /**
     * @param values    the enum's constants.
     * @param lowerName each constant's stable lower-case name.
     * @param name      the name asked for, in any case.
     * @param what      the argument's name, for the message.
     * @return the constant of that name.
     * @throws JcclInvalidArgumentException naming the argument and the accepted names.
     */
    static <E extends Enum<E>> E lookup(final E[] values, final Function<E, String> lowerName, final String name,
        final String what)
    {
        for (final E value : values)
        {
            if (lowerName.apply(value).equalsIgnoreCase(name) || value.name().equalsIgnoreCase(name))
            {
                return value;
            }
        }
        throw new JcclInvalidArgumentException(what + " '" + name + "' is not one of " +
            Arrays.stream(values).map(lowerName).toList());
    }
}
