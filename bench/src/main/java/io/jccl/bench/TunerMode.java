package io.jccl.bench;

/** Which tuner decides a run's plans, and where its table comes from: {@code --tuner} and {@code --tuner-config}. */
public enum TunerMode
{
    /** No flag: {@code JCCL_TUNER_CONFIG_FILE} decides. */
    ENVIRONMENT,
    /** {@code --tuner model}: the cost model alone, no table even if {@code JCCL_TUNER_CONFIG_FILE} is set. */
    MODEL,
    /** {@code --tuner table} or {@code --tuner-config FILE}: that file's table over the cost model. */
    TABLE,
    /** {@code --tuner auto}: the online search on the run's own calls ({@code JCCL_TUNER=auto}), below any table. */
    AUTO
}
