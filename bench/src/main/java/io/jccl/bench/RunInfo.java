package io.jccl.bench;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The header of a result file: where and how the numbers were taken. The machine (host name as the table prints it,
 * available cores, operating system), the JVM ({@code java.version}, {@code java.vm.name}), jccl's version, the
 * command line and the start time, so that two files can be told apart and a run repeated.
 *
 * @param hostname    the host, cut at the first dot (as the table's device lines).
 * @param cores       processors available to the JVM.
 * @param os          {@code os.name os.version os.arch}.
 * @param javaVersion {@code java.version}.
 * @param vmName      {@code java.vm.name}.
 * @param jcclVersion jccl's version ({@link #currentJcclVersion()}).
 * @param command     the command line, {@code jccl-bench} and the arguments, quoted for a POSIX shell where needed.
 * @param started     when the run started, ISO-8601 in UTC.
 */
public record RunInfo(String hostname, int cores, String os, String javaVersion, String vmName, String jcclVersion,
    String command, String started)
{
    /** jccl's version when neither the jar's manifest nor the build's properties say it. */
    public static final String UNKNOWN_VERSION = "dev";
    /** The build writes the Maven project version here (a filtered resource). */
    static final String VERSION_RESOURCE = "jccl-bench-version.properties";
    private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_./=:,+@%^-]+");

    /**
     * @param args the tool's arguments, as given to {@link JcclBench#run}.
     * @return this machine, this JVM, this jccl, this command, now.
     */
    public static RunInfo current(final String[] args)
    {
        return new RunInfo(BenchRunner.hostname(), Runtime.getRuntime().availableProcessors(),
            System.getProperty("os.name") + " " + System.getProperty("os.version") + " " +
            System.getProperty("os.arch"), System.getProperty("java.version"), System.getProperty("java.vm.name"),
            currentJcclVersion(), commandLine(args), Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    }

    /**
     * @return the header as ordered key/value pairs, the keys of both file formats: {@code hostname}, {@code cores},
     *         {@code os}, {@code java.version}, {@code java.vm.name}, {@code jccl.version}, {@code command},
     *         {@code started}.
     */
    public Map<String, String> entries()
    {
        final Map<String, String> entries = new LinkedHashMap<>();
        entries.put("hostname", hostname);
        entries.put("cores", Integer.toString(cores));
        entries.put("os", os);
        entries.put("java.version", javaVersion);
        entries.put("java.vm.name", vmName);
        entries.put("jccl.version", jcclVersion);
        entries.put("command", command);
        entries.put("started", started);
        return entries;
    }

    /**
     * @return the {@code Implementation-Version} of the jar that holds the bench (the runnable jar's manifest), else
     *         the Maven project version the build wrote into {@value #VERSION_RESOURCE}, else
     *         {@value #UNKNOWN_VERSION}.
     */
    public static String currentJcclVersion()
    {
        final String manifest = RunInfo.class.getPackage().getImplementationVersion();
        if (manifest != null && !manifest.isBlank())
        {
            return manifest;
        }
        try (InputStream in = RunInfo.class.getResourceAsStream(VERSION_RESOURCE))
        {
            if (in != null)
            {
                final Properties properties = new Properties();
                properties.load(in);
                final String version = properties.getProperty("version", "");
                // an unfiltered copy (an IDE's build) still holds the placeholder
                if (!version.isBlank() && !version.startsWith("${"))
                {
                    return version;
                }
            }
        }
        catch (final IOException ex)
        {
            return UNKNOWN_VERSION;
        }
        return UNKNOWN_VERSION;
    }

    /**
     * @param args the arguments.
     * @return {@code jccl-bench} and the arguments, each in single quotes where a POSIX shell would split or expand
     *         it.
     */
    static String commandLine(final String[] args)
    {
        final StringBuilder sb = new StringBuilder("jccl-bench");
        for (final String arg : args)
        {
            sb.append(' ');
            if (SHELL_SAFE.matcher(arg).matches())
            {
                sb.append(arg);
            }
            else
            {
                sb.append('\'').append(arg.replace("'", "'\\''")).append('\'');
            }
        }
        return sb.toString();
    }
}
