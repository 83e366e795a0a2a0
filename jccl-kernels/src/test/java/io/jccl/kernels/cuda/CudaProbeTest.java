package io.jccl.kernels.cuda;

import io.jccl.JcclInvalidArgumentException;
import io.jccl.JcclSystemException;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class CudaProbeTest
{
    /** What JCuda 12.6.0's UnsatisfiedLinkError says on a machine without libcuda.so.1 (abridged). */
    private static final String JCUDA_LINK_ERROR = String.join(System.lineSeparator(),
        "Error while loading native library \"JCudaDriver-12.6.0-linux-x86_64\"",
        "Operating system name: Linux",
        "---(start of nested stack traces)---",
        "Stack trace from the attempt to load the library as a file:",
        "java.lang.UnsatisfiedLinkError: no JCudaDriver-12.6.0-linux-x86_64 in java.library.path: /usr/lib",
        "\tat java.base/java.lang.ClassLoader.loadLibrary(ClassLoader.java:2434)",
        "Stack trace from the attempt to load the library as a resource:",
        "java.lang.UnsatisfiedLinkError: /tmp/libJCudaDriver-12.6.0-linux-x86_64.so: libcuda.so.1: cannot open " +
            "shared object file: No such file or directory",
        "\tat java.base/jdk.internal.loader.NativeLibraries.load(Native Method)",
        "---(end of nested stack traces)---");

    @Test
    void shouldReportAbsentWithDriverNamedWhenNoDriverIsInstalled()
    {
        assumeTrue(noDriverInstalled(), "a CUDA driver is installed here");

        final CudaAvailability availability = CudaProbe.availability();

        assertFalse(availability.available());
        assertTrue(availability.reason().startsWith("no CUDA driver: libcuda.so.1: cannot open shared object file"),
            availability.reason());
        assertEquals(0, availability.devices());
        assertEquals(0, availability.driverVersion());
    }

    @Test
    void shouldAnswerFromCacheWhenProbedAgain()
    {
        final CudaAvailability first = CudaProbe.availability();

        assertSame(first, CudaProbe.availability());
        // a fresh probe touches JCudaDriver again (NoClassDefFoundError without a driver) and gives the same reason
        final CudaAvailability again = CudaProbe.probe();
        assertEquals(first.available(), again.available());
        assertEquals(first.reason(), again.reason());
    }

    @Test
    void shouldResolveToHostWhenAutoAndNoDriver()
    {
        assumeTrue(noDriverInstalled(), "a CUDA driver is installed here");

        assertFalse(CudaProbe.resolve(DeviceMode.AUTO));
        assertFalse(CudaProbe.resolve(DeviceMode.HOST));
    }

    @Test
    void shouldThrowWithReasonWhenCudaIsAskedForAndNoDriver()
    {
        assumeTrue(noDriverInstalled(), "a CUDA driver is installed here");

        final JcclSystemException resolved = assertThrows(
            JcclSystemException.class, () -> CudaProbe.resolve(DeviceMode.CUDA));
        assertTrue(resolved.getMessage().startsWith("--device cuda was asked for but no CUDA driver: libcuda.so.1"),
            resolved.getMessage());
        final JcclSystemException api = assertThrows(JcclSystemException.class, CudaProbe::api);
        assertTrue(api.getMessage().contains(CudaProbe.availability().reason()), api.getMessage());
    }

    @Test
    void shouldResolveToCudaWhenAvailable()
    {
        assumeTrue(CudaProbe.availability().available(), () -> CudaProbe.availability().reason());

        assertTrue(CudaProbe.resolve(DeviceMode.CUDA));
        assertTrue(CudaProbe.resolve(DeviceMode.AUTO));
        assertFalse(CudaProbe.resolve(DeviceMode.HOST));
        assertSame(CudaProbe.api(), CudaProbe.api());
    }

    @Test
    void shouldNameMissingDriverWhenLinkErrorSaysSo()
    {
        assertEquals("no CUDA driver: libcuda.so.1: cannot open shared object file: No such file or directory",
            CudaProbe.bindingFailure(new UnsatisfiedLinkError(JCUDA_LINK_ERROR)));
        final NoClassDefFoundError later = new NoClassDefFoundError("Could not initialize class jcuda.driver.JCudaDriver");
        later.initCause(new ExceptionInInitializerError("Exception java.lang.UnsatisfiedLinkError: " +
            JCUDA_LINK_ERROR + " [in thread \"main\"]"));
        assertEquals("no CUDA driver: libcuda.so.1: cannot open shared object file: No such file or directory",
            CudaProbe.bindingFailure(later));
    }

    @Test
    void shouldNameOtherCausesWhenBindingFails()
    {
        assertEquals("JCuda is not on the class path: jcuda/driver/JCudaDriver",
            CudaProbe.bindingFailure(new NoClassDefFoundError("jcuda/driver/JCudaDriver")));
        assertEquals("JCuda's CUDA driver binding failed to load earlier in this process (Could not initialize " +
            "class jcuda.driver.JCudaDriver)", CudaProbe.bindingFailure(
            new NoClassDefFoundError("Could not initialize class jcuda.driver.JCudaDriver")));
        assertEquals("JCuda's CUDA driver binding did not load: /usr/lib/libcuda.so.1: undefined symbol: cuFoo",
            CudaProbe.bindingFailure(new UnsatisfiedLinkError(
                "java.lang.UnsatisfiedLinkError: /tmp/libJCudaDriver-12.6.0-linux-x86_64.so: " +
                "/usr/lib/libcuda.so.1: undefined symbol: cuFoo")));
    }

    @Test
    void shouldParseDeviceModeInAnyCase()
    {
        assertSame(DeviceMode.AUTO, DeviceMode.parse("auto"));
        assertSame(DeviceMode.HOST, DeviceMode.parse("HOST"));
        assertSame(DeviceMode.CUDA, DeviceMode.parse("Cuda"));
        assertEquals("cuda", DeviceMode.CUDA.flagName());
    }

    @Test
    void shouldNameArgumentAndValuesWhenDeviceModeIsUnknown()
    {
        for (final String text : new String[] { "gpu", "", null })
        {
            final JcclInvalidArgumentException ex = assertThrows(
                JcclInvalidArgumentException.class, () -> DeviceMode.parse(text));
            assertEquals("device '" + text + "' is not one of auto, host, cuda", ex.getMessage());
        }
    }

    /** No NVIDIA device node and no libcuda.so.1 where the dynamic linker would look. */
    private static boolean noDriverInstalled()
    {
        if (Files.exists(Path.of("/dev/nvidiactl")))
        {
            return false;
        }
        final List<String> directories = new ArrayList<>(List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib64",
            "/lib64", "/usr/lib", "/lib/x86_64-linux-gnu", "/usr/local/cuda/compat", "/usr/lib/wsl/lib"));
        for (final String variable : new String[] { System.getenv("LD_LIBRARY_PATH"),
            System.getProperty("java.library.path") })
        {
            if (variable != null)
            {
                directories.addAll(List.of(variable.split(File.pathSeparator)));
            }
        }
        return directories.stream().noneMatch(directory -> Files.exists(Path.of(directory, "libcuda.so.1")));
    }
}
