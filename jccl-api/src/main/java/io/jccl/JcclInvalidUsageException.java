package io.jccl;

/** A call made in a state that does not allow it (closed communicator, blocking call inside a group, ...). (NCCL: {@code ncclInvalidUsage}). */
public class JcclInvalidUsageException extends JcclException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened. */
    public JcclInvalidUsageException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying failure.
     */
    public JcclInvalidUsageException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
