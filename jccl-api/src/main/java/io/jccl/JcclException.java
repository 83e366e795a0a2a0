package io.jccl;

/**
 * The root of jccl's exceptions, unchecked. Each subclass is one cause, as NCCL's {@code ncclResult_t}: invalid
 * argument, invalid usage, remote error, timeout, aborted, system error.
 */
public class JcclException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened, naming the argument, peer, collective and step where they apply. */
    public JcclException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying failure.
     */
    public JcclException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
