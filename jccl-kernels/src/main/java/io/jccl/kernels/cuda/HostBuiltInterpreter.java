package io.jccl.kernels.cuda;

import io.jccl.JcclSystemException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The interpreter kernel's own source, {@code cuda-src/interpreter.cu}, compiled for the CPU by g++ with
 * {@code cuda-src/host-test/interp_host.cpp} into a JNI library, so that {@link EmulatedCuda} runs the kernel a GPU
 * runs instead of {@link EmulatedInterpreter}'s model of it ({@link EmulatedCuda#runKernelSource}). A launch starts
 * one host thread per CUDA thread of every block at once, over the same records and memory; the double polls
 * {@link #done} and then {@link #join}s.
 * <p>
 * A test double's facility: it needs g++ and the JDK's JNI headers at test time, and the library is built per build
 * directory, never shipped.
 */
public final class HostBuiltInterpreter
{
    private static final String SOURCE = "host-test/interp_host.cpp";
    private static HostBuiltInterpreter loaded;
    private static Path loadedFrom;

    private HostBuiltInterpreter()
    {
    }

    /**
     * Compiles the kernel's source and loads it, once per JVM (later calls return the first one).
     *
     * @param cudaSrc   the repository's {@code cuda-src} directory.
     * @param directory where the library is built (a build directory).
     * @return the loaded interpreter.
     * @throws IOException           if g++ cannot be started (absent from the PATH) or the files cannot be written.
     * @throws IllegalStateException if the source is absent, the JDK has no JNI headers, or g++ fails (with its
     *                               output).
     * @throws InterruptedException  if interrupted while g++ runs.
     */
    public static synchronized HostBuiltInterpreter build(final Path cudaSrc, final Path directory)
        throws IOException, InterruptedException
    {
        if (loaded != null)
        {
            return loaded;
        }
        return load(compile(cudaSrc, directory, "libjccl_interp_host.so", List.of()));
    }

    /**
     * Compiles the kernel's source into a library without loading it: for other processes, or with flags that need
     * their own runtime loaded first ({@code -fsanitize=address}, whose runtime a JVM takes through
     * {@code LD_PRELOAD}).
     *
     * @param cudaSrc   the repository's {@code cuda-src} directory.
     * @param directory where the library is built (a build directory).
     * @param name      the library's file name.
     * @param flags     g++ flags added to the build's own.
     * @return the library's absolute path.
     * @throws IOException           if g++ cannot be started (absent from the PATH) or the files cannot be written.
     * @throws IllegalStateException if the source is absent, the JDK has no JNI headers, or g++ fails (with its
     *                               output).
     * @throws InterruptedException  if interrupted while g++ runs.
     */
    public static Path compile(final Path cudaSrc, final Path directory, final String name, final List<String> flags)
        throws IOException, InterruptedException
    {
        final Path source = cudaSrc.resolve(SOURCE);
        if (!Files.isRegularFile(source))
        {
            throw new IllegalStateException(source.toAbsolutePath().normalize() + " is absent (a build outside the " +
                "repository)");
        }
        final Path jdk = Path.of(System.getProperty("java.home"));
        final Path include = jdk.resolve("include");
        if (!Files.isRegularFile(include.resolve("jni.h")))
        {
            throw new IllegalStateException(include + "/jni.h is absent: the JDK at " + jdk + " has no JNI headers " +
                "(a JRE)");
        }
        Files.createDirectories(directory);
        final Path library = directory.resolve(name).toAbsolutePath();
        final Path log = directory.resolve(name + ".g++.log");
        final List<String> command = new ArrayList<>(List.of("g++", "-std=c++17", "-O1", "-fPIC", "-shared",
            "-pthread", "-ffp-contract=off", "-fno-strict-aliasing", "-Wall", "-Wextra", "-Wno-unknown-pragmas",
            "-Werror", "-DJCCL_HOST_BUILD", "-I" + include, "-I" + include.resolve("linux")));
        command.addAll(flags);
        command.addAll(List.of("-o", library.toString(), source.toString()));
        final Process compiler = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(log.toFile()).start();
        if (!compiler.waitFor(300, TimeUnit.SECONDS))
        {
            compiler.destroyForcibly();
            throw new IllegalStateException("g++ did not finish in 300 s: " + String.join(" ", command));
        }
        if (compiler.exitValue() != 0)
        {
            throw new IllegalStateException("g++ failed (" + compiler.exitValue() + "): " + String.join(" ", command) +
                "\n" + Files.readString(log, StandardCharsets.UTF_8));
        }
        return library;
    }

    /**
     * Loads a library {@link #build} made (in another process, say), once per JVM.
     *
     * @param library the library's path.
     * @return the loaded interpreter.
     * @throws IllegalStateException if another library was loaded in this JVM before.
     */
    public static synchronized HostBuiltInterpreter load(final Path library)
    {
        final Path path = library.toAbsolutePath().normalize();
        if (loaded != null)
        {
            if (!loadedFrom.equals(path))
            {
                throw new IllegalStateException("the host-built interpreter was loaded from " + loadedFrom +
                    " already, not " + path);
            }
            return loaded;
        }
        System.load(path.toString());
        loadedFrom = path;
        loaded = new HostBuiltInterpreter();
        return loaded;
    }

    /** @return where the library was loaded from, for other processes to {@link #load} it. */
    public Path library()
    {
        return loadedFrom;
    }

    /**
     * @param kernel  the kernel's name, {@code jccl_interp_<proto>_<type>_<op>} or {@code jccl_interp_<proto>_copy}.
     * @param set     the kernel's parameter, the launch set's fields ({@link DeviceLayout#launchSet}).
     * @param blocks  blocks of the launch.
     * @param threads threads per block.
     * @return the run, for {@link #done} and {@link #join}.
     * @throws JcclSystemException if the library has no kernel of that name.
     */
    long start(final String kernel, final long[] set, final int blocks, final int threads)
    {
        final long run = start0(kernel, set, blocks, threads);
        if (run == 0)
        {
            throw new JcclSystemException("host-built interpreter: no kernel " + kernel + " (or a launch set of " +
                set.length + " fields)");
        }
        return run;
    }

    /**
     * @param run a run {@link #start} returned and not yet joined.
     * @return whether every thread of the run has returned.
     */
    boolean done(final long run)
    {
        return done0(run);
    }

    /** @param run a run {@link #start} returned: waits for its threads and frees it. */
    void join(final long run)
    {
        join0(run);
    }

    private static native long start0(String kernel, long[] set, int blocks, int threads);

    private static native boolean done0(long run);

    private static native void join0(long run);
}
