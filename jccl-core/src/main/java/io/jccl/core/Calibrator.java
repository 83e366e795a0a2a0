package io.jccl.core;

import io.jccl.Settings;
import io.jccl.autotune.Calibration;
import io.jccl.kernels.HostDevice;
import io.jccl.transport.HostCpus;
import org.agrona.UnsafeApi;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures the cost model's constants on this machine once per process, in a few milliseconds, when the first
 * communicator starts: one thread's streaming copy bandwidth, the bandwidth of every core copying at once, and the
 * one-way latency of handing a flag to another thread with spin-then-yield waiting. Memory bandwidth is measured with
 * the JVM's native copy, so it needs no warm-up. Every protocol's step costs one handoff; per-slot work scales with
 * the handoff by the ratios the FIFO microbenchmark measured (SIMPLE 1, LL 2.2, LL128 3). A process that may run on
 * one CPU only cannot time a handoff between cores and takes the default handoff. The calibration's cores are the
 * host's that its ranks share ({@link HostCpus#sharedByRanks()}), not this process's: 2 processes bound to a CPU each
 * on 2 CPUs are not oversubscribed, where counting one CPU made the model charge each step a process switch.
 */
final class Calibrator
{
    /** Set to {@code defaults} to skip the measurement and use {@link Calibration#defaults(int)}. */
    static final String CALIBRATION_PROP_NAME = Settings.CALIBRATION;

    private static final int COPY_BYTES = 8 << 20;
    private static final int COPY_ROUNDS = 3;
    private static final int PING_PONGS = 2_000;
    private static final int SPINS = 100;

    private static volatile Calibration measured;

    private Calibrator()
    {
    }

    /** @return this process's calibration: measured once, or the defaults when {@code JCCL_CALIBRATION=defaults}. */
    static Calibration calibration()
    {
        Calibration result = measured;
        if (result == null)
        {
            synchronized (Calibrator.class)
            {
                result = measured;
                if (result == null)
                {
                    // the model's cores are the host's, which its ranks share; a process bound to one of them
                    // still measures with what it may run on
                    final int cores = HostCpus.sharedByRanks();
                    result = "defaults".equalsIgnoreCase(Context.setting(CALIBRATION_PROP_NAME)) ?
                        Calibration.defaults(cores) : measure(Runtime.getRuntime().availableProcessors(), cores);
                    measured = result;
                }
            }
        }
        return result;
    }

    /**
     * @param ownCpus the processors this process may run on: its copy threads and its handoff's two threads run there.
     * @param cores   the processors the ranks of this host share ({@link HostCpus#sharedByRanks()}): the model's.
     * @return the constants measured now.
     */
    static Calibration measure(final int ownCpus, final int cores)
    {
        final double threadGBps = copyGBps(1);
        final double capGBps = Math.max(threadGBps, copyGBps(Math.min(ownCpus, 4)));
        final Calibration defaults = Calibration.defaults(cores);
        // a process bound to one CPU (mpirun --bind-to core, srun's binding, jccl-bench --nprocs) cannot time a
        // handoff between cores: its two threads take turns on that CPU, so the ping-pong measures the scheduler
        // (7.6 us here, against 0.2-0.5 us between the processes' cores). Its ranks' peers run on other CPUs: it
        // takes the default handoff instead, with the measured model's form
        final double handoffNs = ownCpus < 2 ? defaults.simple().stepNs() : handoffNs();
        final double slotNs = defaults.simple().slotNs() * handoffNs / defaults.simple().stepNs();
        // on the host every protocol hands a slot over by one cache line's round trip; LL and LL128 only add work
        // per slot (encoding and decoding flagged words or lines: about 2.2x and 3x SIMPLE's, by the FIFO JMH)
        return new Calibration(
            new Calibration.ProtocolCost(handoffNs, slotNs), new Calibration.ProtocolCost(handoffNs, 2.2 * slotNs),
            new Calibration.ProtocolCost(handoffNs, 3 * slotNs),
            new Calibration.TransportCost(defaults.p2p().hopNs(), threadGBps, capGBps),
            new Calibration.TransportCost(defaults.shm().hopNs(), threadGBps, capGBps),
            defaults.net(), cores);
    }

    /** @return a one-line summary for {@code JCCL_DEBUG=INFO}. */
    static String describe(final Calibration c)
    {
        return String.format("cores %d, copy %.1f GB/s per thread, %.1f GB/s all cores, step %.0f ns (simple) " +
            "%.0f ns (ll) %.0f ns (ll128)", c.cores(), c.p2p().threadGBps(), c.p2p().capGBps(), c.simple().stepNs(),
            c.ll().stepNs(), c.ll128().stepNs());
    }

    /** @return bytes copied per ns by {@code threads} threads streaming at once (each its own 8 MiB). */
    private static double copyGBps(final int threads)
    {
        final long[] buffers = new long[threads * 2];
        for (int i = 0; i < buffers.length; i++)
        {
            buffers[i] = HostDevice.INSTANCE.allocate(COPY_BYTES);
        }
        try
        {
            final Thread[] helpers = new Thread[threads - 1];
            for (int t = 1; t < threads; t++)
            {
                final long src = buffers[2 * t];
                final long dst = buffers[2 * t + 1];
                helpers[t - 1] = new Thread(() -> copyRounds(src, dst), "jccl-calibration");
                helpers[t - 1].setDaemon(true);
            }
            final long start = System.nanoTime();
            for (final Thread h : helpers)
            {
                h.start();
            }
            copyRounds(buffers[0], buffers[1]);
            for (final Thread h : helpers)
            {
                h.join();
            }
            final long elapsed = Math.max(1, System.nanoTime() - start);
            return (double)threads * COPY_ROUNDS * COPY_BYTES / elapsed;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return Calibration.DEFAULT_THREAD_GBPS;
        }
        finally
        {
            for (final long b : buffers)
            {
                HostDevice.INSTANCE.free(b);
            }
        }
    }

    private static void copyRounds(final long src, final long dst)
    {
        UnsafeApi.copyMemory(src, dst, COPY_BYTES);
        for (int r = 0; r < COPY_ROUNDS; r++)
        {
            UnsafeApi.copyMemory(src, dst, COPY_BYTES);
        }
    }

    /** @return the one-way latency of a flag passed between two threads that spin, then yield. */
    private static double handoffNs()
    {
        final AtomicLong ball = new AtomicLong();
        final Thread partner = new Thread(() ->
        {
            for (long expect = 1; expect < 2L * PING_PONGS; expect += 2)
            {
                await(ball, expect);
                ball.set(expect + 1);
            }
        }, "jccl-calibration");
        partner.setDaemon(true);
        partner.start();
        final long start = System.nanoTime();
        for (long value = 0; value < 2L * PING_PONGS; value += 2)
        {
            ball.set(value + 1);
            await(ball, value + 2);
        }
        final long elapsed = System.nanoTime() - start;
        return Math.max(10.0, elapsed / (2.0 * PING_PONGS));
    }

    private static void await(final AtomicLong ball, final long value)
    {
        int spins = 0;
        while (ball.get() != value)
        {
            if (++spins > SPINS)
            {
                Thread.yield();
            }
            else
            {
                Thread.onSpinWait();
            }
        }
    }
}
