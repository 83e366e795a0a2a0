package io.jccl.autotune;

import io.jccl.Plan;

/**
 * A plan with the time the {@link CostModel} predicts for it.
 *
 * @param plan  the plan.
 * @param nanos the predicted time of the call, in ns.
 */
public record Prediction(Plan plan, double nanos)
{
}
