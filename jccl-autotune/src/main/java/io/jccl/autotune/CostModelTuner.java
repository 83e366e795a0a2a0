package io.jccl.autotune;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default tuner: the plan of least predicted time ({@link CostModel}) among those the host backend offers
 * under the settings ({@link KnobSpace#candidates}). A tie goes to the first plan in the candidates' fixed order,
 * so every rank with the same calibration and constraints picks the same plan. Thread-safe. A choice costs a few
 * hundred predictions (about 10 us), more than a small call itself, so choices are memoised per request, up to
 * {@link #MEMO_LIMIT} distinct requests (later ones are computed each time); memoising never changes an answer.
 */
public final class CostModelTuner implements Tuner
{
    /** Rows {@link #describe(PlanRequest)} shows. */
    public static final int DESCRIBE_ROWS = 8;
    /** Distinct requests whose choice is remembered. */
    public static final int MEMO_LIMIT = 4096;

    private final CostModel model;
    private final PlanConstraints constraints;
    private final Map<PlanRequest, Plan> memo = new ConcurrentHashMap<>();

    /**
     * @param calibration the model's constants.
     * @param constraints what the settings allow; every plan chosen is allowed by them.
     * @throws JcclInvalidArgumentException if either is null.
     */
    public CostModelTuner(final Calibration calibration, final PlanConstraints constraints)
    {
        this(calibration, constraints, false);
    }

    /**
     * @param calibration    the model's constants.
     * @param constraints    what the settings allow; every plan chosen is allowed by them.
     * @param rankPerProcess every rank lives in a process of its own ({@link CostModel#CostModel(Calibration,
     *                       boolean)}).
     * @throws JcclInvalidArgumentException if calibration or constraints is null.
     */
    public CostModelTuner(final Calibration calibration, final PlanConstraints constraints,
        final boolean rankPerProcess)
    {
        if (constraints == null)
        {
            throw new JcclInvalidArgumentException("constraints is null");
        }
        this.model = new CostModel(calibration, rankPerProcess);
        this.constraints = constraints;
    }

    /** @return a tuner with {@link Calibration#defaults()} and no constraints. */
    public static CostModelTuner defaults()
    {
        return new CostModelTuner(Calibration.defaults(), PlanConstraints.none());
    }

    /**
     * @param request the call shape.
     * @return the plan of least predicted time; never null.
     */
    @Override
    public Plan choose(final PlanRequest request)
    {
        final Plan memoised = memo.get(request);
        if (memoised != null)
        {
            return memoised;
        }
        final Plan best = search(request);
        if (memo.size() < MEMO_LIMIT)
        {
            memo.putIfAbsent(request, best);
        }
        return best;
    }

    /**
     * @param request the call shape.
     * @return every candidate with its prediction, fastest first; ties keep the candidates' order, so the first
     *         row's plan is {@link #choose}'s.
     */
    public List<Prediction> table(final PlanRequest request)
    {
        final List<Plan> plans = KnobSpace.candidates(request, constraints);
        final List<Prediction> predictions = new ArrayList<>(plans.size());
        for (final Plan plan : plans)
        {
            predictions.add(new Prediction(plan, model.predictNanos(request, plan)));
        }
        predictions.sort(Comparator.comparingDouble(Prediction::nanos));
        return predictions;
    }

    /**
     * @param request the call shape.
     * @return the fastest {@link #DESCRIBE_ROWS} predictions as a small text table (for {@code JCCL_DEBUG=INFO}).
     */
    public String describe(final PlanRequest request)
    {
        return describe(request, DESCRIBE_ROWS);
    }

    /**
     * @param request the call shape.
     * @param rows    how many predictions to show, at least 1.
     * @return the fastest predictions as a small text table, one line each, the chosen plan first.
     * @throws JcclInvalidArgumentException if rows is below 1.
     */
    public String describe(final PlanRequest request, final int rows)
    {
        if (rows < 1)
        {
            throw new JcclInvalidArgumentException("rows=" + rows + " is not positive");
        }
        final List<Prediction> predictions = table(request);
        final StringBuilder out = new StringBuilder(128 + 64 * rows);
        out.append(String.format(Locale.ROOT, "cost model: %s %d bytes, %d ranks on %d node%s, pins: %s; " +
            "%d candidates, fastest %d:%n", request.collective().xmlName(), request.bytes(), request.ranks(),
            request.nodes(), request.nodes() == 1 ? "" : "s", constraints, predictions.size(),
            Math.min(rows, predictions.size())));
        out.append(String.format(Locale.ROOT, "  %3s  %-36s %14s%n", "#", "plan", "predicted us"));
        for (int i = 0; i < rows && i < predictions.size(); i++)
        {
            final Prediction prediction = predictions.get(i);
            out.append(String.format(Locale.ROOT, "  %3d  %-36s %14.3f%n", i + 1, prediction.plan().id(),
                prediction.nanos() / 1000.0));
        }
        return out.toString();
    }

    /** @return the model. */
    public CostModel model()
    {
        return model;
    }

    /** @return the model's constants. */
    public Calibration calibration()
    {
        return model.calibration();
    }

    /** @return what the settings allow. */
    public PlanConstraints constraints()
    {
        return constraints;
    }

    private Plan search(final PlanRequest request)
    {
        Plan best = null;
        double bestNanos = Double.POSITIVE_INFINITY;
        for (final Plan plan : KnobSpace.candidates(request, constraints))
        {
            final double nanos = model.predictNanos(request, plan);
            if (best == null || nanos < bestNanos)
            {
                best = plan;
                bestNanos = nanos;
            }
        }
        return best;
    }
}
