package io.jccl.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One record of a result file ({@link ResultFiles}): one placement (out-of-place or in-place) of one row of the
 * table, with what the table says and what it leaves to its header (tool, ranks, device, transport).
 *
 * @param tool        the tool, e.g. {@code all_reduce_perf}.
 * @param combination the sweep combination's label ({@link SweepCombination#label()}, {@code default} for the
 *                    unpinned pass), or null outside a sweep.
 * @param ranks       rank count.
 * @param device      where the buffers live: {@value #HOST_DEVICE} for jccl's host buffers.
 * @param transport   the transport of the plan, e.g. {@code p2p}, or {@code -} without a plan.
 * @param type        the type as nccl-tests names it.
 * @param op          the operator, {@code none} for copies.
 * @param root        the root, -1 for collectives without one.
 * @param placement   {@value #OUT_OF_PLACE} or {@value #IN_PLACE}.
 * @param bytes       the size column: bytes.
 * @param count       the count column: elements.
 * @param plan        the plan text of this placement, e.g. {@code ring/simple/p2p/1ch/128K}.
 * @param timeUs      time of one call in microseconds.
 * @param algBw       algorithm bandwidth in GB/s.
 * @param busBw       bus bandwidth in GB/s.
 * @param wrong       wrong elements, or {@link RowResult#NOT_CHECKED}.
 */
public record ResultRecord(String tool, String combination, int ranks, String device, String transport, String type,
    String op, int root, String placement, long bytes, long count, String plan, double timeUs, double algBw,
    double busBw, long wrong)
{
    /** The device of jccl's host buffers, as the table's device lines name it. */
    public static final String HOST_DEVICE = "host";
    /** The placement of an out-of-place call. */
    public static final String OUT_OF_PLACE = "out-of-place";
    /** The placement of an in-place call. */
    public static final String IN_PLACE = "in-place";
    /** The column of the sweep combination, present only in the files of a sweep. */
    public static final String COMBINATION = "combination";
    /** The column of the size in bytes. */
    public static final String SIZE_BYTES = "size_bytes";
    /** The column of the bus bandwidth in GB/s. */
    public static final String BUS_BW = "busbw_gbps";
    /** Significant digits of the numbers written: more than the table's, fewer than a double's noise. */
    private static final MathContext DIGITS = new MathContext(6);

    /**
     * @param tool        the tool.
     * @param ranks       rank count.
     * @param combination the label of the row's sweep combination, or null outside a sweep.
     * @param row         a row of the table.
     * @return its out-of-place and its in-place record, in that order.
     */
    public static List<ResultRecord> of(final BenchTool tool, final int ranks, final String combination,
        final RowResult row)
    {
        final List<ResultRecord> records = new ArrayList<>(2);
        records.add(of(tool, ranks, combination, row, OUT_OF_PLACE, row.outOfPlace()));
        records.add(of(tool, ranks, combination, row, IN_PLACE, row.inPlace()));
        return records;
    }

    private static ResultRecord of(final BenchTool tool, final int ranks, final String combination,
        final RowResult row, final String placement, final RowResult.Measurement measurement)
    {
        return new ResultRecord(tool.toolName(), combination, ranks, HOST_DEVICE, measurement.transport(),
            row.typeName(), row.opName(), row.root(), placement, row.bytes(), row.count(), measurement.plan(),
            measurement.timeUs(), measurement.algBw(), measurement.busBw(), measurement.wrong());
    }

    /**
     * @param withCombination whether the file has the {@value #COMBINATION} column (a sweep's).
     * @return the column names of a result file, in order.
     */
    public static List<String> columns(final boolean withCombination)
    {
        final List<String> columns = new ArrayList<>(new ResultRecord("", "", 0, "", "", "", "", 0, "", 0, 0, "", 0,
            0, 0, 0).fields().keySet());
        if (!withCombination)
        {
            columns.remove(COMBINATION);
        }
        return columns;
    }

    /**
     * @return the fields by column name, in column order: text as {@link String}, integers as {@link Long}, measured
     *         values as {@link BigDecimal} of six significant digits; null for a value not measured (a NaN, or
     *         {@code wrong} when results were not checked). {@value #COMBINATION} is left out outside a sweep.
     */
    public Map<String, Object> fields()
    {
        final Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("tool", tool);
        if (combination != null)
        {
            fields.put(COMBINATION, combination);
        }
        fields.put("ranks", (long)ranks);
        fields.put("device", device);
        fields.put("transport", transport);
        fields.put("type", type);
        fields.put("op", op);
        fields.put("root", (long)root);
        fields.put("placement", placement);
        fields.put(SIZE_BYTES, bytes);
        fields.put("count", count);
        fields.put("plan", plan);
        fields.put("time_us", decimal(timeUs));
        fields.put("algbw_gbps", decimal(algBw));
        fields.put(BUS_BW, decimal(busBw));
        fields.put("wrong", wrong == RowResult.NOT_CHECKED ? null : wrong);
        return fields;
    }

    /**
     * @param value a measured value.
     * @return the value to six significant digits, or null for NaN and infinities.
     */
    static BigDecimal decimal(final double value)
    {
        if (Double.isNaN(value) || Double.isInfinite(value))
        {
            return null;
        }
        return new BigDecimal(value).round(DIGITS).stripTrailingZeros();
    }
}
