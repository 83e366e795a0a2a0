package io.jccl.bench;

import io.jccl.Settings;

import java.io.PrintStream;

/**
 * {@code jccl-bench settings}: every {@code JCCL_*} setting jccl reads ({@link Settings#all()}), with its system
 * property, the values it takes, its default and its effect, as a Markdown table. The README's settings table is
 * this output, checked by a test.
 */
final class SettingsCommand
{
    private SettingsCommand()
    {
    }

    /**
     * @param args none.
     * @param out  where the table goes.
     * @param err  where a usage error goes.
     * @return 0, or {@link JcclBench#EXIT_USAGE} when given arguments.
     */
    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        if (args.length > 0 && !"-h".equals(args[0]) && !"--help".equals(args[0]))
        {
            err.println("jccl-bench settings: takes no arguments, not '" + args[0] + "'");
            return JcclBench.EXIT_USAGE;
        }
        out.print(table());
        return BenchRunner.EXIT_OK;
    }

    /** @return the table, one line per setting, each line ended by a newline. */
    static String table()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append("| variable | `-D` property | part | values | default | effect |\n");
        sb.append("|---|---|---|---|---|---|\n");
        for (final Settings.Entry entry : Settings.all())
        {
            sb.append("| `").append(entry.variable()).append("` | ")
                .append(entry.property() ? "`" + entry.propertyName() + "`" : "(scripts read it)").append(" | ")
                .append(entry.group()).append(" | ")
                .append(entry.values()).append(" | ")
                .append(entry.defaultText()).append(" | ")
                .append(entry.description()).append(" |\n");
        }
        return sb.toString();
    }
}
