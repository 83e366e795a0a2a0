package io.jccl.autotune;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import io.jccl.Plan;
import io.jccl.StableHash;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The tuners in DESIGN.md's precedence, pins over the table over the cost model: a table line's plan when one
 * matches and the settings' {@link PlanConstraints} allow it, else the cost model's plan (which the constraints
 * always allow). Pinned plans on a call and registered schedules rank above this chain and are the caller's.
 * Immutable; thread-safe.
 */
public final class TunerChain implements Tuner
{
    private final PlanConstraints constraints;
    private final TableTuner table;
    private final CostModelTuner model;

    /**
     * @param constraints what the settings allow; a table plan they reject gives way to the model.
     * @param table       the tuner table, or null for none (best built with {@code model} as its fallback).
     * @param model       the cost model, built with the same constraints.
     * @throws JcclInvalidArgumentException if constraints or model is null.
     */
    public TunerChain(final PlanConstraints constraints, final TableTuner table, final CostModelTuner model)
    {
        if (constraints == null)
        {
            throw new JcclInvalidArgumentException("constraints is null");
        }
        if (model == null)
        {
            throw new JcclInvalidArgumentException("model is null");
        }
        this.constraints = constraints;
        this.table = table;
        this.model = model;
    }

    /**
     * Builds the chain the settings describe: a cost model under the constraints, and the table file, if any,
     * over it (its lines override the model's plans).
     *
     * @param constraints what the settings allow ({@code JCCL_*}).
     * @param calibration the cost model's constants, the same on every rank.
     * @param tableFile   the tuner table ({@code JCCL_TUNER_CONFIG_FILE}), or null for none.
     * @return the chain.
     * @throws TunerConfigException         if the table is malformed.
     * @throws JcclSystemException          if the table cannot be read.
     * @throws JcclInvalidArgumentException if constraints or calibration is null.
     */
    public static TunerChain create(final PlanConstraints constraints, final Calibration calibration,
        final Path tableFile)
    {
        return create(constraints, calibration, tableFile, false);
    }

    /**
     * As {@link #create(PlanConstraints, Calibration, Path)}, for ranks that may each live in a process of their own.
     *
     * @param constraints    what the settings allow ({@code JCCL_*}).
     * @param calibration    the cost model's constants, the same on every rank.
     * @param tableFile      the tuner table ({@code JCCL_TUNER_CONFIG_FILE}), or null for none.
     * @param rankPerProcess every rank lives in a process of its own ({@link CostModel#CostModel(Calibration,
     *                       boolean)}).
     * @return the chain.
     * @throws TunerConfigException         if the table is malformed.
     * @throws JcclSystemException          if the table cannot be read.
     * @throws JcclInvalidArgumentException if constraints or calibration is null.
     */
    public static TunerChain create(final PlanConstraints constraints, final Calibration calibration,
        final Path tableFile, final boolean rankPerProcess)
    {
        final CostModelTuner model = new CostModelTuner(calibration, constraints, rankPerProcess);
        final TableTuner table = tableFile == null ? null : TableTuner.load(tableFile, model);
        return new TunerChain(constraints, table, model);
    }

    /**
     * @param request the call shape.
     * @return the table's plan if a line matches and the constraints allow it, else the cost model's; never null.
     */
    @Override
    public Plan choose(final PlanRequest request)
    {
        if (table != null)
        {
            final Plan plan = table.lookup(request);
            if (plan != null && constraints.allows(request.collective(), plan))
            {
                return plan;
            }
        }
        return model.choose(request);
    }

    /**
     * @param request the call shape.
     * @return one line saying which tuner decides the call and why, with the plan (for {@code JCCL_DEBUG=INFO}).
     */
    public String explain(final PlanRequest request)
    {
        String why = "";
        if (table != null)
        {
            final TableTuner.Row row = table.match(request);
            if (row != null)
            {
                final Plan plan = table.lookup(request);
                final String rejection = constraints.rejection(request.collective(), plan);
                if (rejection == null)
                {
                    return "table " + row.location() + " -> " + plan.id();
                }
                why = " (table " + row.location() + " gave " + plan.id() + ", not allowed by " + rejection + ")";
            }
        }
        return "cost model -> " + model.choose(request).id() + why;
    }

    /** @return the constraints' and the table's warnings, for the caller to log. */
    public List<String> warnings()
    {
        final List<String> warnings = new ArrayList<>(constraints.warnings());
        if (table != null)
        {
            warnings.addAll(table.warnings());
        }
        return warnings;
    }

    /**
     * @return a 64-bit hash of the constraints, the table and the calibration, the same in every JVM: ranks whose
     *         hashes differ may choose different plans, so compare it at communicator creation.
     */
    public long stableHash()
    {
        long hash = StableHash.mix(StableHash.OFFSET_BASIS, constraints.stableHash());
        hash = table == null ? StableHash.mix(hash, "no table") : StableHash.mix(hash, table.stableHash());
        return StableHash.mix(hash, model.calibration().stableHash());
    }

    /** @return what the settings allow. */
    public PlanConstraints constraints()
    {
        return constraints;
    }

    /** @return the tuner table, or null. */
    public TableTuner table()
    {
        return table;
    }

    /** @return the cost model tuner. */
    public CostModelTuner model()
    {
        return model;
    }
}
