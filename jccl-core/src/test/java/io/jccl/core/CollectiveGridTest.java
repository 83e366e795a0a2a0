package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.Communicator;
import io.jccl.TransportKind;
import io.jccl.core.CollectiveGrid.GridCase;
import io.jccl.core.CollectiveGrid.Pipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The collective grid against the reference model, bit for bit. CI runs the pairwise covering array
 * ({@link CollectiveGrid#ciCases()}); the full product runs under the {@code slow} tag. Communicators are made
 * once per (ranks, algorithm, pipeline) and reused across cases, which also checks that calls in sequence on the
 * same communicators stay correct; a case that fails aborts and forgets its communicators.
 */
class CollectiveGridTest
{
    /** Deadline of every wait inside jccl: a hang becomes an exception well before the test's own timeout. */
    static final long JCCL_TIMEOUT_MS = 60_000;

    private static final Map<String, Communicator[]> COMMUNICATORS = new HashMap<>();

    static Stream<GridCase> ciCases()
    {
        return CollectiveGrid.ciCases().stream();
    }

    static Stream<GridCase> fullProduct()
    {
        return CollectiveGrid.fullProduct();
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("ciCases")
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldMatchReferenceWhenCoveringArrayCase(final GridCase gridCase)
    {
        runCase(gridCase, null);
    }

    static Stream<GridCase> directCases()
    {
        return CollectiveGrid.directCases().stream();
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("directCases")
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldMatchReferenceWhenDirect(final GridCase gridCase)
    {
        runCase(gridCase, null);
    }

    /** Every third covering-array case, with every pair of ranks over Aeron UDP on loopback (NET pinned). */
    static Stream<GridCase> networkCases()
    {
        final List<GridCase> all = CollectiveGrid.ciCases();
        return java.util.stream.IntStream.range(0, all.size()).filter(i -> i % 3 == 0).mapToObj(all::get);
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("networkCases")
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldMatchReferenceOverTheNetworkTransport(final GridCase gridCase)
    {
        runCase(gridCase, TransportKind.NET);
    }

    @Tag("slow")
    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("fullProduct")
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldMatchReferenceWhenFullProductCase(final GridCase gridCase)
    {
        runCase(gridCase, null);
    }

    @AfterAll
    static void closeCommunicators()
    {
        synchronized (COMMUNICATORS)
        {
            for (final Communicator[] comms : COMMUNICATORS.values())
            {
                for (final Communicator comm : comms)
                {
                    comm.close();
                }
            }
            COMMUNICATORS.clear();
        }
    }

    private static void runCase(final GridCase gridCase, final TransportKind transport)
    {
        final String key = gridCase.ranks() + "/" + gridCase.algorithm() + "/" + gridCase.pipeline() + "/" + transport;
        final Communicator[] comms = communicators(key, gridCase.ranks(), gridCase.algorithm(), gridCase.pipeline(),
            transport);
        boolean ok = false;
        try
        {
            CollectiveHarness.runAndCheck(gridCase, comms);
            ok = true;
        }
        finally
        {
            if (!ok)
            {
                forget(key, comms);
            }
        }
    }

    private static Communicator[] communicators(final String key, final int ranks, final Algorithm algorithm,
        final Pipeline pipeline, final TransportKind transport)
    {
        synchronized (COMMUNICATORS)
        {
            return COMMUNICATORS.computeIfAbsent(key, k -> Jccl.initAll(new Context()
                .algorithm(algorithm)
                .timeoutMs(JCCL_TIMEOUT_MS)
                .channels(pipeline.channels)
                .transport(transport)
                .chunkBytes(pipeline.chunkBytes), ranks));
        }
    }

    private static void forget(final String key, final Communicator[] comms)
    {
        synchronized (COMMUNICATORS)
        {
            COMMUNICATORS.remove(key);
        }
        for (final Communicator comm : comms)
        {
            try
            {
                comm.abort();
            }
            catch (final RuntimeException ignore)
            {
                // already broken: the case's own failure is what gets reported
            }
        }
    }
}
