package io.jccl.bench;

import io.jccl.core.Context;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The pins of one pass of a sweep, e.g. {@code proto=ll nchannels=2}; {@link #DEFAULT} pins nothing (the tuner
 * chooses, within the flags). Values are as given on the command line, in {@link SweepKey} order.
 *
 * @param pins the value of each swept knob; empty for the default.
 */
public record SweepCombination(Map<SweepKey, String> pins)
{
    /** The pass without pins from the sweep. */
    public static final SweepCombination DEFAULT = new SweepCombination(Map.of());
    /** The label of {@link #DEFAULT}. */
    public static final String DEFAULT_LABEL = "default";

    /**
     * @param pins the value of each swept knob; empty for the default.
     */
    public SweepCombination
    {
        final EnumMap<SweepKey, String> copy = new EnumMap<>(SweepKey.class);
        copy.putAll(pins);
        pins = Collections.unmodifiableMap(copy);
    }

    /** @return true for the pass without pins. */
    public boolean isDefault()
    {
        return pins.isEmpty();
    }

    /**
     * Sets this combination's knobs on a context, over whatever flags and environment set before.
     *
     * @param context the context.
     * @throws IllegalArgumentException if a value cannot be parsed (see {@link SweepKey#apply}).
     */
    public void applyTo(final Context context)
    {
        pins.forEach((key, value) -> key.apply(context, value));
    }

    /** @return the label of the sweep's header lines: {@code proto=ll nchannels=2}, or {@code default}. */
    public String label()
    {
        return join(" ");
    }

    /**
     * @return the label without spaces, for a table column split on blanks: {@code proto=ll,nchannels=2}, or
     *         {@code default} (sweep values never hold a comma, since commas separate them).
     */
    public String compactLabel()
    {
        return join(",");
    }

    private String join(final String separator)
    {
        if (pins.isEmpty())
        {
            return DEFAULT_LABEL;
        }
        final StringJoiner out = new StringJoiner(separator);
        pins.forEach((key, value) -> out.add(key.key() + "=" + value));
        return out.toString();
    }
}
