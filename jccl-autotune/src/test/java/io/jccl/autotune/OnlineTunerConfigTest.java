package io.jccl.autotune;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OnlineTunerConfigTest
{
    @Test
    void shouldHaveTheDocumentedDefaults()
    {
        final OnlineTunerConfig config = OnlineTunerConfig.defaults();
        assertEquals(5, config.holdCalls());
        assertEquals(1, config.warmupCalls());
        assertEquals(6, config.callsPerCandidate());
        assertEquals(200, config.budgetCalls());
        assertEquals(2, config.restarts());
        assertEquals(OnlineTunerConfig.Buckets.POW2, config.buckets());
        assertEquals(1.5, config.driftFactor());
        assertEquals(50, config.driftWindow());
        assertEquals(16_384, config.leadCalls());
        assertTrue(config.retuneFromBest());
        assertNull(config.saveFile());
        assertEquals(3, config.confirmRounds());
        assertEquals(1.02, config.confirmMargin());
        assertTrue(config.confirmEnabled());
        assertEquals(54, config.confirmCalls(), "best, challenger and baseline, 3 rounds of 6 calls");
        assertEquals(1000, config.driftMinMs());
        assertEquals(config, OnlineTunerConfig.fromSettings(Map.of()));
        assertEquals(config, OnlineTunerConfig.fromSettings(Map.of(OnlineTunerConfig.HOLD_ENV, "  ")));
    }

    @Test
    void shouldReadEveryVariable()
    {
        final OnlineTunerConfig config = OnlineTunerConfig.fromSettings(Map.ofEntries(
            Map.entry("JCCL_TUNER_HOLD", "3"),
            Map.entry("JCCL_TUNER_WARMUP", "0"),
            Map.entry("JCCL_TUNER_BUDGET", "90"),
            Map.entry("JCCL_TUNER_RESTARTS", "4"),
            Map.entry("JCCL_TUNER_BUCKETS", "Exact"),
            Map.entry("JCCL_TUNER_DRIFT_FACTOR", "2.5"),
            Map.entry("JCCL_TUNER_DRIFT_WINDOW", "0"),
            Map.entry("JCCL_TUNER_LEAD", "8"),
            Map.entry("JCCL_TUNER_RETUNE_FROM", "default"),
            Map.entry("JCCL_TUNER_SAVE_FILE", "/tmp/jccl-tuner.tsv"),
            Map.entry("JCCL_TUNER_SEED", "-9"),
            Map.entry("JCCL_TUNER_CONFIRM_ROUNDS", "0"),
            Map.entry("JCCL_TUNER_CONFIRM_MARGIN", "1.1"),
            Map.entry("JCCL_TUNER_DRIFT_MIN_MS", "250")));

        assertEquals(new OnlineTunerConfig(3, 0, 90, 4, OnlineTunerConfig.Buckets.EXACT, 2.5, 0, 8, false,
            Path.of("/tmp/jccl-tuner.tsv"), -9, 0, 1.1, 250), config);
        assertFalse(config.driftEnabled());
        assertFalse(config.confirmEnabled());
        assertEquals(0, config.confirmCalls());
    }

    @ParameterizedTest
    @CsvSource({
        "JCCL_TUNER_HOLD, 0",
        "JCCL_TUNER_HOLD, five",
        "JCCL_TUNER_WARMUP, -1",
        "JCCL_TUNER_BUDGET, 5",
        "JCCL_TUNER_RESTARTS, -2",
        "JCCL_TUNER_BUCKETS, log",
        "JCCL_TUNER_DRIFT_FACTOR, 1.0",
        "JCCL_TUNER_DRIFT_FACTOR, NaN",
        "JCCL_TUNER_DRIFT_FACTOR, fast",
        "JCCL_TUNER_DRIFT_WINDOW, -5",
        "JCCL_TUNER_LEAD, 0",
        "JCCL_TUNER_RETUNE_FROM, worst",
        "JCCL_TUNER_SEED, 1.5",
        "JCCL_TUNER_CONFIRM_ROUNDS, -1",
        "JCCL_TUNER_CONFIRM_ROUNDS, three",
        "JCCL_TUNER_CONFIRM_MARGIN, 0.9",
        "JCCL_TUNER_CONFIRM_MARGIN, Infinity",
        "JCCL_TUNER_CONFIRM_MARGIN, wide",
        "JCCL_TUNER_DRIFT_MIN_MS, -1",
        "JCCL_TUNER_DRIFT_MIN_MS, 1s",
    })
    void shouldNameTheVariableOfAnInvalidValue(final String variable, final String value)
    {
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> OnlineTunerConfig.fromSettings(Map.of(variable, value)));
        assertTrue(ex.getMessage().startsWith(variable + "="), ex.getMessage());
        assertTrue(ex.getMessage().contains("valid values"), ex.getMessage());
    }

    @Test
    void shouldReportEveryInvalidVariableAtOnce()
    {
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> OnlineTunerConfig.fromSettings(Map.of("JCCL_TUNER_HOLD", "x", "JCCL_TUNER_BUCKETS", "y")));
        assertTrue(ex.getMessage().contains("JCCL_TUNER_HOLD='x'"), ex.getMessage());
        assertTrue(ex.getMessage().contains("JCCL_TUNER_BUCKETS='y'"), ex.getMessage());
    }

    @Test
    void shouldValidateTheRecordAsTheSettings()
    {
        final JcclInvalidArgumentException ex = assertThrows(JcclInvalidArgumentException.class,
            () -> OnlineTunerConfig.defaults().withBudgetCalls(5));
        assertTrue(ex.getMessage().startsWith("JCCL_TUNER_BUDGET=5"), ex.getMessage());
        assertThrows(JcclInvalidArgumentException.class, () -> OnlineTunerConfig.defaults().withBuckets(null));
        assertThrows(JcclInvalidArgumentException.class, () -> OnlineTunerConfig.fromSettings(null));
        final JcclInvalidArgumentException margin = assertThrows(JcclInvalidArgumentException.class,
            () -> OnlineTunerConfig.defaults().withConfirm(3, Double.NaN));
        assertTrue(margin.getMessage().startsWith("JCCL_TUNER_CONFIRM_MARGIN=NaN"), margin.getMessage());
        final JcclInvalidArgumentException rounds = assertThrows(JcclInvalidArgumentException.class,
            () -> OnlineTunerConfig.defaults().withConfirm(-1, 1.02));
        assertTrue(rounds.getMessage().startsWith("JCCL_TUNER_CONFIRM_ROUNDS=-1"), rounds.getMessage());
        assertEquals(OnlineTunerConfig.defaults(), new OnlineTunerConfig(5, 1, 200, 2, OnlineTunerConfig.Buckets.POW2,
            1.5, 50, OnlineTunerConfig.LEAD_DEFAULT, true, null, OnlineTunerConfig.SEED_DEFAULT), "the fields left out take their defaults");
    }

    private static PlanRequest allReduce(final long bytes)
    {
        return new PlanRequest(Collective.ALL_REDUCE, DataType.FLOAT32, bytes, 4);
    }

    @Test
    void shouldKeyTasksByPowersOfTwoOfTheSize()
    {
        final OnlineTuner tuner = new OnlineTuner(OnlineTunerConfig.defaults(), CostModelTuner.defaults(),
            PlanConstraints.none());
        final TaskKey key = tuner.key(allReduce(1024), ReduceOp.SUM, 3);

        assertEquals(new TaskKey(Collective.ALL_REDUCE, DataType.FLOAT32, ReduceOp.Kind.SUM, 4, 3, 1024, 2047), key);
        assertEquals(key, tuner.key(allReduce(2047), ReduceOp.SUM, 3));
        assertNotEquals(key, tuner.key(allReduce(2048), ReduceOp.SUM, 3));
        assertNotEquals(key, tuner.key(allReduce(1024), ReduceOp.SUM, 4), "another communicator");
        assertNotEquals(key, tuner.key(allReduce(1024), ReduceOp.MAX, 3), "another operator");
        assertEquals(tuner.key(allReduce(1024), ReduceOp.preMulSum(0.5), 3),
            tuner.key(allReduce(1024), ReduceOp.preMulSum(0.25), 3), "the scalar is not part of the task");
        assertEquals(0, tuner.key(allReduce(0), 3).maxBytes());
        assertEquals(Long.MAX_VALUE, tuner.key(allReduce(Long.MAX_VALUE), 3).maxBytes());
        assertEquals("allreduce/float/sum/r4/1024..2047/comm3", key.canonical());
        assertNull(tuner.key(allReduce(1024), 3).op());
    }

    @Test
    void shouldKeyTasksByExactSizeWhenConfigured()
    {
        final OnlineTuner tuner = new OnlineTuner(
            OnlineTunerConfig.defaults().withBuckets(OnlineTunerConfig.Buckets.EXACT), CostModelTuner.defaults(),
            PlanConstraints.none());
        final TaskKey key = tuner.key(allReduce(1024), ReduceOp.SUM, 3);

        assertEquals(1024, key.minBytes());
        assertEquals(1024, key.maxBytes());
        assertNotEquals(key, tuner.key(allReduce(1025), ReduceOp.SUM, 3));
    }

    @Test
    void shouldTuneWithTheCostModelAsTheDefaultTuner()
    {
        final CostModelTuner model = CostModelTuner.defaults();
        final OnlineTuner tuner = new OnlineTuner(OnlineTunerConfig.defaults(), model, PlanConstraints.none());
        final PlanRequest request = allReduce(1 << 20);
        final TaskKey key = tuner.key(request, ReduceOp.SUM, 0);

        assertEquals(model.choose(request), tuner.planFor(key, request, 0));
        assertEquals(model.choose(request), tuner.state(key).baselinePlan());
        assertEquals(1, tuner.reports().size());
        assertTrue(tuner.reports().get(0).line().startsWith("allreduce/float/sum/r4/1048576..2097151/comm0 " +
            "searching, 0 trials (6 calls)"), tuner.reports().get(0).line());
    }
}
