package io.jccl.schedules.msccl;

/**
 * One problem found in an MSCCL XML schedule: where it is (line and element path) and what is wrong.
 *
 * @param severity how bad it is.
 * @param line     the 1-based line of the element, or 0 when unknown (a schedule made from a Program).
 * @param path     the element path, as {@code algo/gpu[id=3]/tb[id=1]/step[s=4]}.
 * @param message  what is wrong, naming values.
 */
public record MscclProblem(Severity severity, int line, String path, String message)
{
    /** How bad a problem is. */
    public enum Severity
    {
        /** The schedule is wrong for jccl: it cannot be loaded, run or trusted. */
        ERROR,
        /** Suspicious but runnable (an ignored element, a read of a never-written chunk). */
        WARNING,
        /**
         * Fine for jccl, but MSCCL's C executors (msccl-executor-nccl, RCCL, the older microsoft/msccl) would refuse
         * or mis-run the file; reported in strict mode only.
         */
        C_EXECUTOR
    }

    /** @return true for {@link Severity#ERROR}. */
    public boolean isError()
    {
        return severity == Severity.ERROR;
    }

    @Override
    public String toString()
    {
        final String where = (line > 0 ? "line " + line + ": " : "") + path;
        final String kind = switch (severity)
        {
            case ERROR -> "";
            case WARNING -> "warning: ";
            case C_EXECUTOR -> "C executor: ";
        };
        return where + ": " + kind + message;
    }
}
