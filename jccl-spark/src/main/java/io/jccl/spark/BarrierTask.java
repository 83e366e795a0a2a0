package io.jccl.spark;

import io.jccl.Communicator;
import io.jccl.JcclInvalidUsageException;
import org.apache.spark.BarrierTaskContext;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractFunction1;

import java.io.Serializable;
import java.lang.reflect.UndeclaredThrowableException;

/**
 * The Scala function a barrier stage runs for {@link JcclSpark#mapPartitions}: joins the stage's communicator and
 * hands it, with the partition, to the user's {@link BarrierFunction}. Serialized to the executors with both of its
 * fields; each task attempt calls {@link #apply} once, on its own thread.
 *
 * @param <T> the input's element type.
 * @param <U> the output's element type.
 */
final class BarrierTask<T, U> extends AbstractFunction1<Iterator<T>, Iterator<U>> implements Serializable
{
    private static final long serialVersionUID = 1L;

    private final ContextFactory context;
    private final BarrierFunction<T, U> function;

    BarrierTask(final ContextFactory context, final BarrierFunction<T, U> function)
    {
        this.context = context;
        this.function = function;
    }

    @Override
    public Iterator<U> apply(final Iterator<T> partition)
    {
        final Communicator communicator = JcclBarrier.communicator(BarrierTaskContext.get(), context.create());
        final java.util.Iterator<U> output;
        try
        {
            output = function.call(communicator, CollectionConverters.asJava(partition));
        }
        catch (final RuntimeException | Error ex)
        {
            throw ex;
        }
        catch (final Exception ex)
        {
            // Spark's task wants an unchecked exception; the message keeps the rank, the cause the user's exception
            throw new UndeclaredThrowableException(ex, "rank " + communicator.rank() + "/" + communicator.size() +
                ": " + ex);
        }
        if (output == null)
        {
            throw new JcclInvalidUsageException("rank " + communicator.rank() + "/" + communicator.size() +
                ": the barrier function returned null, not an iterator");
        }
        return CollectionConverters.asScala(output);
    }
}
