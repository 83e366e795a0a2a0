package io.jccl;

/** The communicator was aborted while the call was pending. (NCCL: a call pending at {@code ncclCommAbort}). */
public class JcclAbortedException extends JcclException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened. */
    public JcclAbortedException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying failure.
     */
    public JcclAbortedException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
