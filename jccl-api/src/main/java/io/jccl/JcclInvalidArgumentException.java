package io.jccl;

/** An argument is wrong (null, negative, too small, out of range); thrown before anything is sent. (NCCL: {@code ncclInvalidArgument}). */
public class JcclInvalidArgumentException extends JcclException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened. */
    public JcclInvalidArgumentException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying failure.
     */
    public JcclInvalidArgumentException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
