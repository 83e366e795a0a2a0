package io.jccl.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * One run of a {@code jccl-bench} command in this JVM ({@link JcclBench#run}) and what it printed.
 *
 * @param status its exit status.
 * @param stdout what it printed on standard output.
 * @param stderr what it printed on standard error.
 */
record CommandRun(int status, String stdout, String stderr)
{
    /**
     * @param command the command, e.g. {@code export}.
     * @param args    its flags.
     * @return the run.
     */
    static CommandRun of(final String command, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final String[] all = new String[args.length + 1];
        all[0] = command;
        System.arraycopy(args, 0, all, 1, args.length);
        final int status = JcclBench.run(all, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CommandRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
