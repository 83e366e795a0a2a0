package io.jccl.autotune;

import java.util.List;

final class TableTunerContractTest extends TunerContractTest
{
    @Override
    Tuner newTuner()
    {
        return TableTuner.parse("contract.csv", List.of(
            "allreduce,0,65536,tree,ll,-1,-1,-1",
            "allgather,0,4294967295,ring,ll128,4,2,-1 # jccl: chunk=64K",
            "broadcast,1,8,tree,simple,1,-1,5,-1,0"), CostModelTuner.defaults());
    }
}
