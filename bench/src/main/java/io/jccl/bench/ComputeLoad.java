package io.jccl.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * {@code --load matmul:THREADS}: a steady compute load in the bench's own process, beside the collectives, as a
 * training step's kernels run beside NCCL's: THREADS daemon threads, each multiplying two dense
 * {@value #MATRIX_DIM}x{@value #MATRIX_DIM} float matrices in plain Java, over and over, until {@link #close()}.
 * Each product's corner elements are summed into a sink that {@link #checksum()} reads, so that the JIT cannot drop
 * the work as dead code. On a host backend the ranks' progress threads compete with it for cores and memory
 * bandwidth, which is what the online tuner has to adapt to.
 * <p>
 * Started by the runner before its first size and closed after its last; {@link #start} and {@link #close} are
 * called on one thread, the counters may be read from any.
 */
public final class ComputeLoad implements AutoCloseable
{
    /** The flag. */
    public static final String FLAG = "--load";
    /** The one kind of load: dense float matrix products. */
    public static final String MATMUL = "matmul";
    /** Rows and columns of every matrix: 256 x 256 floats, 256 KiB each, three per thread (L2-sized). */
    public static final int MATRIX_DIM = 256;
    /** The most threads {@value #FLAG} takes: far more than any machine's cores, few enough to start. */
    public static final int MAX_THREADS = 1024;

    private final Spec spec;
    private final List<Thread> threads;
    private final AtomicLong products = new AtomicLong();
    private final AtomicLong sink = new AtomicLong();
    private volatile boolean running = true;

    /**
     * What {@code --load} asks for.
     *
     * @param kind    the load, {@value #MATMUL}.
     * @param threads its threads, at least 1.
     */
    public record Spec(String kind, int threads)
    {
        /**
         * @param kind    the load, {@value #MATMUL}.
         * @param threads its threads, at least 1.
         * @throws IllegalArgumentException naming {@value #FLAG} for another kind or fewer than 1 thread.
         */
        public Spec
        {
            if (!MATMUL.equals(kind))
            {
                throw new IllegalArgumentException(FLAG + " kind '" + kind + "' is not " + MATMUL);
            }
            if (threads < 1 || threads > MAX_THREADS)
            {
                throw new IllegalArgumentException(FLAG + " " + kind + ":" + threads + ": THREADS is outside 1.." +
                    MAX_THREADS);
            }
        }

        /**
         * @param text {@code matmul:THREADS}, THREADS in C notation.
         * @return the load.
         * @throws IllegalArgumentException naming {@value #FLAG} and the form it takes.
         */
        public static Spec parse(final String text)
        {
            final int colon = text.indexOf(':');
            if (colon < 0)
            {
                throw new IllegalArgumentException(FLAG + " '" + text + "' is not of the form " + MATMUL +
                    ":THREADS");
            }
            final String kind = text.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            final String count = text.substring(colon + 1).trim();
            final long threads;
            try
            {
                threads = Sizes.parseInteger(count);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(FLAG + " '" + text + "': THREADS '" + count + "' is not an " +
                    "integer", ex);
            }
            if (threads < 1 || threads > MAX_THREADS)
            {
                throw new IllegalArgumentException(FLAG + " '" + text + "': THREADS " + threads + " is outside 1.." +
                    MAX_THREADS);
            }
            return new Spec(kind, (int)threads);
        }

        /** @return the header line's words: {@code matmul 256x256 float on 4 threads}. */
        public String describe()
        {
            return kind + " " + MATRIX_DIM + "x" + MATRIX_DIM + " float on " + threads + " daemon thread" +
                (threads == 1 ? "" : "s");
        }
    }

    private ComputeLoad(final Spec spec)
    {
        this.spec = spec;
        this.threads = new ArrayList<>(spec.threads());
    }

    /**
     * Starts the load's threads.
     *
     * @param spec the load.
     * @return the running load; {@link #close()} stops it.
     */
    public static ComputeLoad start(final Spec spec)
    {
        final ComputeLoad load = new ComputeLoad(spec);
        for (int t = 0; t < spec.threads(); t++)
        {
            final Thread thread = new Thread(load::multiplyUntilClosed, "jccl-bench-load-" + t);
            thread.setDaemon(true);
            load.threads.add(thread);
            thread.start();
        }
        return load;
    }

    /**
     * Runs {@code body} under the load a run asked for, if any, and stops the load after it: the bench's table runs
     * and {@code --compare-plans} both measure this way.
     *
     * @param spec the load, or null for none.
     * @param body what to measure.
     * @param <T>  what the body returns.
     * @return what the body returned.
     */
    public static <T> T during(final Spec spec, final Supplier<T> body)
    {
        if (spec == null)
        {
            return body.get();
        }
        final ComputeLoad load = start(spec);
        try
        {
            return body.get();
        }
        finally
        {
            load.close();
        }
    }

    /**
     * @param spec the load.
     * @return the table header's line that says the load runs.
     */
    public static String headerLine(final Spec spec)
    {
        return "# Load: " + spec.describe() + " in this process, beside the collectives";
    }

    /** @return what runs. */
    public Spec spec()
    {
        return spec;
    }

    /** @return the load's threads still alive: {@link Spec#threads()} once started, 0 once closed. */
    public int liveThreads()
    {
        int alive = 0;
        for (final Thread thread : threads)
        {
            if (thread.isAlive())
            {
                alive++;
            }
        }
        return alive;
    }

    /** @return matrix products finished so far, over every thread. */
    public long products()
    {
        return products.get();
    }

    /** @return the sum of the products' corner elements so far (keeps the work observable, hence alive). */
    public long checksum()
    {
        return sink.get();
    }

    /** Stops every thread after its current product and waits for it; idempotent. */
    @Override
    public void close()
    {
        running = false;
        boolean interrupted = false;
        for (final Thread thread : threads)
        {
            while (thread.isAlive())
            {
                try
                {
                    thread.join();
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void multiplyUntilClosed()
    {
        final int n = MATRIX_DIM;
        final float[] a = new float[n * n];
        final float[] b = new float[n * n];
        final float[] c = new float[n * n];
        for (int i = 0; i < n * n; i++)
        {
            // small integers: every product is exact in float, whatever the order of the additions
            a[i] = i % 7 - 3;
            b[i] = i % 5 - 2;
        }
        long local = 0;
        while (running)
        {
            multiply(a, b, c, n);
            local += (long)c[0] + (long)c[n * n - 1];
            products.incrementAndGet();
            sink.set(local);
        }
    }

    /**
     * {@code c = a x b} for row-major n x n matrices, in i-k-j order so that the inner loop runs along rows of
     * {@code b} and {@code c} (the JIT vectorises it).
     *
     * @param a the left matrix, n x n.
     * @param b the right matrix, n x n.
     * @param c the product, n x n; overwritten.
     * @param n rows and columns.
     */
    static void multiply(final float[] a, final float[] b, final float[] c, final int n)
    {
        Arrays.fill(c, 0, n * n, 0f);
        for (int i = 0; i < n; i++)
        {
            final int row = i * n;
            for (int k = 0; k < n; k++)
            {
                final float aik = a[row + k];
                final int bRow = k * n;
                for (int j = 0; j < n; j++)
                {
                    c[row + j] += aik * b[bRow + j];
                }
            }
        }
    }
}
