package io.jccl.bench;

/**
 * What one row of nccl-tests' table reports: the call (size, count, type, operator, root) and the out-of-place and
 * in-place measurements, each with its time, bandwidths, wrong-element count and the plan it ran under.
 * {@link BenchRunner} hands one to its listener per printed row, in the order printed; the sweep's summary and the
 * result files ({@link ResultFiles}) are built from them.
 *
 * @param bytes      the size column: bytes.
 * @param count      the count column: elements.
 * @param typeName   the type as nccl-tests names it.
 * @param opName     the operator, {@code none} for copies.
 * @param root       the root, -1 for collectives without one.
 * @param outOfPlace the out-of-place measurement.
 * @param inPlace    the in-place measurement.
 */
public record RowResult(long bytes, long count, String typeName, String opName, int root, Measurement outOfPlace,
    Measurement inPlace)
{
    /** The plan text of a call that moved nothing, and the transport of a call without a plan. */
    public static final String NO_PLAN = "-";
    /** {@link Measurement#wrong()} when results were not checked ({@code -c 0}). */
    public static final long NOT_CHECKED = -1;

    /**
     * One half of a row: the out-of-place or the in-place measurement.
     *
     * @param timeUs    time of one call in microseconds (the time column: {@code cputime} with {@code -C 1}).
     * @param algBw     algorithm bandwidth in GB/s.
     * @param busBw     bus bandwidth in GB/s.
     * @param wrong     wrong elements, or {@link #NOT_CHECKED}.
     * @param plan      the plan text of the call, e.g. {@code ring/simple/p2p/1ch/128K} ({@link #NO_PLAN} when the
     *                  call moved nothing or the runtime reports no plan).
     * @param transport the transport of the plan, e.g. {@code p2p}, or {@link #NO_PLAN}.
     */
    public record Measurement(double timeUs, double algBw, double busBw, long wrong, String plan, String transport)
    {
        /**
         * @param busBw bus bandwidth in GB/s.
         * @param plan  the plan text.
         * @return a measurement that knows only its bus bandwidth and plan (time and algbw NaN, not checked, no
         *         transport), for tests of what reads bus bandwidths only.
         */
        public static Measurement ofBusBw(final double busBw, final String plan)
        {
            return new Measurement(Double.NaN, Double.NaN, busBw, NOT_CHECKED, plan, NO_PLAN);
        }
    }

    /**
     * A row that knows only its bus bandwidths and plan column, for tests of what reads nothing else.
     *
     * @param bytes           the size column: bytes.
     * @param count           the count column: elements.
     * @param typeName        the type as nccl-tests names it.
     * @param opName          the operator, {@code none} for copies.
     * @param root            the root, -1 for collectives without one.
     * @param outOfPlaceBusBw the out-of-place bus bandwidth in GB/s.
     * @param inPlaceBusBw    the in-place bus bandwidth in GB/s.
     * @param plan            the plan of both measurements.
     */
    public RowResult(final long bytes, final long count, final String typeName, final String opName, final int root,
        final double outOfPlaceBusBw, final double inPlaceBusBw, final String plan)
    {
        this(bytes, count, typeName, opName, root, Measurement.ofBusBw(outOfPlaceBusBw, plan),
            Measurement.ofBusBw(inPlaceBusBw, plan));
    }

    /** @return the out-of-place bus bandwidth in GB/s. */
    public double outOfPlaceBusBw()
    {
        return outOfPlace.busBw();
    }

    /** @return the in-place bus bandwidth in GB/s. */
    public double inPlaceBusBw()
    {
        return inPlace.busBw();
    }

    /** @return the plan column, without its leading spaces ({@link TableFormatter#planColumn}). */
    public String plan()
    {
        return TableFormatter.planColumn(outOfPlace.plan(), inPlace.plan());
    }

    /**
     * @param other another row.
     * @return true when both rows measured the same call: size, count, type, operator and root.
     */
    public boolean sameCall(final RowResult other)
    {
        return bytes == other.bytes && count == other.count && typeName.equals(other.typeName) &&
            opName.equals(other.opName) && root == other.root;
    }
}
