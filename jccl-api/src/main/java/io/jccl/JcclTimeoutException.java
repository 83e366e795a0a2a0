package io.jccl;

/** A call did not complete within its deadline ({@code JCCL_TIMEOUT_MS}); names the collective, rank, peer and step. (NCCL: {@code ncclTimeout}). */
public class JcclTimeoutException extends JcclException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened. */
    public JcclTimeoutException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying failure.
     */
    public JcclTimeoutException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
