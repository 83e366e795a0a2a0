package io.jccl.bench;

/**
 * What one row of nccl-tests' table reports: the call (size, count, type, operator, root), the bus bandwidth of the
 * out-of-place and the in-place measurement, and jccl's plan column. {@link BenchRunner} hands one to its listener
 * per printed row, in the order printed.
 *
 * @param bytes           the size column: bytes.
 * @param count           the count column: elements.
 * @param typeName        the type as nccl-tests names it.
 * @param opName          the operator, {@code none} for copies.
 * @param root            the root, -1 for collectives without one.
 * @param outOfPlaceBusBw the out-of-place bus bandwidth in GB/s.
 * @param inPlaceBusBw    the in-place bus bandwidth in GB/s.
 * @param plan            the plan column, without its leading spaces ({@link TableFormatter#planColumn}).
 */
public record RowResult(long bytes, long count, String typeName, String opName, int root, double outOfPlaceBusBw,
    double inPlaceBusBw, String plan)
{
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
