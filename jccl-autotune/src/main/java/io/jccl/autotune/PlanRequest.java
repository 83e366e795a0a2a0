package io.jccl.autotune;

import io.jccl.Collective;
import io.jccl.DataType;

/**
 * What a tuner is asked to decide for: one call shape on one communicator.
 *
 * @param collective the collective.
 * @param type       the element type.
 * @param bytes      NCCL's {@code nBytes}: the whole buffer for AllGather (output) and ReduceScatter (input), the
 *                   buffer for the others (DESIGN.md, "Sizes").
 * @param ranks      the communicator's rank count.
 */
public record PlanRequest(Collective collective, DataType type, long bytes, int ranks)
{
}
