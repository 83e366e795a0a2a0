package io.jccl.core;

import io.jccl.kernels.cuda.CudaApi;
import io.jccl.schedules.Worker;
import org.agrona.UnsafeApi;

import static io.jccl.kernels.cuda.DeviceLayout.FIFO_HEAD;
import static io.jccl.kernels.cuda.DeviceLayout.FIFO_TAIL;

/**
 * Where a stopped interpreter kernel's workers stood, for a timeout's message: each worker's step and iteration (its
 * progress counter), how long its block ran or that it never started (its entry and exit stamps), and the counters of
 * the FIFOs it sends into and receives from, read back from the device into pinned memory of its own. One per
 * {@link CudaExecution}; nothing here runs unless a call timed out.
 */
final class CudaKernelReport
{
    private final CudaApi api;
    private final Worker[] workers;
    /** Per worker: its progress (8 bytes), its FIFOs' tail and head (32), its clocks (16). */
    private final long probe;

    /**
     * @param api     the driver, its device current.
     * @param workers the rank's workers, one block each.
     */
    CudaKernelReport(final CudaApi api, final Worker[] workers)
    {
        this.api = api;
        this.workers = workers;
        this.probe = api.mallocHost(56L * workers.length);
    }

    /**
     * Reads the state back once the kernel has stopped.
     *
     * @param progress device address of the workers' progress counters.
     * @param clocks   device address of the workers' {entry, exit} stamps.
     * @param sendFifo per worker, the FIFO it sends into, or 0.
     * @param recvFifo per worker, the FIFO it receives from, or 0 (or negative: not connected yet).
     * @param stream   the stream the kernel ran on.
     * @return per worker: how long it ran and its step and iteration, or that it never started, and the FIFO it sends
     *         into (published, consumed) and the one it receives from.
     */
    String read(final long progress, final long clocks, final long[] sendFifo, final long[] recvFifo,
        final long stream)
    {
        final int n = workers.length;
        final long counters = probe + 8L * n;
        final long stamps = probe + 40L * n;
        api.memcpyAsync(probe, progress, 8L * n, stream);
        api.memcpyAsync(stamps, clocks, 16L * n, stream);
        for (int w = 0; w < n; w++)
        {
            final long[] fifos = {sendFifo[w], recvFifo[w]};
            for (int k = 0; k < 2; k++)
            {
                final long at = counters + 32L * w + 16L * k;
                UnsafeApi.putLong(at, -1);
                UnsafeApi.putLong(at + 8, -1);
                if (fifos[k] > 0)
                {
                    api.memcpyAsync(at, fifos[k] + FIFO_TAIL, 8, stream);
                    api.memcpyAsync(at + 8, fifos[k] + FIFO_HEAD, 8, stream);
                }
            }
        }
        api.streamSynchronize(stream);
        final StringBuilder text = new StringBuilder();
        for (int w = 0; w < n; w++)
        {
            final Worker worker = workers[w];
            final long done = UnsafeApi.getLong(probe + 8L * w);
            final int steps = Math.max(1, worker.stepCount());
            final long entry = UnsafeApi.getLong(stamps + 16L * w);
            final long exit = UnsafeApi.getLong(stamps + 16L * w + 8);
            text.append(w == 0 ? "" : "; ").append("worker ").append(w).append(" (channel ").append(worker.channel())
                .append(')');
            if (entry == 0)
            {
                text.append(" never started");
                continue;
            }
            text.append(" ran ").append(exit == 0 ? "?" : String.format(java.util.Locale.ROOT, "%.1f",
                (exit - entry) / 1e6)).append(" ms and finished ").append(done % steps).append(" of ").append(steps)
                .append(" steps of iteration ").append(done / steps);
            appendFifo(text, " sending to rank ", worker.sendPeer(), counters + 32L * w);
            appendFifo(text, " receiving from rank ", worker.recvPeer(), counters + 32L * w + 16);
        }
        return text.toString();
    }

    private static void appendFifo(final StringBuilder text, final String what, final int peer, final long counters)
    {
        if (peer != Worker.NO_PEER)
        {
            text.append(what).append(peer).append(" (slots published ").append(UnsafeApi.getLong(counters))
                .append(", consumed ").append(UnsafeApi.getLong(counters + 8)).append(')');
        }
    }

    /** Frees the pinned memory. */
    void close()
    {
        api.freeHost(probe);
    }
}
