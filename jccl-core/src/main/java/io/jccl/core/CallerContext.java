package io.jccl.core;

import io.jccl.kernels.cuda.CudaApi;

/**
 * The CUDA context a thread brings into jccl, given back when it leaves. jccl's driver calls make a device's primary
 * context current on whichever thread runs them ({@code cuCtxSetCurrent}), and a caller's thread must leave with the
 * context it came with: a PyTorch or DJL thread working on device 1 that joins a call of a rank on device 0 would
 * otherwise issue its own later work to device 0. Used where a caller's thread enters: joins and polls of calls,
 * submits that drive progress, communicator creation and closing, and the device buffer helpers.
 */
final class CallerContext
{
    private CallerContext()
    {
    }

    /**
     * @param api the driver, or null (host ranks).
     * @return the calling thread's context ({@link CudaApi#currentContext}), 0 without a driver.
     */
    static long save(final CudaApi api)
    {
        return api == null ? 0 : api.currentContext();
    }

    /**
     * Runs driver work on the caller's thread and gives the thread its context back (off the hot path: it allocates
     * the lambda).
     *
     * @param api  the driver, or null.
     * @param work the work.
     * @param <T>  its result.
     * @return the work's result.
     */
    static <T> T keep(final CudaApi api, final java.util.function.Supplier<T> work)
    {
        final long saved = save(api);
        try
        {
            return work.get();
        }
        finally
        {
            restore(api, saved);
        }
    }

    /**
     * Makes the saved context current again (one driver call; asking first whether jccl changed it would be two).
     *
     * @param api   the driver, or null.
     * @param saved what {@link #save} returned on this thread.
     */
    static void restore(final CudaApi api, final long saved)
    {
        if (api != null)
        {
            api.makeCurrent(saved);
        }
    }
}
