package io.jccl;

/** A peer failed or disagreed (it died, it aborted, it ran another call). (NCCL: {@code ncclRemoteError}). */
public class JcclRemoteException extends JcclException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened. */
    public JcclRemoteException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying failure.
     */
    public JcclRemoteException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
