package io.jccl.bench;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code --compare-plans A;B;C} asks for: two or more plans, each a list of knob pins in the sweep's key syntax
 * ({@code proto=ll,nchannels=2}, one value per key) or {@code default} for none, compared by
 * {@link ComparePlansRunner} in interleaved rounds. Each value is checked on its own ({@link SweepKey#check}).
 */
public final class ComparePlans
{
    /** The flag, for messages. */
    public static final String FLAG = "--compare-plans";
    /** The flag of the rounds per size. */
    public static final String ROUNDS_FLAG = "--rounds";
    /** The default of {@code --rounds}. */
    public static final int ROUNDS_DEFAULT = 5;

    private ComparePlans()
    {
    }

    /**
     * @param text the flag's argument, e.g. {@code default;proto=ll,nchannels=2;algo=tree,chunk=32K}.
     * @return the plans in the order given.
     * @throws IllegalArgumentException naming the flag and the plan of the first mistake: fewer than two plans, an
     *                                  empty or repeated plan, a pin without {@code =}, an unknown or repeated key,
     *                                  or a value jccl does not take.
     */
    public static List<SweepCombination> parse(final String text)
    {
        final String[] parts = text.split(";", -1);
        if (parts.length < 2)
        {
            throw new IllegalArgumentException(FLAG + " '" + text + "' needs at least two plans separated by ';', " +
                "each '" + SweepCombination.DEFAULT_LABEL + "' or key=value,... (keys: " + SweepKey.keys() + ")");
        }
        final List<SweepCombination> plans = new ArrayList<>(parts.length);
        for (int k = 0; k < parts.length; k++)
        {
            final SweepCombination plan = parsePlan(parts[k].strip(), k + 1);
            if (plans.contains(plan))
            {
                throw new IllegalArgumentException(FLAG + " plan " + (k + 1) + " '" + plan.compactLabel() +
                    "' is given twice");
            }
            plans.add(plan);
        }
        return List.copyOf(plans);
    }

    private static SweepCombination parsePlan(final String plan, final int number)
    {
        final String where = FLAG + " plan " + number;
        if (plan.isEmpty())
        {
            throw new IllegalArgumentException(where + " is empty; give '" + SweepCombination.DEFAULT_LABEL +
                "' for no pins");
        }
        if (plan.equals(SweepCombination.DEFAULT_LABEL))
        {
            return SweepCombination.DEFAULT;
        }
        final Map<SweepKey, String> pins = new EnumMap<>(SweepKey.class);
        for (final String raw : plan.split(",", -1))
        {
            final String pin = raw.strip();
            final int equals = pin.indexOf('=');
            if (equals < 0)
            {
                throw new IllegalArgumentException(where + " '" + pin + "' is not key=value (keys: " +
                    SweepKey.keys() + ")");
            }
            final String keyName = pin.substring(0, equals).strip();
            final String value = pin.substring(equals + 1).strip();
            final SweepKey key;
            try
            {
                key = SweepKey.fromKey(keyName);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(where + " key " + ex.getMessage(), ex);
            }
            if (pins.containsKey(key))
            {
                throw new IllegalArgumentException(where + " sets " + keyName + " twice");
            }
            if (value.isEmpty())
            {
                throw new IllegalArgumentException(where + " " + keyName + " has an empty value");
            }
            try
            {
                key.check(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(where + " " + keyName + "=" + value + ": " + ex.getMessage(), ex);
            }
            pins.put(key, value);
        }
        return new SweepCombination(pins);
    }
}
