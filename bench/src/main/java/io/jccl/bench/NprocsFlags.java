package io.jccl.bench;

import io.jccl.launch.CpuBinding;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code jccl-bench --nprocs N [--bind-to core|none] <tool> [flags]}: the launcher's two flags, before or after the
 * tool and among its flags, taken out of a bench command line; the rest is the tool's.
 */
final class NprocsFlags
{
    /** The flag, before or after the tool name. */
    static final String NPROCS_FLAG = "--nprocs";

    private NprocsFlags()
    {
    }

    /**
     * The arguments with {@value #NPROCS_FLAG} taken out.
     *
     * @param nprocs the process count given, or 0 when the flag is absent.
     * @param bindTo the value of {@value CpuBinding#FLAG}, or null when it is absent.
     * @param rest   the other arguments, in order.
     */
    record Split(int nprocs, String bindTo, List<String> rest)
    {
    }

    /**
     * @param args the command line.
     * @return whether it holds {@value #NPROCS_FLAG}, alone or as {@code --nprocs=N}.
     */
    static boolean given(final String[] args)
    {
        return Arrays.stream(args).anyMatch(a -> a.equals(NPROCS_FLAG) || a.startsWith(NPROCS_FLAG + "="));
    }

    /**
     * @param args the command line.
     * @return the process count of {@code --nprocs N} or {@code --nprocs=N} (0 when absent), the value of
     *         {@code --bind-to} (null when absent), and the rest.
     * @throws IllegalArgumentException when a flag has no value or is given twice, the count is not a count of 1 or
     *                                  more, or {@code --bind-to} comes without {@code --nprocs}.
     */
    static Split split(final String[] args)
    {
        int nprocs = 0;
        String bindTo = null;
        final List<String> rest = new ArrayList<>(args.length);
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            final String flag = arg.startsWith(NPROCS_FLAG) ? NPROCS_FLAG :
                arg.startsWith(CpuBinding.FLAG) ? CpuBinding.FLAG : null;
            final String value;
            if (flag != null && arg.equals(flag))
            {
                if (i + 1 == args.length)
                {
                    throw new IllegalArgumentException(flag + (flag.equals(NPROCS_FLAG) ? " needs a process count" :
                        " needs " + CpuBinding.CORE + " or " + CpuBinding.NONE));
                }
                value = args[++i];
            }
            else if (flag != null && arg.startsWith(flag + "="))
            {
                value = arg.substring(flag.length() + 1);
            }
            else
            {
                rest.add(arg);
                continue;
            }
            if (flag.equals(NPROCS_FLAG) ? nprocs != 0 : bindTo != null)
            {
                throw new IllegalArgumentException(flag + " is given twice");
            }
            if (flag.equals(NPROCS_FLAG))
            {
                nprocs = count(value);
            }
            else
            {
                bindTo = value;
            }
        }
        if (bindTo != null && nprocs == 0)
        {
            throw new IllegalArgumentException(CpuBinding.FLAG + " binds the processes of " + NPROCS_FLAG +
                ", which is not given");
        }
        return new Split(nprocs, bindTo, rest);
    }

    private static int count(final String value)
    {
        final int count;
        try
        {
            count = Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(NPROCS_FLAG + " '" + value + "' is not a process count");
        }
        if (count < 1)
        {
            throw new IllegalArgumentException(NPROCS_FLAG + " " + count + " must be at least 1");
        }
        return count;
    }
}
