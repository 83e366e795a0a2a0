package io.jccl.kernels.cuda;

import io.jccl.JcclSystemException;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out once per process whether CUDA can be used, and hands out the one {@link JCudaApi}.
 * <p>
 * The probe touches {@link JCudaDriver}, whose class initialiser loads JCuda's native binding, which needs the
 * driver's {@code libcuda.so.1}: without it the first touch throws {@code UnsatisfiedLinkError} and every later
 * touch {@code NoClassDefFoundError}, so the answer is cached and never asked again. Then {@code cuDriverGetVersion},
 * {@code cuInit(0)} ({@code CUDA_ERROR_NO_DEVICE} with a driver but no device) and {@code cuDeviceGetCount}.
 * <p>
 * JCuda unpacks its native library into {@code java.io.tmpdir} the first time and only checks later that the file
 * exists, so JVMs that start together on a fresh machine could load a half-written copy. JCuda has no property for
 * that directory (only {@code java.io.tmpdir}, and {@code System.loadLibrary} from {@code java.library.path} first),
 * and changing {@code java.io.tmpdir} inside a running JVM would change it for everything else too. So the probe does
 * not try: a launcher of several JVMs gives each its own {@code -Djava.io.tmpdir}, or runs one probe to completion
 * before it starts the others.
 * <p>
 * Threading: every method may be called from any thread; the probe runs once under a lock.
 */
public final class CudaProbe
{
    private static final Logger LOG = LoggerFactory.getLogger("io.jccl");
    private static final Object LOCK = new Object();

    private static volatile CudaAvailability availability;
    /**
     * The reason the first touch of {@link JCudaDriver} gave: later touches throw {@code NoClassDefFoundError},
     * whose cause repeats the first message only as far as the JVM's length limit for it (the linker's line, near
     * the end, may be cut).
     */
    private static volatile String firstBindingFailure;
    private static JCudaApi api;

    private CudaProbe()
    {
    }

    /**
     * Probes at the first call (logging one INFO line when CUDA is absent) and answers from the cache after.
     *
     * @return whether CUDA is available in this process, and why not.
     */
    public static CudaAvailability availability()
    {
        CudaAvailability answer = availability;
        if (answer == null)
        {
            synchronized (LOCK)
            {
                answer = availability;
                if (answer == null)
                {
                    answer = probe();
                    if (!answer.available())
                    {
                        LOG.info("CUDA is not available ({}); jccl uses host memory unless --device cuda is asked for",
                            answer.reason());
                    }
                    availability = answer;
                }
            }
        }
        return answer;
    }

    /**
     * @return the driver through JCuda, one instance per process.
     * @throws JcclSystemException with the reason when CUDA is not available.
     */
    public static CudaApi api()
    {
        final CudaAvailability answer = availability();
        if (!answer.available())
        {
            throw new JcclSystemException("CUDA is not available: " + answer.reason());
        }
        synchronized (LOCK)
        {
            if (api == null)
            {
                api = new JCudaApi();
            }
            return api;
        }
    }

    /**
     * @param mode what the user asked for.
     * @return true to use CUDA, false to use host memory: {@code AUTO} probes, {@code HOST} never touches JCuda,
     *         {@code CUDA} insists.
     * @throws JcclSystemException when {@code CUDA} was asked for and is not available, with the reason.
     */
    public static boolean resolve(final DeviceMode mode)
    {
        return switch (mode)
        {
            case HOST -> false;
            case AUTO -> availability().available();
            case CUDA ->
            {
                final CudaAvailability answer = availability();
                if (!answer.available())
                {
                    throw new JcclSystemException("--device cuda was asked for but " + answer.reason());
                }
                yield true;
            }
        };
    }

    /**
     * Probes now, without the cache (the first call's answer is what {@link #availability()} keeps).
     *
     * @return what this probe found.
     */
    static CudaAvailability probe()
    {
        try
        {
            JCudaDriver.setExceptionsEnabled(false);
        }
        catch (final LinkageError ex)
        {
            LOG.debug("JCuda's driver binding did not load", ex);
            String reason = firstBindingFailure;
            if (reason == null)
            {
                reason = bindingFailure(ex);
                firstBindingFailure = reason;
            }
            return CudaAvailability.absent(reason, 0);
        }
        try
        {
            final int[] value = new int[1];
            final int versionResult = JCudaDriver.cuDriverGetVersion(value);
            final int driverVersion = versionResult == CUresult.CUDA_SUCCESS ? value[0] : 0;
            final int initResult = JCudaDriver.cuInit(0);
            if (initResult != CUresult.CUDA_SUCCESS)
            {
                return CudaAvailability.absent(initFailure(initResult, driverVersion), driverVersion);
            }
            value[0] = 0;
            final int countResult = JCudaDriver.cuDeviceGetCount(value);
            if (countResult != CUresult.CUDA_SUCCESS)
            {
                return CudaAvailability.absent(
                    "cuDeviceGetCount failed: " + JCudaApi.resultText(countResult), driverVersion);
            }
            if (value[0] < 1)
            {
                return CudaAvailability.absent("no CUDA device: the driver " +
                    JCudaApi.versionText(driverVersion) + " sees none", driverVersion);
            }
            return CudaAvailability.present(driverVersion, value[0]);
        }
        catch (final RuntimeException | LinkageError ex)
        {
            LOG.debug("CUDA probe failed", ex);
            return CudaAvailability.absent("the CUDA probe failed: " + ex, 0);
        }
    }

    /**
     * @param failure what touching {@link JCudaDriver} threw.
     * @return a human reason: {@code "no CUDA driver: libcuda.so.1: cannot open shared object file: ..."}.
     */
    static String bindingFailure(final Throwable failure)
    {
        final String detail = linkDetail(failure);
        if (detail.contains("libcuda") && detail.contains("cannot open shared object file"))
        {
            return "no CUDA driver: " + detail;
        }
        if (failure instanceof NoClassDefFoundError)
        {
            return detail.startsWith("Could not initialize") ?
                "JCuda's CUDA driver binding failed to load earlier in this process (" + detail + ")" :
                "JCuda is not on the class path: " + detail;
        }
        return "JCuda's CUDA driver binding did not load: " + detail;
    }

    private static String initFailure(final int result, final int driverVersion)
    {
        if (result == CUresult.CUDA_ERROR_NO_DEVICE)
        {
            return "no CUDA device: cuInit says " + JCudaApi.resultText(result) + " (driver " +
                JCudaApi.versionText(driverVersion) + ")";
        }
        if (result == JCudaApi.CUDA_ERROR_INSUFFICIENT_DRIVER)
        {
            return "the CUDA driver " + JCudaApi.versionText(driverVersion) + " is too old for its devices or for " +
                "JCuda 12.6: cuInit says " + JCudaApi.resultText(result);
        }
        return "cuInit failed: " + JCudaApi.resultText(result) + " (driver " + JCudaApi.versionText(driverVersion) +
            ")";
    }

    /**
     * JCuda's {@code UnsatisfiedLinkError} carries both load attempts' stack traces in its message (later, the
     * {@code NoClassDefFoundError}'s cause carries the same text); the line that matters is the dynamic linker's,
     * after the path of JCuda's own unpacked library.
     */
    private static String linkDetail(final Throwable failure)
    {
        String found = null;
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth < 8; cause = cause.getCause(), depth++)
        {
            final String message = cause.getMessage();
            if (message == null)
            {
                continue;
            }
            for (final String line : message.split("\\R"))
            {
                if (line.contains("cannot open shared object file") || line.contains("undefined symbol") ||
                    line.contains("No resource found"))
                {
                    found = line.trim();
                }
            }
        }
        if (found == null)
        {
            final String message = failure.getMessage();
            return message == null ? failure.getClass().getName() : message.split("\\R", 2)[0].trim();
        }
        final int errorName = found.indexOf("Error: ");
        String detail = errorName >= 0 ? found.substring(errorName + "Error: ".length()) : found;
        final int exceptionName = detail.indexOf("Exception: ");
        detail = exceptionName >= 0 ? detail.substring(exceptionName + "Exception: ".length()) : detail;
        final int libraryPath = detail.indexOf(".so: ");
        return libraryPath >= 0 ? detail.substring(libraryPath + ".so: ".length()) : detail;
    }
}
