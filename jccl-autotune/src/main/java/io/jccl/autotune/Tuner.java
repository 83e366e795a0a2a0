package io.jccl.autotune;

import io.jccl.Plan;

/**
 * Decides the plan of a call shape. Pure decision logic: no threads, no I/O. Implementations are asked on every
 * rank and must answer the same on every rank for the same request and history.
 */
public interface Tuner
{
    /**
     * @param request the call shape.
     * @return the plan, or null to let the next tuner in precedence decide.
     */
    Plan choose(PlanRequest request);
}
