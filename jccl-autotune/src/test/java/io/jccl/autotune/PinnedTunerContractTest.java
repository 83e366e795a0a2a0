package io.jccl.autotune;

import io.jccl.Protocol;

final class PinnedTunerContractTest extends TunerContractTest
{
    @Override
    Tuner newTuner()
    {
        return new PinnedTuner(null, Protocol.LL, 2, 4096);
    }
}
