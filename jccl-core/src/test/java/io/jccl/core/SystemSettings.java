package io.jccl.core;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code JCCL_*} settings for a test, given as the system properties a {@link Context} reads like the environment
 * ({@code JCCL_TUNER_BUDGET} as {@code jccl.tuner.budget}), and cleared after it.
 */
final class SystemSettings
{
    private final List<String> properties = new ArrayList<>();

    /**
     * @param variable the environment variable's name.
     * @param value    its value for this test.
     */
    void set(final String variable, final String value)
    {
        final String property = variable.toLowerCase().replace('_', '.');
        properties.add(property);
        System.setProperty(property, value);
    }

    /** Removes every setting made. */
    void clear()
    {
        properties.forEach(System::clearProperty);
        properties.clear();
    }
}
