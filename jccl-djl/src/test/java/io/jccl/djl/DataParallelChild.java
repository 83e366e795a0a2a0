package io.jccl.djl;

import io.jccl.Communicator;
import io.jccl.core.Context;
import io.jccl.core.Jccl;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One rank of {@link MultiProcessTrainingTest} in a JVM of its own: joins the communicator from the launcher's
 * environment ({@code JCCL_RANK}, {@code JCCL_WORLD_SIZE}, {@code JCCL_COMM_ID}), trains from its own random start,
 * and writes its final weights, one parameter a line as the floats' bit patterns in hexadecimal.
 * Arguments: kind, hidden width, steps, bucket length, seed, output file, and optionally the step at which this
 * process dies (halts at once, status 9, as a killed process would). Exit status 3 on a failure.
 */
public final class DataParallelChild
{
    private DataParallelChild()
    {
    }

    /**
     * @param args kind, hidden width, steps, bucket length, seed, output file[, step to die at].
     */
    public static void main(final String[] args)
    {
        try (Communicator communicator = Jccl.connect(new Context()))
        {
            final long bucketLength = Long.parseLong(args[3]);
            final int dieAt = args.length > 6 ? Integer.parseInt(args[6]) : -1;
            final TrainingRun.Result result = TrainingRun.train(communicator, args[0], Integer.parseInt(args[1]),
                Long.parseLong(args[4]) + communicator.rank(), Integer.parseInt(args[2]), 1,
                s -> s.bucketLength(bucketLength), step ->
                {
                    System.out.println("rank " + communicator.rank() + " step " + step);
                    if (step == dieAt)
                    {
                        Runtime.getRuntime().halt(9);
                    }
                });
            Files.write(Path.of(args[5]), format(result.weights()));
            System.out.println("rank " + communicator.rank() + " OK, " + result.bucketCount() + " buckets");
        }
        catch (final Throwable ex)
        {
            System.out.println("FAILED " + ex);
            ex.printStackTrace(System.out);
            System.out.flush();
            Runtime.getRuntime().halt(3);
        }
        // DJL's engine keeps non-daemon threads
        System.exit(0);
    }

    /**
     * @param weights weights in parameter order.
     * @return one line per parameter.
     */
    static List<String> format(final float[][] weights)
    {
        final List<String> lines = new ArrayList<>();
        for (final float[] parameter : weights)
        {
            final StringBuilder line = new StringBuilder();
            for (final float value : parameter)
            {
                line.append(line.length() == 0 ? "" : " ").append(Integer.toHexString(Float.floatToRawIntBits(value)));
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /**
     * @param lines what {@link #format} wrote.
     * @return the weights.
     */
    static float[][] parse(final List<String> lines)
    {
        final float[][] weights = new float[lines.size()][];
        for (int p = 0; p < weights.length; p++)
        {
            final String[] words = lines.get(p).trim().split(" ");
            weights[p] = new float[words.length];
            for (int i = 0; i < words.length; i++)
            {
                weights[p][i] = Float.intBitsToFloat(Integer.parseUnsignedInt(words[i], 16));
            }
        }
        return weights;
    }
}
