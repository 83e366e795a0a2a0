package io.jccl.autotune;

import io.jccl.Plan;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

final class CostModelTunerContractTest extends TunerContractTest
{
    @Override
    Tuner newTuner()
    {
        return new CostModelTuner(Calibration.defaults(), PlanConstraints.parse("allreduce:tree,ring", "^ll128",
            null, "1", "8", null, null));
    }

    @Test
    void shouldAnswerOnlyPlansTheConstraintsAllow()
    {
        final CostModelTuner tuner = (CostModelTuner)newTuner();
        for (final PlanRequest request : requests())
        {
            final Plan plan = tuner.choose(request);
            assertTrue(tuner.constraints().allows(request.collective(), plan), plan.id());
        }
    }
}
