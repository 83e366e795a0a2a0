package io.jccl.core;

import io.jccl.Algorithm;
import io.jccl.JcclInvalidArgumentException;
import io.jccl.Plan;
import io.jccl.Protocol;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Settings of communicators, in the style of Aeron's {@code MediaDriver.Context}: {@code x()} reads, {@code x(v)}
 * sets and returns this. Defaults come from {@code JCCL_*} environment variables (or system properties of the same
 * name in lower case with dots, {@code jccl.timeout.ms}); {@link #conclude()} validates every range, naming the
 * property.
 */
public final class Context
{
    /** Deadline of every wait, in milliseconds. */
    public static final String TIMEOUT_MS_PROP_NAME = "JCCL_TIMEOUT_MS";
    /** Default deadline: 5 minutes. */
    public static final long TIMEOUT_MS_DEFAULT = 300_000;
    /** Pinned algorithm ({@code ring}, {@code tree}); unset lets jccl choose. */
    public static final String ALGO_PROP_NAME = "JCCL_ALGO";
    /** Pinned protocol ({@code simple}, {@code ll}, {@code ll128}); unset lets jccl choose (SIMPLE today). */
    public static final String PROTO_PROP_NAME = "JCCL_PROTO";
    /** Channels per call. */
    public static final String NCHANNELS_PROP_NAME = "JCCL_MAX_NCHANNELS";
    /** Default channels on the host backend: one (on few cores more channels only interleave). */
    public static final int NCHANNELS_DEFAULT = 1;
    /** Pipelining grain in bytes. */
    public static final String CHUNK_SIZE_PROP_NAME = "JCCL_CHUNK_SIZE";
    /** Default chunk: 128 KiB (the best staged slot size measured here, PERF-NOTES.md). */
    public static final int CHUNK_SIZE_DEFAULT = 128 * 1024;
    /** MSCCL XML schedules to register: files or directories (every {@code *.xml} in them), ':' or ',' separated. */
    public static final String SCHEDULE_FILES_PROP_NAME = "JCCL_SCHEDULE_FILES";
    /** Log level of jccl's own diagnostics: {@code WARN} (default), {@code INFO}. */
    public static final String DEBUG_PROP_NAME = "JCCL_DEBUG";

    private long timeoutMs = longSetting(TIMEOUT_MS_PROP_NAME, TIMEOUT_MS_DEFAULT);
    private Algorithm algorithm = algorithmSetting();
    private Protocol protocol = protocolSetting();
    private int channels = (int)longSetting(NCHANNELS_PROP_NAME, NCHANNELS_DEFAULT);
    private int chunkBytes = (int)longSetting(CHUNK_SIZE_PROP_NAME, CHUNK_SIZE_DEFAULT);
    private boolean debugInfo = "INFO".equalsIgnoreCase(setting(DEBUG_PROP_NAME)) ||
        "TRACE".equalsIgnoreCase(setting(DEBUG_PROP_NAME));
    private List<Path> scheduleFiles = pathsSetting(SCHEDULE_FILES_PROP_NAME);
    private boolean concluded;

    /** @return the deadline of every wait in milliseconds. */
    public long timeoutMs()
    {
        return timeoutMs;
    }

    /**
     * @param timeoutMs the deadline of every wait in milliseconds, at least 1.
     * @return this.
     */
    public Context timeoutMs(final long timeoutMs)
    {
        this.timeoutMs = timeoutMs;
        return this;
    }

    /** @return the pinned algorithm, or null to let jccl choose. */
    public Algorithm algorithm()
    {
        return algorithm;
    }

    /**
     * @param algorithm the algorithm to pin, or null to let jccl choose.
     * @return this.
     */
    public Context algorithm(final Algorithm algorithm)
    {
        this.algorithm = algorithm;
        return this;
    }

    /** @return the pinned protocol, or null to let jccl choose. */
    public Protocol protocol()
    {
        return protocol;
    }

    /**
     * @param protocol the protocol to pin, or null to let jccl choose.
     * @return this.
     */
    public Context protocol(final Protocol protocol)
    {
        this.protocol = protocol;
        return this;
    }

    /** @return channels per call. */
    public int channels()
    {
        return channels;
    }

    /**
     * @param channels channels per call, 1..32.
     * @return this.
     */
    public Context channels(final int channels)
    {
        this.channels = channels;
        return this;
    }

    /** @return the pipelining grain in bytes. */
    public int chunkBytes()
    {
        return chunkBytes;
    }

    /**
     * @param chunkBytes the pipelining grain in bytes, at least 1.
     * @return this.
     */
    public Context chunkBytes(final int chunkBytes)
    {
        this.chunkBytes = chunkBytes;
        return this;
    }

    /** @return the MSCCL XML files and directories whose schedules are registered. */
    public List<Path> scheduleFiles()
    {
        return scheduleFiles;
    }

    /**
     * @param scheduleFiles MSCCL XML files, or directories whose {@code *.xml} files are read; a registered schedule
     *                      runs every call it matches unless a plan is pinned.
     * @return this.
     */
    public Context scheduleFiles(final List<Path> scheduleFiles)
    {
        this.scheduleFiles = List.copyOf(scheduleFiles);
        return this;
    }

    /** @return true when INFO diagnostics are on ({@code JCCL_DEBUG=INFO}). */
    public boolean debugInfo()
    {
        return debugInfo;
    }

    /**
     * @param debugInfo true to log INFO diagnostics.
     * @return this.
     */
    public Context debugInfo(final boolean debugInfo)
    {
        this.debugInfo = debugInfo;
        return this;
    }

    /**
     * Validates every setting once, naming the property of a bad one.
     *
     * @return this.
     * @throws JcclInvalidArgumentException on a value out of range.
     */
    public Context conclude()
    {
        if (concluded)
        {
            return this;
        }
        if (timeoutMs < 1)
        {
            throw new JcclInvalidArgumentException(TIMEOUT_MS_PROP_NAME + "=" + timeoutMs + " must be at least 1");
        }
        if (channels < 1 || channels > Plan.MAX_CHANNELS)
        {
            throw new JcclInvalidArgumentException(NCHANNELS_PROP_NAME + "=" + channels + " is outside 1.." +
                Plan.MAX_CHANNELS);
        }
        if (chunkBytes < 1)
        {
            throw new JcclInvalidArgumentException(CHUNK_SIZE_PROP_NAME + "=" + chunkBytes + " must be at least 1");
        }
        concluded = true;
        return this;
    }

    /** @return the value of a setting from the system property (lower case, dots) or the environment, or null. */
    static String setting(final String name)
    {
        final String property = System.getProperty(name.toLowerCase().replace('_', '.'));
        return property != null ? property : System.getenv(name);
    }

    private static long longSetting(final String name, final long defaultValue)
    {
        final String value = setting(name);
        if (value == null || value.isBlank())
        {
            return defaultValue;
        }
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new JcclInvalidArgumentException(name + "='" + value + "' is not a whole number");
        }
    }

    private static List<Path> pathsSetting(final String name)
    {
        final String value = setting(name);
        if (value == null || value.isBlank())
        {
            return List.of();
        }
        return Arrays.stream(value.split("[:,]")).map(String::trim).filter(v -> !v.isEmpty()).map(Path::of).toList();
    }

    private static Protocol protocolSetting()
    {
        final String value = setting(PROTO_PROP_NAME);
        return value == null || value.isBlank() ? null : Protocol.fromName(value.trim());
    }

    private static Algorithm algorithmSetting()
    {
        final String value = setting(ALGO_PROP_NAME);
        return value == null || value.isBlank() ? null : Algorithm.fromName(value.trim());
    }
}
