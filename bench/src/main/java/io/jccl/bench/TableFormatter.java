package io.jccl.bench;

import java.util.Locale;

/**
 * The lines nccl-tests prints on stdout, character for character ({@code src/common.cu}: the {@code printf}
 * formats are quoted on each method), so that existing parsers and eyes read jccl's tables unchanged.
 */
public final class TableFormatter
{
    private TableFormatter()
    {
    }

    /**
     * {@code "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d agg iters: %d
     * validation: %d graph: %d"}.
     *
     * @param options the flags.
     * @param maxBytes the largest size, after any reduction for memory.
     * @return the line.
     */
    public static String parametersLine(final BenchOptions options, final long maxBytes)
    {
        final boolean factor = options.stepFactor() > 1;
        return "# nThread " + options.nThreads() + " nGpus " + options.nGpus() + " minBytes " + options.minBytes() +
            " maxBytes " + maxBytes + " step: " + (factor ? options.stepFactor() : options.stepBytes()) + "(" +
            (factor ? "factor" : "bytes") + ") warmup iters: " + options.warmupIters() + " iters: " +
            options.iters() + " agg iters: " + options.aggIters() + " validation: " + options.check() + " graph: 0";
    }

    /** @return nccl-tests' line for {@code -z 1}. */
    public static String blockingLine()
    {
        return "# Blocking Enabled: wait for completion and barrier after each collective ";
    }

    /**
     * {@code "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s"}: a GPU's PCI bus id and name, as nccl-tests
     * prints them, or {@code [cpu]} and {@code host} for jccl's host buffers.
     *
     * @param rank     the rank.
     * @param pid      this process.
     * @param hostname the host, cut at the first dot.
     * @param device   the device index.
     * @param busId    the device's PCI id ({@code 0000:1b:00}) or {@code cpu}.
     * @param name     the device's name ({@code NVIDIA H200}) or {@code host}.
     * @return the line.
     */
    public static String deviceLine(final int rank, final long pid, final String hostname, final int device,
        final String busId, final String name)
    {
        return String.format(Locale.ROOT, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s", rank, 0, pid,
            hostname, device, busId, name);
    }

    /**
     * The three header lines:
     * {@code "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "},
     * {@code "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s"} followed by jccl's {@code plan}
     * column, and
     * {@code "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s"}.
     *
     * @param timeLabel {@code time}, or {@code cputime} with {@code -C 1}.
     * @return the lines.
     */
    public static String[] columnHeaders(final String timeLabel)
    {
        return new String[]
        {
            String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          ",
                "", "", "", "", ""),
            String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s  %s", "size",
                "count", "type", "redop", "root", timeLabel, "algbw", "busbw", "#wrong", timeLabel, "algbw", "busbw",
                "#wrong", "plan"),
            String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s", "(B)", "(elements)",
                "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "")
        };
    }

    /**
     * {@code "%12li  %12li  %8s  %6s  %6s"} with the root as {@code "%6i"}.
     *
     * @param bytes    the size column.
     * @param count    the count column.
     * @param typeName the type as nccl-tests names it.
     * @param opName   the operator, {@code none} for copies.
     * @param root     the root, -1 for collectives without one.
     * @return the start of a row.
     */
    public static String rowParameters(final long bytes, final long count, final String typeName,
        final String opName, final int root)
    {
        return String.format(Locale.ROOT, "%12d  %12d  %8s  %6s  %6d", bytes, count, typeName, opName, root);
    }

    /**
     * {@code "  %7s  %6.2f  %6.2f  %5g"} with the wrong count, or {@code "  %7s  %6.2f  %6.2f  %5s"} with
     * {@code N/A} when results are not checked.
     *
     * @param timeUs    time of one call in microseconds.
     * @param algBw     algorithm bandwidth in GB/s.
     * @param busBw     bus bandwidth in GB/s.
     * @param wrong     wrong elements.
     * @param checked   false with {@code -c 0}.
     * @return one half of a row (out-of-place or in-place).
     */
    public static String rowResult(final double timeUs, final double algBw, final double busBw, final long wrong,
        final boolean checked)
    {
        return "  " + timeString(timeUs) + "  " + CFormat.fixed(algBw, 6, 2) + "  " + CFormat.fixed(busBw, 6, 2) +
            "  " + (checked ? CFormat.general(wrong, 5) : CFormat.padLeft("N/A", 5));
    }

    /**
     * jccl's last column: what ran, e.g. {@code ring/simple/p2p/1ch/128K}, or a schedule's name with its protocol
     * and channels; two plans joined by {@code |} when out-of-place and in-place ran differently.
     *
     * @param outOfPlace the plan text of the out-of-place run.
     * @param inPlace    the plan text of the in-place run.
     * @return the column, preceded by two spaces.
     */
    public static String rowPlan(final String outOfPlace, final String inPlace)
    {
        return "  " + planColumn(outOfPlace, inPlace);
    }

    /**
     * @param outOfPlace the plan text of the out-of-place run.
     * @param inPlace    the plan text of the in-place run.
     * @return jccl's plan column without its leading spaces: one plan, or two joined by {@code |}.
     */
    public static String planColumn(final String outOfPlace, final String inPlace)
    {
        return outOfPlace.equals(inPlace) ? outOfPlace : outOfPlace + "|" + inPlace;
    }

    /**
     * @param plan        the plan a call ran under, or null when it moved nothing.
     * @param programName the program it ran.
     * @return the compact plan text.
     */
    public static String planText(final io.jccl.Plan plan, final String programName)
    {
        if (plan == null)
        {
            return "-";
        }
        final int chunk = plan.chunkBytes();
        final String chunkText = chunk % 1024 == 0 ? chunk / 1024 + "K" : Integer.toString(chunk);
        return (programName == null ? plan.algorithm().lowerName() : programName) + "/" +
            plan.protocol().lowerName() + "/" + plan.transport().lowerName() + "/" + plan.channels() + "ch/" + chunkText;
    }

    /**
     * nccl-tests' time column: {@code %7.0f} from 10000 us, {@code %7.1f} from 100 us, {@code %7.2f} below.
     *
     * @param timeUs microseconds.
     * @return the column.
     */
    public static String timeString(final double timeUs)
    {
        if (timeUs >= 10000.0)
        {
            return CFormat.fixed(timeUs, 7, 0);
        }
        if (timeUs >= 100.0)
        {
            return CFormat.fixed(timeUs, 7, 1);
        }
        return CFormat.fixed(timeUs, 7, 2);
    }

    /**
     * @param maxBytes the reduced largest size.
     * @return nccl-tests' note {@code "# Reducing maxBytes to %ld due to memory limitation"}.
     */
    public static String reducingMaxBytesLine(final long maxBytes)
    {
        return "# Reducing maxBytes to " + maxBytes + " due to memory limitation";
    }

    /**
     * {@code "# Out of bounds values : %d %s"}.
     *
     * @param errors checks that found wrong elements.
     * @return the line.
     */
    public static String outOfBoundsLine(final long errors)
    {
        return "# Out of bounds values : " + errors + " " + (errors != 0 ? "FAILED" : "OK");
    }

    /**
     * {@code "# Avg bus bandwidth    : %g %s"}, the verdict against {@code NCCL_TESTS_MIN_BW} (empty when unset).
     *
     * @param avgBusBw    mean bus bandwidth of every measurement.
     * @param minBusBw    the required minimum, or a negative value for none.
     * @return the line (it ends with a space when no minimum is set, as nccl-tests').
     */
    public static String avgBusBandwidthLine(final double avgBusBw, final double minBusBw)
    {
        final String verdict = minBusBw < 0 ? "" : (avgBusBw < minBusBw * 0.9 ? "FAILED" : "OK");
        return "# Avg bus bandwidth    : " + CFormat.general(avgBusBw, 0) + " " + verdict;
    }
}
