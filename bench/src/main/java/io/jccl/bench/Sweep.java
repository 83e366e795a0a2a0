package io.jccl.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code --sweep key=v1,v2,... [key=...]...} asks for: values per knob ({@link SweepKey}), and their cartesian
 * product, each combination a pass of its own. The product's order is fixed whatever the order on the command line:
 * keys in {@link SweepKey} order, the first varying slowest, each key's values in the order given (an odometer).
 * Immutable.
 */
public final class Sweep
{
    /** The flag, for messages. */
    public static final String FLAG = "--sweep";

    private final Map<SweepKey, List<String>> values;

    private Sweep(final Map<SweepKey, List<String>> values)
    {
        this.values = Collections.unmodifiableMap(values);
    }

    /**
     * Parses the arguments of every {@code --sweep} option and checks each value on its own
     * ({@link SweepKey#check(String)}).
     *
     * @param arguments {@code key=v1,v2,...} each.
     * @return the sweep.
     * @throws IllegalArgumentException naming the key (or the argument) of the first bad one: an unknown key, a key
     *                                  given twice, an empty or repeated value, or a value jccl does not take.
     */
    public static Sweep parse(final List<String> arguments)
    {
        if (arguments.isEmpty())
        {
            throw new IllegalArgumentException(FLAG + " needs at least one key=v1,v2,... (keys: " + SweepKey.keys() +
                ")");
        }
        final Map<SweepKey, List<String>> values = new EnumMap<>(SweepKey.class);
        for (final String argument : arguments)
        {
            final int equals = argument.indexOf('=');
            if (equals < 0)
            {
                throw new IllegalArgumentException(FLAG + " '" + argument + "' is not key=v1,v2,... (keys: " +
                    SweepKey.keys() + ")");
            }
            final String keyName = argument.substring(0, equals).strip();
            final SweepKey key;
            try
            {
                key = SweepKey.fromKey(keyName);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(FLAG + " key " + ex.getMessage(), ex);
            }
            if (values.containsKey(key))
            {
                throw new IllegalArgumentException(FLAG + " key " + keyName + " is given twice; list its values " +
                    "once: " + keyName + "=v1,v2,...");
            }
            values.put(key, parseValues(key, argument.substring(equals + 1)));
        }
        return new Sweep(values);
    }

    private static List<String> parseValues(final SweepKey key, final String list)
    {
        final Set<String> parsed = new LinkedHashSet<>();
        for (final String raw : list.split(",", -1))
        {
            final String value = raw.strip();
            if (value.isEmpty())
            {
                throw new IllegalArgumentException(FLAG + " " + key.key() + "='" + list + "' has an empty value");
            }
            if (!parsed.add(value))
            {
                throw new IllegalArgumentException(FLAG + " " + key.key() + " lists '" + value + "' twice");
            }
            try
            {
                key.check(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(FLAG + " " + key.key() + "=" + value + ": " + ex.getMessage(), ex);
            }
        }
        return List.copyOf(parsed);
    }

    /** @return the values of each swept knob, in {@link SweepKey} order. */
    public Map<SweepKey, List<String>> values()
    {
        return values;
    }

    /** @return true when the sweep sets this knob. */
    boolean sets(final SweepKey key)
    {
        return values.containsKey(key);
    }

    /** @return every combination, in the fixed order of the product (the last key varies fastest). */
    public List<SweepCombination> combinations()
    {
        List<Map<SweepKey, String>> partial = List.of(Map.of());
        for (final Map.Entry<SweepKey, List<String>> entry : values.entrySet())
        {
            final List<Map<SweepKey, String>> next = new ArrayList<>(partial.size() * entry.getValue().size());
            for (final Map<SweepKey, String> prefix : partial)
            {
                for (final String value : entry.getValue())
                {
                    final Map<SweepKey, String> pins = new EnumMap<>(SweepKey.class);
                    pins.putAll(prefix);
                    pins.put(entry.getKey(), value);
                    next.add(pins);
                }
            }
            partial = next;
        }
        return partial.stream().map(SweepCombination::new).toList();
    }
}
