package io.jccl.autotune;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.Plan;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link Tuner} promises: an answer for every call shape, the same from any instance built the same way
 * (every rank builds its own), and the same when asked again.
 */
abstract class TunerContractTest
{
    /** @return a new tuner, built as every rank would build it. */
    abstract Tuner newTuner();

    static List<PlanRequest> requests()
    {
        final List<PlanRequest> requests = new ArrayList<>();
        for (final Collective collective : Collective.values())
        {
            for (final int ranks : new int[] {1, 2, 3, 5, 8})
            {
                for (final long bytes : new long[] {0, 1, 8, 4096, 65536, 1 << 20, 64L << 20})
                {
                    requests.add(new PlanRequest(collective, DataType.FLOAT32, bytes, ranks));
                    if (ranks > 1)
                    {
                        requests.add(new PlanRequest(collective, DataType.INT8, bytes, ranks, 2, 2, true));
                    }
                }
            }
        }
        return requests;
    }

    @Test
    void shouldAnswerEveryCallShape()
    {
        final Tuner tuner = newTuner();
        for (final PlanRequest request : requests())
        {
            assertNotNull(tuner.choose(request), request.toString());
        }
    }

    @Test
    void shouldAnswerTheSameFromEveryInstanceWhenAskedTheSameRequest()
    {
        final Tuner first = newTuner();
        final Tuner second = newTuner();
        for (final PlanRequest request : requests())
        {
            final Plan plan = first.choose(request);
            assertEquals(plan, second.choose(request), request.toString());
            assertEquals(plan, first.choose(request), request.toString());
        }
    }
}
