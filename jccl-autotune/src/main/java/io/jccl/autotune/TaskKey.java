package io.jccl.autotune;

import io.jccl.Collective;
import io.jccl.DataType;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.ReduceOp;

import java.util.Comparator;

/**
 * What the {@link OnlineTuner} tunes separately, as AutoCCL keys a task: the collective, the data type, the reduction
 * operator, the rank count, the communicator and a range of sizes ({@link PlanRequest#bytes()}, NCCL's
 * {@code nBytes}). Build one with {@link OnlineTuner#key}, which applies the configured bucket rule.
 *
 * @param collective     the collective.
 * @param type           the element type, or null where the caller does not say.
 * @param op             the reduction operator's family, or null for collectives that do not reduce.
 * @param ranks          the communicator's rank count, at least 1.
 * @param communicatorId the communicator, as the caller numbers them; plans saved across runs match best when it is
 *                       the same in every run (for example the communicators' creation order).
 * @param minBytes       the fewest bytes of the task's calls, inclusive, at least 0.
 * @param maxBytes       the most bytes of the task's calls, inclusive, at least {@code minBytes}.
 */
public record TaskKey(Collective collective, DataType type, ReduceOp.Kind op, int ranks, long communicatorId,
    long minBytes, long maxBytes)
{
    /** Orders keys by their fields' stable ids, the same in every JVM (for reports, files and tables). */
    public static final Comparator<TaskKey> STABLE_ORDER = Comparator
        .comparingInt((final TaskKey key) -> key.collective.id())
        .thenComparingLong(TaskKey::minBytes)
        .thenComparingLong(TaskKey::maxBytes)
        .thenComparingInt(TaskKey::ranks)
        .thenComparingInt((final TaskKey key) -> key.type == null ? -1 : key.type.id())
        .thenComparingInt((final TaskKey key) -> key.op == null ? -1 : key.op.id())
        .thenComparingLong(TaskKey::communicatorId);

    /**
     * Validates the fields, naming them.
     *
     * @param collective     the collective.
     * @param type           the element type, or null.
     * @param op             the reduction operator's family, or null.
     * @param ranks          the rank count, at least 1.
     * @param communicatorId the communicator.
     * @param minBytes       the fewest bytes, at least 0.
     * @param maxBytes       the most bytes, at least minBytes.
     * @throws JcclInvalidArgumentException on a null collective or an out-of-range count.
     */
    public TaskKey
    {
        if (collective == null)
        {
            throw new JcclInvalidArgumentException("collective is null");
        }
        if (ranks < 1)
        {
            throw new JcclInvalidArgumentException("ranks=" + ranks + " is not positive");
        }
        if (minBytes < 0 || maxBytes < minBytes)
        {
            throw new JcclInvalidArgumentException("bytes range " + minBytes + ".." + maxBytes + " is invalid");
        }
    }

    /**
     * @param request a call shape.
     * @return true when the request's collective and rank count are this key's and its size is in the range.
     */
    public boolean covers(final PlanRequest request)
    {
        return request.collective() == collective && request.ranks() == ranks &&
            minBytes <= request.bytes() && request.bytes() <= maxBytes;
    }

    /** @return the key as text, the same in every JVM: {@code allreduce/float/sum/r8/comm3/1024..2047}. */
    public String canonical()
    {
        return shape() + "/comm" + communicatorId;
    }

    /** @return {@link #canonical()} without the communicator: what plans remembered across runs may match on. */
    public String shape()
    {
        return collective.xmlName() + '/' + (type == null ? "-" : type.ncclTestsName()) + '/' +
            (op == null ? "-" : op.ncclTestsName()) + "/r" + ranks + '/' + minBytes + ".." + maxBytes;
    }

    /** @return {@link #canonical()}. */
    @Override
    public String toString()
    {
        return canonical();
    }
}
