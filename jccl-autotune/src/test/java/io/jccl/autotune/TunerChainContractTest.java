package io.jccl.autotune;

import java.util.List;

final class TunerChainContractTest extends TunerContractTest
{
    @Override
    Tuner newTuner()
    {
        final PlanConstraints constraints = PlanConstraints.parse(null, "^ll", null, null, null, null, null);
        final CostModelTuner model = new CostModelTuner(Calibration.defaults(), constraints);
        return new TunerChain(constraints, TableTuner.parse("contract.csv", List.of(
            "allreduce,0,65536,tree,ll,-1,-1,-1",
            "reduce,0,65536,tree,ll128,-1,-1,-1"), model), model);
    }
}
