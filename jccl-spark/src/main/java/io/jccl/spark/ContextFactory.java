package io.jccl.spark;

import io.jccl.core.Context;

import java.io.Serializable;

/**
 * Makes the {@link Context} of a barrier task's communicator, inside the task: a {@code Context} holds live objects
 * (a CUDA driver, say) and is not serializable, so the driver ships this recipe instead. Settings a recipe leaves
 * alone come from the executor's {@code JCCL_*} variables and system properties, as {@code new Context()} reads them.
 * <pre>{@code
 * ContextFactory settings = () -> new Context().timeoutMs(60_000);
 * }</pre>
 * Threads: called once per task, on the task's thread; it is also called once on the driver to check the settings.
 */
@FunctionalInterface
public interface ContextFactory extends Serializable
{
    /** The default recipe: {@code new Context()}, every setting from the executor's environment. */
    ContextFactory DEFAULT = Context::new;

    /**
     * @return a new context; the caller concludes it.
     */
    Context create();
}
